package io.tradestore.core;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Property: several flyweights bound to one writer, moved by wrap and next() onto random rows (committed,
 * staged, in flight, copied, in earlier segments), overwrite {@code l} of uncommitted rows at random moments, between
 * appends through append() and appendRow(), commits, rollbacks, reopens and a staging writer's switch to the mappings
 * (columnAddress): after every commit every committed value reads back and lies inside its block's and its segment's
 * zone map. Also on the mapped path ({@code staging=false}, as without posix write(2)), where a write through a
 * flyweight left in a block that has already ended must still reach the zone maps.
 */
@ExtendWith(TestRows.NoLeaks.class)
class ZoneMapFlyweightPropertyTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"COLUMN,32,8,true,true,1", "ROW,32,8,true,true,2", "COLUMN,16,8,true,false,3", "ROW,64,4,true,false,4",
        "COLUMN,8,8,true,true,5", "ROW,16,16,true,true,6", "COLUMN,32,8,false,false,7", "ROW,16,8,false,false,8"})
    void shouldKeepEveryWriteThroughAnyFlyweightInsideTheZoneMapsAfterCommit(final Layout layout, final int segmentRows,
                                                                               final int stageRows,
                                                                               final boolean staging,
                                                                               final boolean thread, final long seed) {
        final Schema schema = TestRows.ALL_TYPES.with("all_types", layout, segmentRows, 4);
        final SplittableRandom random = new SplittableRandom(seed);
        final int rows = 3_000;
        final long[] expected = new long[rows + 4 * segmentRows + 200];
        final long[] committedModel = new long[expected.length];
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            TableWriter w = TestRows.stagedWriter(table, Durability.NONE, stageRows, staging, thread);
            try (TableReader reader = table.reader()) {
                AllTypesFlyweight appender = new AllTypesFlyweight();
                AllTypesFlyweight[] others =
                    {new AllTypesFlyweight().bind(w), new AllTypesFlyweight().bind(w), new AllTypesFlyweight().bind(w)};
                int steps = 0;
                while (w.committedRows() < rows && steps++ < 100_000) {
                    final int op = random.nextInt(100);
                    final long pending = w.pendingRows();
                    if (op < 45) {
                        TestRows.write(w.append(appender), pending);
                        expected[(int) pending] = lValue(pending);
                    } else if (op < 50) {
                        final long r = w.appendRow();
                        final AllTypesFlyweight f = others[random.nextInt(others.length)];
                        TestRows.write(f.wrap(r), r);
                        expected[(int) r] = lValue(r);
                    } else if (op < 62) {
                        if (pending > 0) {
                            others[random.nextInt(others.length)].wrap(random
                                .nextLong(Math.max(0, w.committedRows() - 3 * stageRows), pending));
                        }
                    } else if (op < 70) {
                        final AllTypesFlyweight f = others[random.nextInt(others.length)];
                        if (f.row() >= 0) {
                            f.next();
                        }
                    } else if (op < 88) {
                        final AllTypesFlyweight f = others[random.nextInt(others.length)];
                        if (f.row() >= w.committedRows() && f.row() < w.pendingRows()) {
                            final long v = random.nextLong(-4_000_000_000_000_000_000L, 4_000_000_000_000_000_000L);
                            f.l(v);
                            expected[(int) f.row()] = v;
                        }
                    } else if (op < 95) {
                        w.commit();
                        System.arraycopy(expected, 0, committedModel, 0, expected.length);
                        check(reader.snapshot(), expected, w.committedRows());
                    } else if (op < 99) {
                        w.rollback();
                        System.arraycopy(committedModel, 0, expected, 0, expected.length);
                    } else if (staging && pending > 0 && random.nextInt(3) == 0) {
                        // mapped addresses asked for: this writer appends through the mappings from now on
                        w.columnAddress(0, 0);
                    } else {
                        w.close();
                        System.arraycopy(committedModel, 0, expected, 0, expected.length);
                        w = TestRows.stagedWriter(table, Durability.NONE, stageRows, staging, thread);
                        appender = new AllTypesFlyweight();
                        others = new AllTypesFlyweight[] {new AllTypesFlyweight().bind(w),
                            new AllTypesFlyweight().bind(w),
                            new AllTypesFlyweight().bind(w)};
                    }
                }
                w.commit();
                check(reader.snapshot(), expected, w.committedRows());
            } finally {
                w.close();
            }
        }
    }

    /** @param row a row. @return the value of {@code l} that {@link TestRows#write} gives it. */
    static long lValue(final long row) {
        return TestRows.nullRow(row) ? Long.MIN_VALUE : row * 1_000_000_007L - 5;
    }

    /**
     * Asserts the committed rows' {@code l} values and that every committed value lies inside its zone maps.
     *
     * @param snap      a snapshot of the committed rows.
     * @param expected  {@code l} by row.
     * @param committed the writer's committed rows.
     */
    static void check(final TableSnapshot snap, final long[] expected, final long committed) {
        assertThat(snap.rowCount()).isEqualTo(committed);
        final AllTypesFlyweight f = new AllTypesFlyweight().bind(snap);
        final long[] actual = new long[(int) committed];
        for (long r = 0; r < committed; r++) {
            actual[(int) r] = f.wrap(r).l();
        }
        assertThat(actual).isEqualTo(Arrays.copyOf(expected, (int) committed));
        TestRows.assertZonesContainRows(snap, 0);
    }
}
