package io.tradestore.query;

import java.nio.file.Path;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.tradestore.core.Durability;
import io.tradestore.core.Store;
import io.tradestore.core.Table;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.schema.Layout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A range filter over rows a writer appended through the mappings (no staging, as without posix write(2)): a value
 * written through a flyweight left on a row after appends passed that row's zone-map block must not be pruned by the
 * block's zone map.
 */
class MappedZoneMapQueryTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldFindAValueWrittenThroughAFlyweightLeftInABlockThatEnded(final Layout layout) {
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(TradeData.schema(layout, 1024, 64));
            try (TableWriter w = TestRows.stagedWriter(table, Durability.NONE, 8, false, false)) {
                final TradeFlyweight appender = new TradeFlyweight();
                final TradeFlyweight left = new TradeFlyweight();
                for (long r = 0; r < 300; r++) {
                    // row 10 through its own flyweight, left there while the others pass its block's end (row 64)
                    (r == 10 ? w.append(left) : w.append(appender)).tradeId(r).ts(TradeData.T0 + r).price(1_000_000L)
                        .quantity(100);
                }
                left.quantity(1_000_000);
                w.commit();
                try (QueryEngine engine = new QueryEngine(store, 1)) {
                    final QueryResult r = engine
                        .execute("{\"table\":\"trades\",\"filter\":{\"op\":\"range\",\"col\":\"quantity\","
                        + "\"gte\":500000},\"columns\":[\"trade_id\",\"quantity\"]}");
                    assertThat(r.rowCount()).as("rows with quantity >= 500000").isEqualTo(1);
                    assertThat(r.value(0, 0)).isEqualTo(10L);
                    assertThat(r.value(0, 1)).isEqualTo(1_000_000L);
                }
            }
        }
    }
}
