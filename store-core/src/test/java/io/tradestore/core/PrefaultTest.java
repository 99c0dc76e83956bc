package io.tradestore.core;

import java.nio.file.Path;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.Segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Large segments are prepared in chunks by the writer's background thread (faulted in and, for row-by-row writers,
 * null-filled) while the writer appends, and the writer takes the chunks it reaches first itself. Whoever prepared a
 * chunk, every appended row must read back exactly (null columns included), a rollback must not let stale bytes through
 * as nulls, a full disk must surface as a clear error, and closing mid-preparation must leave nothing mapped.
 */
@ExtendWith(TestRows.NoLeaks.class)
class PrefaultTest {
    /** Four chunks per segment, zone-map blocks smaller than chunks. */
    private static final int SEGMENT_ROWS = 4 * Segment.PREFAULT_CHUNK_ROWS;
    private static final int BLOCK_ROWS = 1 << 14;

    @TempDir
    Path dir;

    private static Schema schema(final Layout layout) {
        return TestRows.ALL_TYPES.with("all_types", layout, SEGMENT_ROWS, BLOCK_ROWS);
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldReadBackEveryRowAndEveryNullWhileChunksArePreparedInTheBackground(final Layout layout) {
        final Schema schema = schema(layout);
        final int segmentRows = schema.segmentRows();
        final long committed = segmentRows + Segment.PREFAULT_CHUNK_ROWS + 12_345;
        final long end = 2L * segmentRows + 3 * Segment.PREFAULT_CHUNK_ROWS + 77;
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = table.writer(); TableReader reader = table.reader()) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                TestRows.append(w, f, 0, committed);
                w.commit();
                // Rows past the commit with wrong values (another row's), across chunk and segment boundaries, then
                // rolled back: re-appended rows in chunks the writer entered before must be nulled again, not trusted
                // as prepared by the background.
                for (long r = committed; r < end; r++) {
                    writeEverything(w.append(f), r + 1);
                }
                w.rollback();
                TestRows.append(w, f, committed, end);
                w.commit();
                TestRows.verifyRows(reader.snapshot(), 0, end);
                TestRows.assertZonesExact(reader.snapshot());
            }
        }
        try (Store store = Store.open(dir); TableReader reader = store.table("all_types").reader()) {
            TestRows.verifyRows(reader.snapshot(), 0, end);
        }
    }

    /** Writes every column (no nulls), so that a stale row cannot pass for a null row by accident. */
    private static void writeEverything(final AllTypesFlyweight f, final long row) {
        f.b((byte) 1).s((short) 2).i(3).l(4).d(5.0).px(6).ts(7 + row).sym("stale").c('Z').sym2("stale");
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldKeepBulkRowsIntactWhenReserveAndAppendRowMix(final Layout layout) {
        final Schema schema = schema(layout);
        final long end = schema.segmentRows() + 2L * Segment.PREFAULT_CHUNK_ROWS + 9;
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = table.writer()) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                long r = 0;
                while (r < end) {
                    // alternate bulk reservations (written whole through the flyweight) and row appends
                    final long first = w.pendingRows();
                    final int n = w.reserve((int) Math.min(50_000, end - r));
                    for (long i = first; i < first + n; i++) {
                        f.bind(w).wrap(i);
                        writeNullsThenRow(f, i);
                    }
                    r += n;
                    for (int k = 0; k < 30_001 && r < end; k++, r++) {
                        TestRows.write(w.append(f), r);
                    }
                }
                w.commit();
            }
            try (TableReader reader = table.reader()) {
                TestRows.verifyRows(reader.snapshot(), 0, end);
            }
        }
    }

    /** Reserved rows hold unspecified bytes: a bulk writer writes every column, nulls included. */
    private static void writeNullsThenRow(final AllTypesFlyweight f, final long row) {
        f.b(Byte.MIN_VALUE).s(Short.MIN_VALUE).i(Integer.MIN_VALUE).l(Long.MIN_VALUE).d(Double.NaN).px(Long.MIN_VALUE)
            .sym(-1).c((char) 0).sym2(-1);
        TestRows.write(f, row);
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldStopPreparingAndDeleteTheUnusedSegmentWhenClosedEarly(final Layout layout) {
        final Schema schema = schema(layout);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            for (int round = 0; round < 3; round++) {
                try (TableWriter w = table.writer()) {
                    final AllTypesFlyweight f = new AllTypesFlyweight();
                    TestRows.append(w, f, w.pendingRows(), w.pendingRows() + 10);
                    w.commit();
                }
                // the segment created in the background for the next append holds no rows: closing deleted it
                assertThat(dir.resolve("all_types").resolve("seg-000001")).doesNotExist();
            }
            try (TableReader reader = table.reader()) {
                TestRows.verifyRows(reader.snapshot(), 0, 30);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldReportAFullDiskClearlyWhileChunksArePreparedInTheBackground(final Layout layout) {
        final FaultTest.FullDisk disk = new FaultTest.FullDisk();
        final Schema schema = schema(layout);
        final int filesPerSegment = (layout == Layout.ROW ? 1 : schema.columnCount()) + 1;
        final int segmentRows = schema.segmentRows();
        try (Store store = Store.open(dir, disk)) {
            final Table table = store.createTable(schema);
            // segment 0 is created when the writer opens, segment 1 in the background at the first append: fail it
            disk.failFrom(filesPerSegment + 1);
            try (TableWriter w = table.writer()) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                TestRows.append(w, f, 0, segmentRows);
                w.commit();
                assertThatThrownBy(() -> w.append(f)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("No space left on device").hasMessageContaining("seg-000001")
                    .hasMessageContaining("free disk space");
                assertThat(w.committedRows()).isEqualTo(segmentRows);
                disk.clear();
                TestRows.append(w, f, w.pendingRows(), segmentRows + Segment.PREFAULT_CHUNK_ROWS + 5);
                w.commit();
            }
            try (TableReader reader = table.reader()) {
                TestRows.verifyRows(reader.snapshot(), 0, segmentRows + Segment.PREFAULT_CHUNK_ROWS + 5);
            }
        }
    }
}
