package io.tradestore.query;

import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.tradestore.core.Store;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A grouped query with a limit and a percentile or a distinct count, ordered first by a group key or by cheap
 * outputs only, aggregates only the rows of the groups its page can hold: its page of groups, and whether it was cut,
 * equal the same page of the whole ordered answer, for symbol, char, i64 and decimal keys in both directions, with and
 * without a filter, offsets, pages past the last group, and keys with nulls; and where there are more groups than the
 * page, fewer rows are aggregated.
 */
class LimitedGroupsTest {
    private static final int ROWS = 40_000;
    @TempDir
    static Path dir;
    static Store store;

    @BeforeAll
    static void setUp() {
        store = Store.open(dir);
        final Schema schema = Schema.builder("t").layout(Layout.COLUMN).segmentRows(8192).blockRows(1024)
            .timestamp("ts").column("ts", "timestamp").column("sym", "symbol").column("c", "char")
            .column("id", "i64").column("px", "decimal(2)").column("k", "i32").column("v", "i64").build();
        final SplittableRandom r = new SplittableRandom(5);
        final StringBuilder csv = new StringBuilder("ts,sym,c,id,px,k,v\n");
        for (int row = 0; row < ROWS; row++) {
            csv.append(1_795_000_000_000_000_000L + row * 1_000L).append(',')
                .append(r.nextInt(50) == 0 ? "" : "S" + r.nextInt(70)).append(',')
                .append((char) ('A' + r.nextInt(12))).append(',')
                .append(r.nextInt(40) == 0 ? "" : String.valueOf(r.nextInt(-50, 400))).append(',')
                .append(r.nextInt(-300, 900) / 100.0).append(',')
                .append(r.nextInt(4)).append(',')
                .append(r.nextInt(10) == 0 ? "" : String.valueOf(r.nextInt(1_000))).append('\n');
        }
        TradeData.loadCsv(store, schema, csv);
    }

    @AfterAll
    static void tearDown() {
        store.close();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void shouldAnswerThePageOfTheWholeAnswerOrderedByAKey(final int threads) {
        assertThat(narrowedPages(threads, key -> List.of("{\"col\":\"" + key + "\"}",
            "{\"col\":\"" + key + "\",\"desc\":true}"))).as("pages narrowed to the groups they hold")
            .isGreaterThan(40);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void shouldAnswerThePageOfTheWholeAnswerOrderedByCheapOutputs(final int threads) {
        assertThat(narrowedPages(threads, key -> List.of("{\"col\":\"n\",\"desc\":true}",
            "{\"col\":\"s\"},{\"col\":\"" + key + "\",\"desc\":true}", "{\"col\":\"mx\",\"desc\":true}")))
            .as("pages narrowed to the groups they hold").isGreaterThan(40);
    }

    /**
     * Checks every page of every query grouped by each key type (alone, or with {@code k}, then ordered by it too),
     * with and without a filter, in each of the orders given for the key.
     *
     * @return how many pages aggregated fewer rows than their whole answer.
     */
    private static int narrowedPages(final int threads, final Function<String, List<String>> orders) {
        int narrowed = 0;
        try (QueryEngine engine = new QueryEngine(store, threads)) {
            engine.smallQueryRows(0);
            for (final String key : new String[] {"sym", "c", "id", "px"}) {
                for (final String order : orders.apply(key)) {
                    for (final String filter : new String[] {"", ",\"filter\":{\"op\":\"range\",\"col\":\"v\","
                        + "\"gte\":200}"}) {
                        for (final boolean alone : new boolean[] {false, true}) {
                            final String body = "{\"table\":\"t\"" + filter + ",\"groupBy\":[\"" + key
                                + (alone ? "\"]," : "\",\"k\"],")
                                + "\"aggs\":[{\"name\":\"p\",\"op\":\"percentile\",\"col\":\"v\",\"p\":50},"
                                + "{\"name\":\"d\",\"op\":\"countDistinct\",\"col\":\"v\"},"
                                + "{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"s\",\"op\":\"sum\",\"col\":\"v\"},"
                                + "{\"name\":\"mx\",\"op\":\"max\",\"col\":\"v\"}],\"orderBy\":[" + order
                                + (alone ? "]" : ",{\"col\":\"k\"}]");
                            for (final int[] page : new int[][] {{5, 0}, {1, 0}, {10, 7}, {3, 2000}, {2000, 0}}) {
                                narrowed += page(engine, body, page[0], page[1]) ? 1 : 0;
                            }
                        }
                    }
                }
            }
        }
        return narrowed;
    }

    /** @return whether the page was narrowed (its two queries read more rows); its rows equal the whole's (checked). */
    private static boolean page(final QueryEngine engine, final String body, final int limit, final int offset) {
        final QueryResult whole = engine.execute(body + ",\"limit\":1000000}");
        final QueryResult page = engine.execute(body + ",\"limit\":" + limit + ",\"offset\":" + offset + "}");
        final List<List<Object>> all = QueryResults.rows(whole);
        final List<List<Object>> expected = all.subList(Math.min(offset, all.size()),
            Math.min(all.size(), offset + limit));
        final String what = body + " limit " + limit + " offset " + offset;
        assertThat(QueryResults.rows(page)).as(what).isEqualTo(expected);
        assertThat(page.truncated()).as("truncated, " + what).isEqualTo(all.size() > offset + limit);
        // the stats count the rows the query's own filter matched, and the rows both of a narrowed page's queries read
        assertThat(page.stats().rowsMatched()).as("rows matched, " + what).isEqualTo(whole.stats().rowsMatched());
        return page.stats().rowsScanned() > whole.stats().rowsScanned();
    }
}
