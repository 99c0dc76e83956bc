package io.tradestore.core;

import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.Segment;

import static io.tradestore.core.TestRows.BIG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The staged append's failure paths and zone maps: a write(2) that fails in the stage
 * flusher must never let a later commit publish the rows it did not write, a rollback after it must still leave the
 * writer at its last commit, and writes through a flyweight left in a window that was copied must reach the zone maps.
 */
@ExtendWith(TestRows.NoLeaks.class)
class StagingFailureTest {
    private static final int STAGE_ROWS = 8;

    @TempDir
    Path dir;

    private static Object field(final Object o, final String name) throws ReflectiveOperationException {
        final Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    private static void setField(final Object o, final String name,
        final Object value) throws ReflectiveOperationException {
        final Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        f.set(o, value);
    }

    /** The data file of segment 0 that holds column {@code column} (the only file in the ROW layout). */
    private static MappedFile dataFile(final TableWriter w, final int column) throws ReflectiveOperationException {
        @SuppressWarnings("unchecked")
        final List<Segment> segments = (List<Segment>) field(w.segments, "segments");
        final MappedFile[] files = (MappedFile[]) field(segments.get(0), "files");
        return files[files.length == 1 ? 0 : column];
    }

    /** Waits (bounded) until the writer's stage flusher has tried every file of the window in flight. */
    private static void awaitStageFlusher(final TableWriter w) throws Exception {
        final Object flusher = field(w.windows, "flusher");
        assertThat(flusher).as("the window was handed to the stage flusher").isNotNull();
        final int files = (Integer) field(flusher, "files");
        final java.util.concurrent.atomic.AtomicInteger done =
            (java.util.concurrent.atomic.AtomicInteger) field(flusher, "done");
        final long deadline = System.nanoTime() + 30_000_000_000L;
        while (done.get() < files) {
            assertThat(System.nanoTime()).as("stage flusher done in 30 s").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    /**
     * A copy of a full window by the stage flusher fails (write(2) fails, as on a full disk): the failure must be
     * reported, and the rows of that window must never be published by a later commit (here after the disk has room
     * again), whatever the writer does next; a rollback must bring it back to its last commit.
     */
    @ParameterizedTest
    @CsvSource({"COLUMN,COMMIT_AGAIN", "ROW,COMMIT_AGAIN", "COLUMN,ROLLBACK_AFTER_COMMIT", "ROW,ROLLBACK_AFTER_COMMIT",
        "COLUMN,ROLLBACK", "ROW,ROLLBACK"})
    void shouldNeverPublishRowsWhoseCopyByTheStageFlusherFailed(final Layout layout,
    final String then) throws Exception {
        final Schema schema = TestRows.allTypes(layout, 64);
        final int l = schema.indexOf("l");
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w =
                TestRows.stagedWriter(table, Durability.NONE, STAGE_ROWS, true, true); TableReader reader = table
                .reader()) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                TestRows.append(w, f, 0, 4);
                w.commit();
                TestRows.append(w, f, 4, 8);
                // the disk fails: every write(2) into the file of column l fails until it is repaired
                final MappedFile broken = dataFile(w, l);
                final Object fd = field(broken, "writeFd");
                setField(broken, "writeFd", 1 << 20);
                setField(broken, "writePosition", -1L);
                // row 8 starts a window: rows [4, 8) are handed to the stage flusher, whose copy fails
                TestRows.append(w, f, 8, 11);
                awaitStageFlusher(w);
                if (!"ROLLBACK".equals(then)) {
                    assertThatThrownBy(w::commit).isInstanceOf(StoreException.class);
                    assertThat(reader.snapshot().rowCount()).isEqualTo(4);
                }
                // the disk has room again
                setField(broken, "writeFd", fd);
                setField(broken, "writePosition", -1L);
                if (!"COMMIT_AGAIN".equals(then)) {
                    // the rows are discarded anyway: the failure of their copy is no reason to fail the rollback

                    w.rollback();
                    assertThat(w.pendingRows()).isEqualTo(4);
                } else {
                    // rows 4..7 never reached the file of column l: they must not be published
                    assertThatThrownBy(w::commit).isInstanceOf(StoreException.class).hasMessageContaining("rollback");
                    assertThat(reader.snapshot().rowCount()).isEqualTo(4);
                    w.rollback();
                }
                assertThat(w.committedRows()).isEqualTo(4);
                TestRows.append(w, f, w.pendingRows(), 40);
                w.commit();
                TestRows.verifyRows(reader.snapshot(), 0, 40);
            }
        }
    }

