package io.tradestore.query;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.tradestore.core.Store;
import io.tradestore.core.schema.Layout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An aggregate asked for again under another name is recorded once and answered from the first one's state: on every
 * path (scanned groups, the dense sum kernel, value and bucket summaries from the indexes) each repeat must equal the
 * first and the answer of the query without repeats.
 */
class RepeatedAggregateTest {
    @TempDir
    static Path dir;
    static Store store;
    static QueryEngine engine;

    @BeforeAll
    static void setUp() {
        store = Store.open(dir);
        new TradeData().write(store, TradeData.schema(Layout.COLUMN, 1024, 128), 5000, 42, true);
        engine = new QueryEngine(store, 2);
        engine.indexes().minSegmentRows(1);
        engine.morselRows(300);
        engine.smallQueryRows(0);
    }

    @AfterAll
    static void tearDown() {
        engine.close();
        store.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        // global, index-selected: value summaries
        "\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM3\"}|count:|sum:quantity|vwap:|min:price",
        // global, scanned: every kind of accumulator
        "\"filter\":{\"op\":\"range\",\"col\":\"quantity\",\"gt\":100}|countDistinct:side|percentile:price:50"
            + "|first:price|last:price*quantity|avg:quantity|max:ts|countDistinct:price * quantity",
        // dense keys: the dense sum kernel
        "\"groupBy\":[\"venue\"]|sum:quantity|vwap:|count:|sum:price*quantity",
        // hashed keys
        "\"groupBy\":[\"client_id\"]|countDistinct:instrument|min:price*quantity|percentile:quantity:90|last:side",
        // time buckets of an index-selected symbol: bucket summaries
        "\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM5\"},"
            + "\"groupBy\":[{\"bucket\":\"1m\",\"col\":\"ts\",\"as\":\"minute\"}]"
            + "|sum:quantity|count:|first:price|last:price|min:price|max:price"})
    void shouldAnswerARepeatedAggregateAsItsFirst(final String spec) {
        final String[] parts = spec.split("\\|");
        final List<String> once = new ArrayList<>();
        final List<String> twice = new ArrayList<>();
        for (int i = 1; i < parts.length; i++) {
            once.add(agg("a" + i, parts[i], false));
        }
        for (int i = 1; i < parts.length; i++) {
            twice.add(agg("a" + i, parts[i], false));
            twice.add(agg("b" + i, parts[i], true));
        }
        final boolean grouped = parts[0].contains("groupBy");
        final String order = grouped ? ",\"orderBy\":[{\"col\":\"" + key(parts[0]) + "\"}]" : "";
        final QueryResult base = engine.execute("{\"table\":\"trades\"," + parts[0] + ",\"aggs\":["
            + String.join(",", once) + "]" + order + "}");
        final QueryResult repeated = engine.execute("{\"table\":\"trades\"," + parts[0] + ",\"aggs\":["
            + String.join(",", twice) + "]" + order + "}");
        final int keys = grouped ? 1 : 0;
        assertThat(repeated.rowCount()).isEqualTo(base.rowCount()).isPositive();
        for (int row = 0; row < base.rowCount(); row++) {
            for (int i = 0; i < once.size(); i++) {
                final Object expected = base.value(row, keys + i);
                assertThat(repeated.value(row, keys + 2 * i)).as("row %d %s", row, parts[i + 1]).isEqualTo(expected);
                assertThat(repeated.value(row, keys + 2 * i + 1)).as("row %d repeat of %s", row, parts[i + 1])
                    .isEqualTo(expected);
            }
        }
    }

    private static String key(final String head) {
        if (head.contains("\"as\":\"minute\"")) {
            return "minute";
        }
        final int at = head.indexOf("\"groupBy\":[\"") + 12;
        return head.substring(at, head.indexOf('"', at));
    }

    /** @param spec op:col[:p]. @param spaced whether a product is written with spaces around its star. */
    private static String agg(final String name, final String spec, final boolean spaced) {
        final String[] f = spec.split(":", -1);
        final String col = spaced ? f[1].replace("*", " * ") : f[1].replace(" ", "");
        return "{\"name\":\"" + name + "\",\"op\":\"" + f[0] + "\"" + (col.isEmpty() ? "" : ",\"col\":\"" + col + "\"")
            + (f.length > 2 ? ",\"p\":" + f[2] : "") + "}";
    }
}
