package io.tradestore.core;

import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static io.tradestore.core.TestRows.BIG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Row appends through the writer's staging area (copied into the segment files with write(2) when a window is full, at
 * commit, and before mapped addresses are handed out): with staging windows smaller than segments and segments of a
 * few rows, no row may be lost, reordered, torn or left stale by a rollback, whatever the mix of commits, rollbacks,
 * reopens, bulk writes and flyweights left on earlier rows; zone maps must hold exactly the committed values.
 */
@ExtendWith(TestRows.NoLeaks.class)
class StagingTest {
    /** Staged rows per window in these tests: several windows per segment, windows ending inside zone-map blocks. */
    private static final int STAGE_ROWS = 8;

    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"COLUMN,32,NONE,true,true", "ROW,32,NONE,true,true", "COLUMN,32,NONE,true,false",
        "ROW,32,NONE,true,false",
        "COLUMN,8,SYNC,true,true", "ROW,64,SYNC,true,false", "COLUMN,32,NONE,false,false", "ROW,32,NONE,false,false"})
    void shouldRoundTripEveryRowAcrossStagingWindowsSegmentsCommitsAndRollbacks(final Layout layout,
    final int segmentRows,
                                                                                  final Durability durability,
                                                                                  final boolean staging,
                                                                                  final boolean thread) {
        final Schema schema = TestRows.allTypes(layout, segmentRows);
        final SplittableRandom random = new SplittableRandom(segmentRows * 7L + layout.ordinal());
        final long rows = durability == Durability.SYNC ? 250 : 1_000;
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w =
                TestRows.stagedWriter(table, durability, STAGE_ROWS, staging, thread); TableReader reader = table
                .reader()) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                while (w.committedRows() < rows) {
                    final long from = w.pendingRows();
                    final int n = 1 + random.nextInt(3 * STAGE_ROWS);
                    final boolean keep = random.nextInt(5) != 0;
                    for (long r = from; r < from + n; r++) {
                        // rolled-back rows get another row's values, so a stale byte would show
                        TestRows.write(w.append(f), keep ? r : r + 1);
                    }
                    if (keep) {
                        w.commit();
                    } else {
                        w.rollback();
                    }
                    assertThat(w.pendingRows()).isEqualTo(w.committedRows());
                    final TableSnapshot snap = reader.snapshot();
                    assertThat(snap.rowCount()).isEqualTo(w.committedRows());
                    TestRows.verifyRows(snap, Math.max(0, from - STAGE_ROWS), snap.rowCount());
                }
                TestRows.assertZonesExact(reader.snapshot());
            }
            try (TableReader reader = table.reader()) {
                final TableSnapshot snap = reader.snapshot();
                TestRows.verifyRows(snap, 0, snap.rowCount());
                TestRows.assertZonesExact(snap);
            }
        }
        try (Store store = Store.open(dir); TableReader reader = store.table(schema.name()).reader()) {
            final TableSnapshot snap = reader.snapshot();
            assertThat(snap.rowCount()).isGreaterThanOrEqualTo(rows);
            TestRows.verifyRows(snap, 0, snap.rowCount());
        }
    }

    @ParameterizedTest
    @CsvSource({"COLUMN", "ROW"})
    void shouldKeepWritesThroughAFlyweightLeftOnAnEarlierRowAfterItsWindowWasCopied(final Layout layout) {
        final Schema schema = TestRows.allTypes(layout, 64);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w =
                TestRows.stagedWriter(table, Durability.NONE, STAGE_ROWS, true, true); TableReader reader = table
                .reader()) {
                final AllTypesFlyweight appender = new AllTypesFlyweight();
                final AllTypesFlyweight early = new AllTypesFlyweight().bind(w);
                TestRows.append(w, appender, 0, 5);
                early.wrap(2);
                // the early row's window is copied into the files (and a segment boundary passed) before it is written
                TestRows.append(w, appender, 5, 100);
                assertThat(early.l()).isEqualTo(2 * 1_000_000_007L - 5);
                early.l(42);
                w.commit();
                TestRows.append(w, appender, 100, 150);
                w.commit();
                final TableSnapshot snap = reader.snapshot();
                final AllTypesFlyweight check = new AllTypesFlyweight().bind(snap).wrap(2);
                assertThat(check.l()).isEqualTo(42);
                assertThat(check.i()).isEqualTo((int) (2 * 1_000_003L));
                TestRows.verifyRows(snap, 0, 2);
                TestRows.verifyRows(snap, 3, 150);
                assertThat(early.wrap(149).l()).isEqualTo(149 * 1_000_000_007L - 5);
            }
        }
    }

    /**
     * A flyweight left on an early uncommitted row is re-pointed at every staging window (its row moved into the
     * files): its writes, made after many windows, must reach the zone maps at commit, and the writer must not re-read
     * the rows since that row from the mappings at every window (quadratic in the rows appended) but once, at the
     * commit.
     */
    @ParameterizedTest
    @CsvSource({"COLUMN,false", "ROW,false", "COLUMN,true", "ROW,true"})
    void shouldWidenZoneMapsOnceWithWritesThroughFlyweightsLeftOnEarlyRows(final Layout layout, final boolean thread) {
        final Schema schema = TestRows.allTypes(layout, 256);
        final int l = schema.indexOf("l");
        final long rows = 2_000;
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w =
                TestRows.stagedWriter(table, Durability.NONE, STAGE_ROWS, true, thread); TableReader reader = table
                .reader()) {
                final AllTypesFlyweight appender = new AllTypesFlyweight();
                final AllTypesFlyweight high = new AllTypesFlyweight().bind(w);
                final AllTypesFlyweight low = new AllTypesFlyweight().bind(w);
                TestRows.append(w, appender, 0, 5);
                high.wrap(2);
                low.wrap(1);
                TestRows.append(w, appender, 5, rows);
                assertThat(w.zoneRowsRead()).as("rows re-read from the mappings before the commit").isZero();
                high.l(BIG);
                low.l(-BIG);
                w.commit();
                assertThat(w.zoneRowsRead()).as("rows re-read from the mappings at the commit")
                    .isLessThanOrEqualTo(rows);
                final TableSnapshot snap = reader.snapshot();
                assertThat(snap.segment(0).zoneMax(0, l)).isEqualTo(BIG);
                assertThat(snap.segment(0).zoneMin(0, l)).isEqualTo(-BIG);
                assertThat(snap.segment(0).zoneMax(-1, l)).isEqualTo(BIG);
                assertThat(snap.segment(0).zoneMin(-1, l)).isEqualTo(-BIG);
                TestRows.assertZonesExact(snap);
            }
        }
    }

    /**
     * appendRow() then wrap(row): the flyweight is re-pointed at the last row of each copied window, so about one block
     * per window (blocks of 4 rows here) is re-read from the mappings at the commit, not the whole transaction.
     */
    @ParameterizedTest
    @CsvSource({"COLUMN", "ROW"})
    void shouldReReadAboutOneBlockPerWindowForAppendRowThenWrap(final Layout layout) {
        final Schema schema = TestRows.allTypes(layout, 256);
        final long rows = 2_000;
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w =
                TestRows.stagedWriter(table, Durability.NONE, STAGE_ROWS, true, false); TableReader reader = table
                .reader()) {
                final AllTypesFlyweight f = new AllTypesFlyweight().bind(w);
                for (long r = 0; r < rows; r++) {
                    TestRows.write(f.wrap(w.appendRow()), r);
                }
                w.commit();
                // the block of the row the flyweight is left on at each window's copy is recomputed at commit (it may
                // overwrite that row: ZoneMapOverwriteTest), once per block
                assertThat(w.zoneRowsRead()).isLessThanOrEqualTo((rows / STAGE_ROWS + 1) * schema.blockRows());
                TestRows.verifyRows(reader.snapshot(), 0, rows);
                TestRows.assertZonesExact(reader.snapshot());
            }
        }
    }

    /**
     * A flyweight left on a committed row can step (next()) into uncommitted rows already copied into the files (or, on
     * the mapped path, in blocks whose zone maps were already widened) without asking the writer for addresses again:
     * what it writes there must reach the zone maps.
     */
    @ParameterizedTest
    @CsvSource({"COLUMN,staged", "ROW,staged", "COLUMN,staged-thread", "ROW,staged-thread", "COLUMN,staging-off",
        "ROW,staging-off",
        "COLUMN,columnAddress", "ROW,reserve"})
    void shouldWidenZoneMapsWithWritesOfAFlyweightThatStepsFromACommittedRowIntoCopiedRows(final Layout layout,
    final String how) {
        final Schema schema = TestRows.allTypes(layout, 64);
        final int l = schema.indexOf("l");
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            final AllTypesFlyweight appender = new AllTypesFlyweight();
            try (TableWriter w = TestRows.appendingWriter(table, how, appender); TableReader reader = table.reader()) {
                TestRows.append(w, appender, w.pendingRows(), 10);
                w.commit();
                final AllTypesFlyweight stepper = new AllTypesFlyweight().bind(w).wrap(9);
                TestRows.append(w, appender, 10, 45);
                assertThat(stepper.next()).isTrue();
                assertThat(stepper.row()).isEqualTo(10);
                stepper.l(BIG);
                w.commit();
                final TableSnapshot snap = reader.snapshot();
                assertThat(new AllTypesFlyweight().bind(snap).wrap(10).l()).isEqualTo(BIG);
                assertThat(snap.segment(0).zoneMax(10 / schema.blockRows(), l)).isEqualTo(BIG);
                assertThat(snap.segment(0).zoneMax(-1, l)).isEqualTo(BIG);
                TestRows.assertZonesExact(snap);
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"COLUMN", "ROW"})
    void shouldMixStagedAppendsWithWritesAtMappedAddresses(final Layout layout) {
        final Schema schema = TestRows.allTypes(layout, 32);
        final int l = schema.indexOf("l");
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w =
                TestRows.stagedWriter(table, Durability.NONE, STAGE_ROWS, true, true); TableReader reader = table
                .reader()) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                // 12 rows: the next one starts a zone-map block (4 rows), so its l is the block's minimum and must
                // count
                TestRows.append(w, f, 0, 12);
                // the mapped address of a row appended through the staging area: its bytes must be there, and stores
                // there must stay (the writer appends through the mappings from now on)
                final long row = w.appendRow();
                final long at = w.columnAddress((int) (row >>> schema.segmentShift()), l)
                    + (row & (schema.segmentRows() - 1)) * w.columnStride(l);
                assertThat(NativeMemory.getLong(at)).isEqualTo(Long.MIN_VALUE);
                f.wrap(row);
                TestRows.write(f, row);
                assertThat(NativeMemory.getLong(at))
                    .isEqualTo(TestRows.nullRow(row) ? Long.MIN_VALUE : row * 1_000_000_007L - 5);
                TestRows.append(w, f, row + 1, 80);
                w.commit();
                TestRows.verifyRows(reader.snapshot(), 0, 80);
                TestRows.assertZonesExact(reader.snapshot());
            }
        }
    }

    @Test
    void shouldReopenAtTheLastCommitAndContinueMidWindowAfterClose() {
        final Schema schema = TestRows.allTypes(Layout.COLUMN, 64);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = TestRows.stagedWriter(table, Durability.NONE, STAGE_ROWS, true, true)) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                TestRows.append(w, f, 0, 21);
                w.commit();
                for (long r = 21; r < 60; r++) {
                    TestRows.write(w.append(f), r + 7);
                }
                // close discards the 39 uncommitted rows, some of them already copied into the files
            }
            try (TableWriter w =
                TestRows.stagedWriter(table, Durability.NONE, STAGE_ROWS, true, true); TableReader reader = table
                .reader()) {
                assertThat(w.committedRows()).isEqualTo(21);
                assertThat(reader.snapshot().rowCount()).isEqualTo(21);
                final AllTypesFlyweight f = new AllTypesFlyweight();
                TestRows.append(w, f, 21, 90);
                w.commit();
                TestRows.verifyRows(reader.snapshot(), 0, 90);
                TestRows.assertZonesExact(reader.snapshot());
            }
        }
    }

    @Test
    void shouldRefuseWritesThroughAFlyweightOfAClosedWriter() {
        final Schema schema = TestRows.allTypes(Layout.COLUMN, 64);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            final AllTypesFlyweight f = new AllTypesFlyweight();
            try (TableWriter w = TestRows.stagedWriter(table, Durability.NONE, STAGE_ROWS, true, true)) {
                TestRows.write(w.append(f), 0);
            }
            // its staging area is freed: the flyweight must neither write nor read there
            assertThatThrownBy(() -> f.l(1)).isInstanceOf(StoreException.class);
            assertThat(f.l()).isZero();
            assertThatThrownBy(() -> f.wrap(0)).isInstanceOf(StoreException.class);
        }
    }

    @Test
    void shouldShowConcurrentReadersOnlyCompleteCommittedRows() throws Exception {
        final Schema schema = TestRows.allTypes(Layout.COLUMN, 64);
        final ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            final AtomicBoolean done = new AtomicBoolean();
            final AtomicLong committed = new AtomicLong();
            final Future<Long> read = pool.submit(() -> {
                long snapshots = 0;
                try (TableReader reader = table.reader()) {
                    long verified = 0;
                    while (!done.get()) {
                        final TableSnapshot snap = reader.snapshot();
                        assertThat(snap.rowCount()).isGreaterThanOrEqualTo(verified)
                            .isLessThanOrEqualTo(committed.get());
                        TestRows.verifyRows(snap, Math.max(0, verified - STAGE_ROWS), snap.rowCount());
                        verified = snap.rowCount();
                        snapshots++;
                    }
                }
                return snapshots;
            });
            try (TableWriter w = TestRows.stagedWriter(table, Durability.NONE, STAGE_ROWS, true, true)) {
                final SplittableRandom random = new SplittableRandom(5);
                final AllTypesFlyweight f = new AllTypesFlyweight();
                while (w.committedRows() < 4_000) {
                    final long from = w.pendingRows();
                    final int n = 1 + random.nextInt(3 * STAGE_ROWS);
                    final boolean keep = random.nextInt(6) != 0;
                    for (long r = from; r < from + n; r++) {
                        TestRows.write(w.append(f), keep ? r : r + 3);
                    }
                    if (keep) {
                        committed.set(from + n);
                        w.commit();
                    } else {
                        w.rollback();
                    }
                }
            } finally {
                done.set(true);
            }
            assertThat(read.get(120, TimeUnit.SECONDS)).isPositive();
        } finally {
            pool.shutdownNow();
        }
    }
}
