package io.tradestore.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.SegmentDescriptor;
import io.tradestore.core.segment.ZoneMapDescriptor;

/**
 * TableCheck (blocks of 4 rows, segments of 16): a sound table passes every check; a damaged value or zone map is named
 * with its segment, block, rows and file.
 */
@ExtendWith(TestRows.NoLeaks.class)
class TableCheckTest {
    private static final int ROWS = 50;
    private static final int SEGMENT_ROWS = 16;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldFindNothingWrongInASoundTableAndCheckEveryValue(final Layout layout) {
        final Schema schema = TestRows.allTypes(layout, SEGMENT_ROWS);
        TestRows.fill(dir, schema, ROWS);
        try (Store store = Store.open(dir); TableReader reader = store.table("all_types").reader()) {
            final TableSnapshot snap = reader.snapshot();
            final TableCheck check = new TableCheck("all_types", 10).all(snap);
            assertThat(check.problems()).isEmpty();
            long dictionaries = 0;
            for (final Column c : schema.columns()) {
                dictionaries += c.type() == ColumnType.SYMBOL ? snap.dictionarySize(c.index()) : 0;
            }
            assertThat(check.valuesChecked()).isEqualTo((long) ROWS * schema.columnCount() + dictionaries);
        }
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldNameTheSegmentBlockRowsAndFileOfACodeOutsideItsDictionary(final Layout layout) throws IOException {
        final Schema schema = TestRows.allTypes(layout, SEGMENT_ROWS);
        TestRows.fill(dir, schema, ROWS);
        final Column sym = schema.require("sym");
        final Path file = SegmentDescriptor.directory(dir.resolve("all_types"), 1)
            .resolve(SegmentDescriptor.fileName(schema, sym));
        // row 9 of segment 1 (block 2): a code far past the dictionary
        FileDamage.putInt(file, 9L * SegmentDescriptor.stride(schema, sym) + SegmentDescriptor.offset(schema, sym),
            1 << 20);
        try (Store store = Store.open(dir); TableReader reader = store.table("all_types").reader()) {
            final TableSnapshot snap = reader.snapshot();
            final TableCheck check = new TableCheck("all_types", 10);
            check.segment(snap, 0, sym);
            assertThat(check.problems()).as("segment 0 is sound").isEmpty();
            check.segment(snap, 1, sym);
            assertThat(check.problems()).isNotEmpty();
            assertThat(check.problems().get(0))
                .startsWith("all_types: segment 1 block 2 column 'sym' (" + file + ", rows 8-11 of the segment)")
                .contains("codes [")
                .contains(", 1048576] fall outside the committed dictionary of " + snap.dictionarySize(sym.index()));
            // the zone maps were written from the sound value: they no longer cover the data either
            assertThat(check.problems()).anyMatch(p -> p.contains("block 2") && p.contains("does not cover the data"));
        }
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldReportAZoneMapThatDoesNotCoverItsDataAndStopAtTheLimit(final Layout layout) throws IOException {
        final Schema schema = TestRows.allTypes(layout, SEGMENT_ROWS);
        TestRows.fill(dir, schema, ROWS);
        final Column l = schema.require("l");
        final Path zone = SegmentDescriptor.directory(dir.resolve("all_types"), 2).resolve(ZoneMapDescriptor.FILE_NAME);
        for (int block = 0; block < 3; block++) {
            // every block's max below every value of the column
            FileDamage.putLong(zone, ZoneMapDescriptor.entryOffset(schema.columnCount(), block, l.index()) + 8,
                Long.MIN_VALUE + 1);
        }
        // written so by a writer, not damaged in place: the checksums pass, the comparison with the data must find it
        FileDamage.resealZoneMap(zone);
        try (Store store = Store.open(dir); TableReader reader = store.table("all_types").reader()) {
            final TableSnapshot snap = reader.snapshot();
            final TableCheck all = new TableCheck("all_types", 100).all(snap);
            assertThat(all.problems()).hasSize(3)
                .allMatch(p -> p.startsWith("all_types: segment 2 block ") && p.contains("column 'l'")
                && p.contains("does not cover the data"));
            final TableCheck two = new TableCheck("all_types", 2).all(snap);
            assertThat(two.problems()).hasSize(2);
            assertThat(two.full()).isTrue();
            assertThat(two.valuesChecked()).isLessThan(all.valuesChecked());
        }
    }

    /**
     * With room for one problem (what the query engine asks on a failure), a bad code is reported before other damage
     * found earlier in the table.
     */
    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldReportABadCodeFirst(final Layout layout) throws IOException {
        final Schema schema = TestRows.allTypes(layout, SEGMENT_ROWS);
        TestRows.fill(dir, schema, ROWS);
        final Column l = schema.require("l");
        final Column sym = schema.require("sym");
        final Path table = dir.resolve("all_types");
        // segment 0: a zone map that does not cover its data; segment 2: a code past the dictionary
        final Path zone = SegmentDescriptor.directory(table, 0).resolve(ZoneMapDescriptor.FILE_NAME);
        FileDamage.putLong(zone, ZoneMapDescriptor.entryOffset(schema.columnCount(), 0, l.index()) + 8,
            Long.MIN_VALUE + 1);
        FileDamage.resealZoneMap(zone); // passes its checksum: found by the comparison with the data
        final Path file = SegmentDescriptor.directory(table, 2).resolve(SegmentDescriptor.fileName(schema, sym));
        FileDamage.putInt(file, SegmentDescriptor.offset(schema, sym), 1 << 20);
        try (Store store = Store.open(dir); TableReader reader = store.table("all_types").reader()) {
            final TableSnapshot snap = reader.snapshot();
            assertThat(new TableCheck("all_types", 100).all(snap).problems())
                .anyMatch(p -> p.contains("segment 0 block 0 column 'l'"));
            assertThat(new TableCheck("all_types", 1).all(snap).problems()).singleElement().asString()
                .startsWith("all_types: segment 2 block 0 column 'sym' (" + file + ", rows 0-3 of the segment)")
                .contains("fall outside the committed dictionary");
        }
    }
}
