package io.tradestore.core;

import java.nio.file.Path;
import java.util.SplittableRandom;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

/**
 * Property: stores through {@link TableWriter#columnAddress} addresses into random uncommitted rows at
 * random moments, with addresses asked for at random times and kept across commits and rollbacks (an address is good
 * until the writer closes or releases it), mixed with appends through append(), appendRow() and reserve() (whole rows
 * stored through the addresses), releases of a segment's addresses (asked for again before the next store there),
 * writes through flyweights left on random rows, commits, rollbacks and reopens, on the mapped path (staging off, as
 * without posix write(2)) and on staging writers that switch to the mappings at their first address: after every commit
 * every committed value of {@code l} reads back and every value lies inside its block's and its segment's zone map.
 * The hard case: a store into a row of a block whose zone maps were already widened (appends passed the block's
 * end). Flyweights alone: {@link ZoneMapFlyweightPropertyTest}.
 */
@ExtendWith(TestRows.NoLeaks.class)
class ZoneMapRawStorePropertyTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"COLUMN,32,false,11", "ROW,32,false,12", "COLUMN,16,true,13", "ROW,64,true,14", "COLUMN,32,false,15",
        "ROW,16,true,16",
        "COLUMN,64,true,17", "ROW,8,false,18"})
    void shouldKeepEveryStoreThroughAColumnAddressInsideTheZoneMapsAfterCommit(final Layout layout,
    final int segmentRows,
                                                                                final boolean staging,
                                                                                final long seed) {
        final Schema schema = TestRows.ALL_TYPES.with("all_types", layout, segmentRows, 4);
        final int l = schema.indexOf("l");
        final SplittableRandom random = new SplittableRandom(seed);
        final int rows = 2_000;
        final long[] expected = new long[rows + 4 * segmentRows + 200];
        final long[] committedModel = new long[expected.length];
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            TableWriter w = TestRows.stagedWriter(table, Durability.NONE, 8, staging, false);
            // addresses of column l asked for so far, by segment (0: not asked for by this writer)
            long[] bases = new long[expected.length / segmentRows + 2];
            try (TableReader reader = table.reader()) {
                AllTypesFlyweight appender = new AllTypesFlyweight();
                AllTypesFlyweight other = new AllTypesFlyweight().bind(w);
                int steps = 0;
                while (w.committedRows() < rows && steps++ < 100_000) {
                    final int op = random.nextInt(100);
                    final long pending = w.pendingRows();
                    final long committed = w.committedRows();
                    if (op < 30) {
                        TestRows.write(w.append(appender), pending);
                        expected[(int) pending] = ZoneMapFlyweightPropertyTest.lValue(pending);
                    } else if (op < 40) {
                        for (int k = random.nextInt(1, 7); k > 0; k--) {
                            expected[(int) w.appendRow()] = Long.MIN_VALUE;
                        }
                    } else if (op < 45) {
                        final int n = w.reserve(random.nextInt(1, 6));
                        for (long r = pending; r < pending + n; r++) {
                            final long v = random.nextLong(-1_000_000_000_000L, 1_000_000_000_000L);
                            RawAddressZoneMapTest.storeRow(w, r, v);
                            expected[(int) r] = v;
                        }
                        bases[(int) (pending >>> schema.segmentShift())] = w
                            .columnAddress((int) (pending >>> schema.segmentShift()), l);
                    } else if (op < 75) {
                        if (pending > committed) {
                            final long r = random.nextLong(committed, pending);
                            final int seg = (int) (r >>> schema.segmentShift());
                            if (bases[seg] != 0 && random.nextInt(10) == 0) {
                                // done with the segment's addresses (as the loader when a segment is full): forgotten
                                // here, stores into it need an address asked for again
                                w.releaseColumnAddresses(seg);
                                bases[seg] = 0;
                                continue;
                            }
                            if (bases[seg] == 0 || random.nextInt(8) == 0) {
                                bases[seg] = w.columnAddress(seg, l);
                            }
                            final long v = random.nextLong(-4_000_000_000_000_000_000L, 4_000_000_000_000_000_000L);
                            NativeMemory.putLong(bases[seg] + (r & (segmentRows - 1)) * w.columnStride(l), v);
                            expected[(int) r] = v;
                        }
                    } else if (op < 85) {
                        if (pending > 0 && random.nextBoolean()) {
                            other.wrap(random.nextLong(Math.max(0, committed - 8), pending));
                        } else if (other.row() >= committed && other.row() < pending) {
                            final long v = random.nextLong(-4_000_000_000_000_000_000L, 4_000_000_000_000_000_000L);
                            other.l(v);
                            expected[(int) other.row()] = v;
                        }
                    } else if (op < 93) {
                        w.commit();
                        System.arraycopy(expected, 0, committedModel, 0, expected.length);
                        ZoneMapFlyweightPropertyTest.check(reader.snapshot(), expected, w.committedRows());
                    } else if (op < 99) {
                        w.rollback();
                        System.arraycopy(committedModel, 0, expected, 0, expected.length);
                    } else {
                        w.close();
                        System.arraycopy(committedModel, 0, expected, 0, expected.length);
                        w = TestRows.stagedWriter(table, Durability.NONE, 8, staging, false);
                        bases = new long[bases.length];
                        appender = new AllTypesFlyweight();
                        other = new AllTypesFlyweight().bind(w);
                    }
                }
                w.commit();
                ZoneMapFlyweightPropertyTest.check(reader.snapshot(), expected, w.committedRows());
            } finally {
                w.close();
            }
        }
    }
}
