package io.tradestore.query;

import java.nio.file.Path;
import java.util.SplittableRandom;

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
 * {@code count(col)} of an integral column tells its nulls in the column's own bytes, of every width: over all rows
 * (dense batches), after a filter (selected rows), overall and per group, on one worker and two.
 */
class CountColumnTest {
    private static final int ROWS = 30_000;
    private static final String[] COLS = {"b", "s", "i", "l", "c", "sym"};
    private static final String[] TYPES = {"i8", "i16", "i32", "i64", "char", "symbol"};
    /** Per column and row: whether it is null. */
    private static final boolean[][] NULLS = new boolean[COLS.length][ROWS];
    private static final int[] KEY = new int[ROWS];
    private static final long[] X = new long[ROWS];
    @TempDir
    static Path dir;
    static Store store;

    @BeforeAll
    static void setUp() {
        store = Store.open(dir);
        final Schema.Builder b = Schema.builder("t").layout(Layout.COLUMN).segmentRows(8192).blockRows(1024)
            .timestamp("ts").column("ts", "timestamp").column("k", "i32").column("x", "i64");
        for (int c = 0; c < COLS.length; c++) {
            b.column(COLS[c], TYPES[c]);
        }
        final SplittableRandom r = new SplittableRandom(11);
        final StringBuilder csv = new StringBuilder("ts,k,x," + String.join(",", COLS) + "\n");
        for (int row = 0; row < ROWS; row++) {
            KEY[row] = r.nextInt(7);
            X[row] = r.nextInt(100);
            csv.append(1_795_000_000_000_000_000L + row).append(',').append(KEY[row]).append(',').append(X[row]);
            for (int c = 0; c < COLS.length; c++) {
                // a different share of nulls per column, the first column's in long runs
                NULLS[c][row] = c == 0 ? (row / 500) % 3 == 0 : r.nextInt(3 + c) == 0;
                final String v = switch (TYPES[c]) {
                    case "char" -> String.valueOf((char) ('A' + r.nextInt(26)));
                    case "symbol" -> "S" + r.nextInt(40);
                    default -> String.valueOf(r.nextInt(-100, 100));
                };
                csv.append(',').append(NULLS[c][row] ? "" : v);
            }
            csv.append('\n');
        }
        TradeData.loadCsv(store, b.build(), csv);
    }

    @AfterAll
    static void tearDown() {
        store.close();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void shouldCountThePresentValuesOfEveryWidth(final int threads) {
        try (QueryEngine engine = new QueryEngine(store, threads)) {
            engine.smallQueryRows(0);
            engine.morselRows(4096);
            for (final boolean filtered : new boolean[] {false, true}) {
                final String filter = filtered ? ",\"filter\":{\"op\":\"range\",\"col\":\"x\",\"lt\":30}" : "";
                final StringBuilder aggs = new StringBuilder();
                for (int c = 0; c < COLS.length; c++) {
                    aggs.append(c == 0 ? "" : ",").append("{\"name\":\"n").append(c).append("\",\"op\":\"count\",")
                        .append("\"col\":\"").append(COLS[c]).append("\"}");
                }
                final QueryResult all = engine.execute("{\"table\":\"t\"" + filter + ",\"aggs\":[" + aggs + "]}");
                final QueryResult byKey = engine.execute("{\"table\":\"t\"" + filter + ",\"groupBy\":[\"k\"],"
                    + "\"aggs\":[" + aggs + "],\"orderBy\":[{\"col\":\"k\"}]}");
                for (int c = 0; c < COLS.length; c++) {
                    final long[] want = new long[7];
                    long total = 0;
                    for (int row = 0; row < ROWS; row++) {
                        if (!NULLS[c][row] && (!filtered || X[row] < 30)) {
                            want[KEY[row]]++;
                            total++;
                        }
                    }
                    assertThat(all.value(0, c)).as("count(%s) filtered=%s", COLS[c], filtered).isEqualTo(total);
                    for (int row = 0; row < byKey.rowCount(); row++) {
                        final int k = ((Number) byKey.value(row, 0)).intValue();
                        assertThat(byKey.value(row, c + 1)).as("count(%s) k=%d filtered=%s", COLS[c], k, filtered)
                            .isEqualTo(want[k]);
                    }
                }
            }
        }
    }
}
