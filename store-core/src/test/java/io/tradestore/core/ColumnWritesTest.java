package io.tradestore.core;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.Segment;

import static io.tradestore.core.TestRows.BIG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Bulk appends by write(2) ({@link TableWriter#columnWrites}, {@link TableWriter#writeColumn}): rows copied column by
 * column from a reference table in runs of odd sizes, across pre-fault chunks and segments, must read back exactly,
 * with exact zone maps, through the writer's own mappings and after reopening; a rolled-back tail written this way
 * must not survive; writes outside the reserved rows are refused; the ROW layout keeps stores into the mapping.
 */
@ExtendWith(TestRows.NoLeaks.class)
class ColumnWritesTest {
    /** Four pre-fault chunks per segment, so the writer's background preparation is on (and must be stopped). */
    private static final int SEGMENT_ROWS = 4 * Segment.PREFAULT_CHUNK_ROWS;

    @TempDir
    Path dir;

    private static Schema schema(final String name, final Layout layout, final int segmentRows) {
        // zone-map blocks smaller than pre-fault chunks
        return TestRows.ALL_TYPES.with(name, layout, segmentRows, Math.min(1 << 14, segmentRows));
    }

    @ParameterizedTest
    @ValueSource(ints = {SEGMENT_ROWS, 4096})
    void shouldReadBackRowsWrittenColumnByColumnAcrossChunksAndSegments(final int segmentRows) {
        final long committed = segmentRows + 12_345L;
        final long end = 2L * segmentRows + Segment.PREFAULT_CHUNK_ROWS / 3 + 77;
        copyInto(segmentRows, end, (src, w) -> {
            assertThat(w.columnWrites(true)).isTrue();
            TestRows.copyColumns(src, w, 0, committed, 1_009);
            w.commit();
            // a tail written the same way from the wrong rows, then rolled back: re-written rows must replace it
            TestRows.copyColumns(src, w, 1, end - committed + 1, 50_021);
            w.rollback();
            TestRows.copyColumns(src, w, committed, end, 65_537);
            w.commit();
            assertThat(w.columnWrites(false)).isFalse();
        });
        try (Store store = Store.open(dir); TableReader reader = store.table("copy").reader()) {
            TestRows.verifyRows(reader.snapshot(), 0, end);
        }
    }

    @Test
    void shouldKeepColumnWrittenRowsThatFollowRowAppendsInTheSameSegment() {
        // row appends first: the background thread null-fills chunks ahead of them, which the column writes must wait
        // for
        final long appended = Segment.PREFAULT_CHUNK_ROWS / 2 + 3;
        copyInto(SEGMENT_ROWS, SEGMENT_ROWS + 1_000L, (src, w) -> {
            final AllTypesFlyweight f = new AllTypesFlyweight();
            TestRows.append(w, f, 0, appended);
            assertThat(w.columnWrites(true)).isTrue();
            TestRows.copyColumns(src, w, appended, SEGMENT_ROWS + 1_000L, 30_011);
            w.commit();
        });
    }

    /**
     * A writer that turns column writes on for each batch and off after it (the server's ingest, per request) writes
     * every row with write(2): the background thread must not fault in the segments it creates between batches (each
     * madvise holds the process's mmap lock, which a query mapping a new segment waits for; figures in the body of
     * commit 0d4f551), nor the open one.
     */
    @Test
    void shouldNotFaultSegmentsInForAWriterThatTurnsColumnWritesOnPerBatch() {
        final long end = 3L * SEGMENT_ROWS + 5_000;
        copyInto(SEGMENT_ROWS, end, (src, w) -> {
            for (long row = 0; row < end; row += 10_000) {
                assertThat(w.columnWrites(true)).isTrue();
                TestRows.copyColumns(src, w, row, Math.min(end, row + 10_000), 10_000);
                w.commit();
                w.columnWrites(false);
            }
            // what the background thread would fault in between batches, given the time
            final long deadline = System.nanoTime() + 500_000_000L;
            while (w.populatedBytes() == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(w.populatedBytes()).isZero();
        });
    }

    /**
     * Fills table "source" with rows {@code [0, end)}, creates table "copy" with the source's dictionaries, lets
     * {@code body} write and commit it, then checks every row and the zone maps of the copy.
     */
    private void copyInto(final int segmentRows, final long end, final java.util.function.BiConsumer<TableSnapshot,
        TableWriter> body) {
        TestRows.fill(dir, schema("source", Layout.COLUMN, segmentRows), end);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema("copy", Layout.COLUMN, segmentRows));
            try (TableReader sourceReader = store.table("source").reader(); TableWriter w = table
                .writer(); TableReader reader = table.reader()) {
                final TableSnapshot src = sourceReader.snapshot();
                TestRows.copyDictionaries(src, w);
                body.accept(src, w);
                TestRows.verifyRows(reader.snapshot(), 0, end);
                TestRows.assertZonesExact(reader.snapshot());
            }
        }
    }

    /**
     * A reserve under column writes moves the zone watermark over the rows it reserves (writeColumn widens them); a
     * flyweight left on an earlier uncommitted row can step (next()) into those rows and write them after writeColumn
     * did: that value must reach the zone maps at commit, or a range filter would skip the row.
     */
    @Test
    void shouldWidenZoneMapsWithAWriteThroughAFlyweightSteppingIntoRowsReservedLater() {
        TestRows.fill(dir, schema("source", Layout.COLUMN, 4096), 40);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema("copy", Layout.COLUMN, 4096));
            final int l = table.schema().indexOf("l");
            try (TableReader sourceReader = store.table("source").reader(); TableWriter w = table
                .writer(); TableReader reader = table.reader()) {
                final TableSnapshot src = sourceReader.snapshot();
                TestRows.copyDictionaries(src, w);
                assertThat(w.columnWrites(true)).isTrue();
                TestRows.copyColumns(src, w, 0, 10, 10);
                final AllTypesFlyweight f = new AllTypesFlyweight().bind(w).wrap(5);
                TestRows.copyColumns(src, w, 10, 20, 10);
                while (f.row() < 15) {
                    assertThat(f.next()).isTrue();
                }
                f.l(BIG);
                w.commit();
                final TableSnapshot snap = reader.snapshot();
                assertThat(new AllTypesFlyweight().bind(snap).wrap(15).l()).isEqualTo(BIG);
                assertThat(snap.segment(0).zoneMax(0, l)).as("block 0 max").isEqualTo(BIG);
                assertThat(snap.segment(0).zoneMax(-1, l)).as("segment max").isEqualTo(BIG);
                TestRows.assertZonesExact(snap);
            }
        }
    }

    @Test
    void shouldRefuseWritesOutsideTheReservedRows() {
        try (Store store = Store.open(dir); TableWriter w = store.createTable(schema("t", Layout.COLUMN, 4096))
            .writer()) {
            assertThat(w.columnWrites(true)).isTrue();
            final long buffer = NativeMemory.allocate(8 * 100);
            try {
                assertThat(w.reserve(100)).isEqualTo(100);
                w.writeColumn(0, 3, 0, buffer, 100);
                assertThatThrownBy(() -> w.writeColumn(0, 3, 1, buffer, 100))
                    .isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessageContaining("pendingRows=100");
                assertThatThrownBy(() -> w.writeColumn(0, 3, -1, buffer, 1))
                    .isInstanceOf(IndexOutOfBoundsException.class);
                assertThatThrownBy(() -> w.writeColumn(1, 3, 0, buffer, 1))
                    .isInstanceOf(IndexOutOfBoundsException.class);
                w.commit();
                assertThat(w.reserve(10)).isEqualTo(10);
                // committed rows never change
                assertThatThrownBy(() -> w.writeColumn(0, 3, 99, buffer, 2))
                    .isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessageContaining("committedRows=100");
            } finally {
                NativeMemory.free(buffer, 8 * 100);
            }
        }
    }

    @Test
    void shouldKeepStoresIntoTheMappingForTheRowLayout() {
        try (Store store = Store.open(dir); TableWriter w = store.createTable(schema("t", Layout.ROW, 4096)).writer()) {
            assertThat(w.columnWrites(true)).isFalse();
            w.reserve(1);
            assertThatThrownBy(() -> w.writeColumn(0, 3, 0, 0, 1)).isInstanceOf(StoreException.class)
                .hasMessageContaining("COLUMN");
        }
    }
}