    /**
     * A flyweight left on a row whose window the writer copied into the files writes that row through the mapping
     * afterwards: the zone maps must include the new value, as they do without the staging area (where a block's zone
     * map is computed from the data when the block ends or at commit).
     */
    @ParameterizedTest
    @CsvSource({"COLUMN,true,false", "ROW,true,false", "COLUMN,true,true", "ROW,true,true", "COLUMN,false,false",
        "ROW,false,false"})
    void shouldWidenZoneMapsWithWritesThroughAFlyweightLeftInACopiedWindow(final Layout layout, final boolean staging,
    final boolean thread) {
        // one zone-map block per segment, so that the block of the early row is still open at commit
        final Schema schema = TestRows.ALL_TYPES.with("all_types", layout, 64, 64);
        final int l = schema.indexOf("l");
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w =
                TestRows.stagedWriter(table, Durability.NONE, STAGE_ROWS, staging, thread); TableReader reader = table
                .reader()) {
                final AllTypesFlyweight appender = new AllTypesFlyweight();
                final AllTypesFlyweight early = new AllTypesFlyweight().bind(w);
                // with the stage thread, the early row's window is handed over before the flyweight moves there
                final long before = thread ? 9 : 5;
                TestRows.append(w, appender, 0, before);
                early.wrap(2);
                TestRows.append(w, appender, before, 5);
                for (long r = Math.max(5, before); r < 20; r++) {
                    TestRows.write(w.append(appender), r);
                }
                early.l(BIG);
                w.commit();
                final TableSnapshot snap = reader.snapshot();
                assertThat(new AllTypesFlyweight().bind(snap).wrap(2).l()).isEqualTo(BIG);
                assertThat(snap.segment(0).zoneMax(0, l)).isEqualTo(BIG);
                assertThat(snap.segment(0).zoneMax(-1, l)).isEqualTo(BIG);
            }
        }
    }
    /**
     * Property: random appends, commits and rollbacks, with a second flyweight that moves to random uncommitted rows
     * (staged, in flight or already copied) and overwrites their {@code l} later: every committed value must be read
     * back, and every block's and segment's zone map of {@code l} must contain every committed value.
     */
    @ParameterizedTest
    @CsvSource({"COLUMN,true,1", "ROW,true,2", "COLUMN,false,3", "ROW,false,4"})
    void shouldKeepZoneMapsAroundEveryValueWrittenThroughAFlyweightOnAnUncommittedRow(final Layout layout,
        final boolean thread,
                                                                                      final long seed) {
        final Schema schema = TestRows.ALL_TYPES.with("all_types", layout, 64, 16);
        final int l = schema.indexOf("l");
        final java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        final int rows = 1_500;
        final long[] expected = new long[rows + 64];
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w =
                TestRows.stagedWriter(table, Durability.NONE, STAGE_ROWS, true, thread); TableReader reader = table
                .reader()) {
                final AllTypesFlyweight appender = new AllTypesFlyweight();
                final AllTypesFlyweight other = new AllTypesFlyweight().bind(w);
                while (w.committedRows() < rows) {
                    final long from = w.pendingRows();
                    final int n = 1 + random.nextInt(40);
                    final boolean keep = random.nextInt(5) != 0;
                    for (long r = from; r < from + n; r++) {
                        TestRows.write(w.append(appender), r);
                        expected[(int) r] = TestRows.nullRow(r) ? Long.MIN_VALUE : r * 1_000_000_007L - 5;
                        if (random.nextInt(6) == 0) {
                            // write the row the other flyweight was left on (maybe copied since), then move it
                            if (other.row() >= w.committedRows() && other.row() < w.pendingRows()) {
                                final long v = random.nextLong(-4_000_000_000_000_000_000L, 4_000_000_000_000_000_000L);
                                other.l(v);
                                expected[(int) other.row()] = v;
                            }
                            other.wrap(w.committedRows() + random.nextLong(w.pendingRows() - w.committedRows()));
                        }
                    }
                    if (keep) {
                        w.commit();
                    } else {
                        w.rollback();
                    }
                }
                final TableSnapshot snap = reader.snapshot();
                final AllTypesFlyweight check = new AllTypesFlyweight().bind(snap);
                for (int s = 0; s < snap.segmentCount(); s++) {
                    final long segStart = (long) s << schema.segmentShift();
                    for (int b = -1; b * schema.blockRows() < snap.segmentRowCount(s); b++) {
                        final long bFrom = segStart + (b < 0 ? 0 : (long) b * schema.blockRows());
                        final long bTo = b < 0 ? segStart + snap
                            .segmentRowCount(s) : Math.min(segStart + snap.segmentRowCount(s),
                            bFrom + schema.blockRows());
                        for (long r = bFrom; r < bTo; r++) {
                            assertThat(check.wrap(r).l()).as("l row=%d", r).isEqualTo(expected[(int) r]);
                            if (expected[(int) r] != Long.MIN_VALUE) {
                                assertThat(snap.segment(s).zoneMin(b, l)).as("l min row=%d block=%d", r, b)
                                    .isLessThanOrEqualTo(expected[(int) r]);
                                assertThat(snap.segment(s).zoneMax(b, l)).as("l max row=%d block=%d", r, b)
                                    .isGreaterThanOrEqualTo(expected[(int) r]);
                            }
                        }
                    }
                }
            }
        }
    }
    /** A bad segment or column given to columnAddress is refused before it switches the writer off its staging area. */
    @ParameterizedTest
    @CsvSource({"1,0", "-1,0", "0,99", "0,-1"})
    void shouldRefuseABadColumnAddressWithoutLeavingTheStagingArea(final int segment,
        final int column) throws Exception {
        final Schema schema = TestRows.allTypes(Layout.COLUMN, 64);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = TestRows.stagedWriter(table, Durability.NONE, STAGE_ROWS, true, false)) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                TestRows.write(w.append(f), 0);
                assertThatThrownBy(() -> w.columnAddress(segment, column)).isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessageContaining("=");
                assertThat((Boolean) field(w, "staging")).isTrue();
            }
        }
    }
}
