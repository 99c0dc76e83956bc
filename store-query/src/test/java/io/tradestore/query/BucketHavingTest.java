package io.tradestore.query;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongPredicate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A having range or equality on a time bucket key (fixed widths and calendar months) also bounds the rows read: the
 * answer equals the buckets of the query without the having that satisfy it (checked in Java on the bucket starts),
 * at bounds on bucket starts and between them, and a having on the last month reads less than half the table.
 */
class BucketHavingTest {
    /** 2026-01-01T00:00:00Z. */
    private static final long T0 = 1_767_225_600_000_000_000L;
    private static final long MINUTE = 60_000_000_000L;
    private static final int ROWS = 4_700; // one row every 37 minutes: 120 days

    @TempDir
    Path dir;

    @Test
    void shouldReadOnlyTheRowsOfTheBucketsAHavingKeeps() {
        final Schema schema = Schema.builder("t").layout(Layout.COLUMN).segmentRows(1024).blockRows(64)
            .timestamp("ts").column("ts", "timestamp").column("v", "i64").build();
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.createTable(schema).writer()) {
                for (int i = 0; i < ROWS; i++) {
                    TestRows.appendLongs(w, T0 + i * 37 * MINUTE, i);
                }
                w.commit();
            }
            final SplittableRandom r = new SplittableRandom(20_261_130L);
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                for (final String bucket : new String[] {"1h", "P1D", "7d", "P1M", "P3M"}) {
                    final QueryResult all = engine.execute(query(bucket, null));
                    final List<Long> starts = new ArrayList<>();
                    for (int row = 0; row < all.rowCount(); row++) {
                        starts.add((Long) all.value(row, 0));
                    }
                    for (int q = 0; q < 60; q++) {
                        final long x = r.nextBoolean() ? starts.get(r.nextInt(starts.size()))
                            : T0 + r.nextLong(-10 * 1440 * MINUTE, 130 * 1440 * MINUTE);
                        final long y = x + r.nextLong(0, 40 * 1440 * MINUTE);
                        final String[] ops = {"gte", "gt", "lt", "lte"};
                        final String op = ops[r.nextInt(ops.length)];
                        final String having;
                        final LongPredicate keep;
                        switch (r.nextInt(3)) {
                            case 0 -> {
                                having = "{\"op\":\"eq\",\"col\":\"bk\",\"value\":" + x + "}";
                                keep = b -> b == x;
                            }
                            case 1 -> {
                                having = "{\"op\":\"range\",\"col\":\"bk\",\"" + op + "\":" + x + "}";
                                keep = b -> switch (op) {
                                    case "gte" -> b >= x;
                                    case "gt" -> b > x;
                                    case "lt" -> b < x;
                                    default -> b <= x;
                                };
                            }
                            default -> {
                                having = "{\"op\":\"range\",\"col\":\"bk\",\"gt\":" + x + ",\"lte\":" + y + "}";
                                keep = b -> b > x && b <= y;
                            }
                        }
                        final QueryResult got = engine.execute(query(bucket, having));
                        final List<List<Object>> want = new ArrayList<>();
                        for (int row = 0; row < all.rowCount(); row++) {
                            if (keep.test((Long) all.value(row, 0))) {
                                want.add(List.of(all.value(row, 0), all.value(row, 1), all.value(row, 2)));
                            }
                        }
                        final List<List<Object>> rows = new ArrayList<>();
                        for (int row = 0; row < got.rowCount(); row++) {
                            rows.add(List.of(got.value(row, 0), got.value(row, 1), got.value(row, 2)));
                        }
                        assertThat(rows).as(bucket + " " + having).isEqualTo(want);
                    }
                }
                // the rows end on 2026-05-01: a having from mid-April on keeps May, its 18 hours of rows
                final long may = 1_777_593_600_000_000_000L; // 2026-05-01T00:00:00Z
                final QueryResult last = engine.execute(query("P1M",
                    "{\"op\":\"range\",\"col\":\"bk\",\"gte\":\"2026-04-15T12:00:00Z\"}"));
                assertThat(last.rowCount()).isEqualTo(1);
                assertThat(last.value(0, 0)).isEqualTo(may);
                assertThat(last.stats().rowsScanned()).isLessThan(ROWS / 10);
            }
        }
    }

    private static String query(final String bucket, final String having) {
        return "{\"table\":\"t\",\"groupBy\":[{\"bucket\":\"" + bucket + "\",\"col\":\"ts\",\"as\":\"bk\"}],"
            + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"s\",\"op\":\"sum\",\"col\":\"v\"}],"
            + (having == null ? "" : "\"having\":" + having + ",") + "\"orderBy\":[{\"col\":\"bk\"}]}";
    }
}
