package io.tradestore.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.SegmentDescriptor;
import io.tradestore.core.segment.ZoneMapDescriptor;

/**
 * Zone-map checksums (segments of 16 rows, blocks of 4): an entry damaged in place is found when a reader takes its
 * snapshot, and named with its file, block and segment, instead of letting scans skip rows they must read; commits,
 * rollbacks and reopens never make a sound zone map fail; format 1 zone maps (no checksums) are still read and
 * appended to.
 */
@ExtendWith(TestRows.NoLeaks.class)
class ZoneMapChecksumTest {
    private static final int SEGMENT_ROWS = 16;

    @TempDir
    Path dir;

    private static Path zone(final Path store, final int segment) {
        return SegmentDescriptor.directory(store.resolve("all_types"), segment).resolve(ZoneMapDescriptor.FILE_NAME);
    }

    /**
     * One byte flipped: in the ts entry of block 2 of full segment 1 (min or max), in that block's checksum, or in the
     * segment-wide ts entry of that full segment.
     */
    @ParameterizedTest
    @CsvSource({"COLUMN,2,0", "ROW,2,0", "COLUMN,2,8", "COLUMN,-1,3", "ROW,-1,12", "COLUMN,2,checksum"})
    void shouldNameTheFileAndTheBlockOfAZoneMapEntryDamagedInPlace(final Layout layout, final int block,
        final String where)
        throws IOException {
        final Schema schema = TestRows.allTypes(layout, SEGMENT_ROWS);
        TestRows.fill(dir, schema, 50);
        final Path zone = zone(dir, 1);
        final int columns = schema.columnCount();
        FileDamage.flip(zone, "checksum".equals(where)
            ? ZoneMapDescriptor.checksumOffset(columns, schema.blocksPerSegment(), block)
            : ZoneMapDescriptor.entryOffset(columns, block, schema.indexOf("ts")) + Integer.parseInt(where));
        try (Store store = Store.open(dir)) {
            assertThatThrownBy(() -> store.table("all_types").reader()).isInstanceOf(StoreException.class)
                .hasMessage("damaged zone map " + zone + ": "
                + (block < 0 ? "the segment-wide entries (one per column, over the whole segment)"
                    : "the entries of block 2 (rows 8-11 of the segment)")
                    + " of segment 1 fail their checksum; restore the table from a"
                    + " copy, or reload it");
        }
    }

    /**
     * The segment-wide entries of the segment still filling change with every append, so they carry no checksum a
     * reader could verify; they must cover the blocks that do, which a damaged one that would skip their rows does not.
     */
    @Test
    void shouldFindASegmentWideEntryOfTheOpenSegmentThatNoLongerCoversItsFullBlocks() throws IOException {
        final Schema schema = TestRows.allTypes(Layout.COLUMN, SEGMENT_ROWS);
        TestRows.fill(dir, schema, 16 + 6); // segment 1: block 0 full, block 1 partly
        final Path zone = zone(dir, 1);
        // the max of ts over segment 1 lowered below its rows: a time-range scan would skip the segment
        FileDamage.putLong(zone, ZoneMapDescriptor.entryOffset(schema.columnCount(), -1, schema.indexOf("ts")) + 8, 0);
        try (Store store = Store.open(dir)) {
            assertThatThrownBy(() -> store.table("all_types").reader()).isInstanceOf(StoreException.class)
                .hasMessageStartingWith("damaged zone map " + zone
                + ": the segment-wide entry of column 'ts' of segment 1 does not cover the"
                    + " entries of its blocks 0-0");
        }
    }

    /** Appends, commits, rollbacks and reopens in random order, a snapshot after each: a sound zone map never fails. */
    @ParameterizedTest
    @CsvSource({"COLUMN,staged", "ROW,staged-thread", "COLUMN,staging-off", "ROW,reserve"})
    void shouldNeverFailASoundZoneMapWhateverTheWriterDoes(final Layout layout, final String how) {
        final Schema schema = TestRows.allTypes(layout, SEGMENT_ROWS);
        final SplittableRandom random = new SplittableRandom(layout.ordinal() * 31L + how.length());
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            AllTypesFlyweight f = new AllTypesFlyweight();
            TableWriter w = TestRows.appendingWriter(table, how, f);
            try (TableReader reader = table.reader()) {
                while (w.committedRows() < 120) {
                    final int op = random.nextInt(10);
                    if (op < 6) {
                        TestRows.append(w, f, w.pendingRows(), w.pendingRows() + random.nextInt(1, 7));
                    } else if (op < 8) {
                        w.commit();
                    } else if (op < 9) {
                        w.rollback();
                    } else {
                        w.close();
                        f = new AllTypesFlyweight();
                        w = TestRows.stagedWriter(table, Durability.NONE, 8, !"staging-off".equals(how),
                            "staged-thread".equals(how));
                    }
                    // a second reader verifies every block from scratch; the first one only those the last commit
                    // filled
                    try (TableReader fresh = table.reader()) {
                        assertThat(fresh.snapshot().rowCount()).isEqualTo(reader.snapshot().rowCount())
                            .isEqualTo(w.committedRows());
                    }
                }
                TestRows.verifyRows(reader.snapshot(), 0, w.committedRows());
                TestRows.assertZonesExact(reader.snapshot());
            } finally {
                w.close();
            }
        }
    }

    /**
     * A store written before zone maps had checksums (format 1: no checksums, a shorter file) still reads and grows.
     */
    @Test
    void shouldReadAndAppendToFormat1ZoneMaps() throws IOException {
        final Schema schema = TestRows.allTypes(Layout.COLUMN, SEGMENT_ROWS);
        TestRows.fill(dir, schema, 22);
        for (int seg = 0; seg < 2; seg++) {
            FileDamage.putInt(zone(dir, seg), ZoneMapDescriptor.FORMAT_VERSION_OFFSET, 1);
            FileDamage.truncate(zone(dir, seg),
                ZoneMapDescriptor.fileLength(1, schema.columnCount(), schema.blocksPerSegment()));
        }
        try (Store store = Store.open(dir)) {
            final Table table = store.table("all_types");
            try (TableReader reader = table.reader()) {
                TestRows.verifyRows(reader.snapshot(), 0, 22);
                TestRows.assertZonesExact(reader.snapshot());
            }
            try (TableWriter w = table.writer()) {
                TestRows.append(w, new AllTypesFlyweight(), 22, 40);
                w.commit();
            }
            try (TableReader reader = table.reader()) {
                TestRows.verifyRows(reader.snapshot(), 0, 40);
                TestRows.assertZonesExact(reader.snapshot());
            }
        }
        assertThat(FileDamage.getLong(zone(dir, 1), ZoneMapDescriptor.FORMAT_VERSION_OFFSET) & 0xFFFF_FFFFL)
            .as("segment 1 stays format 1")
            .isEqualTo(1);
        assertThat(FileDamage.getLong(zone(dir, 2), ZoneMapDescriptor.FORMAT_VERSION_OFFSET) & 0xFFFF_FFFFL)
            .as("a new segment is format 2")
            .isEqualTo(ZoneMapDescriptor.FORMAT_VERSION);
    }
}
