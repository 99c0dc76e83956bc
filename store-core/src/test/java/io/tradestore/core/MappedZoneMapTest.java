package io.tradestore.core;

import java.nio.file.Path;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static io.tradestore.core.TestRows.BIG;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Zone maps of a writer on the mapped path (row appends stored into the segment mappings: no posix write(2), staging
 * turned off, or a writer that handed out mapped addresses through {@code columnAddress}/{@code reserve}). The writer
 * widens a block's zone maps from the mappings when appends pass the block's end; a flyweight left on a row of that
 * block can still write it afterwards, and that value must reach the zone maps at commit, or a range filter would skip
 * the row. Plain appends must still read each row once for the zone maps, not twice. (A flyweight stepping from a
 * committed row into such rows: StagingTest, on both paths.)
 */
@ExtendWith(TestRows.NoLeaks.class)
class MappedZoneMapTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"COLUMN,staging-off", "ROW,staging-off", "COLUMN,columnAddress", "ROW,columnAddress", "COLUMN,reserve",
        "ROW,reserve"})
    void shouldWidenZoneMapsWithWritesThroughFlyweightsLeftInBlocksThatEnded(final Layout layout, final String how) {
        final Schema schema = TestRows.allTypes(layout, 64);
        final int l = schema.indexOf("l");
        final long rows = 150;
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            final AllTypesFlyweight others = new AllTypesFlyweight();
            try (TableWriter w = TestRows.appendingWriter(table, how, others); TableReader reader = table.reader()) {
                final AllTypesFlyweight appended = new AllTypesFlyweight();
                final AllTypesFlyweight lastBlock = new AllTypesFlyweight();
                TestRows.append(w, others, w.pendingRows(), 5);
                // appended at row 5 (block 1, rows 4-7), then left there while other appends pass the block's end
                TestRows.write(w.append(appended), 5);
                TestRows.append(w, others, 6, 8);
                // wrapped (not appended) at row 6 of the same block
                final AllTypesFlyweight wrapped = new AllTypesFlyweight().bind(w).wrap(6);
                TestRows.append(w, others, 8, 62);
                // appended in the segment's last block (rows 60-63), whose zone maps are widened when segment 1 opens
                TestRows.write(w.append(lastBlock), 62);
                TestRows.append(w, others, 63, rows);
                appended.l(BIG);
                wrapped.l(-BIG);
                lastBlock.l(BIG - 1);
                w.commit();
                final TableSnapshot snap = reader.snapshot();
                assertThat(new AllTypesFlyweight().bind(snap).wrap(5).l()).isEqualTo(BIG);
                assertThat(snap.segment(0).zoneMax(1, l)).as("block 1 max").isEqualTo(BIG);
                assertThat(snap.segment(0).zoneMin(1, l)).as("block 1 min").isEqualTo(-BIG);
                assertThat(snap.segment(0).zoneMax(15, l)).as("block 15 max").isEqualTo(BIG - 1);
                assertThat(snap.segment(0).zoneMax(-1, l)).as("segment max").isEqualTo(BIG);
                assertThat(snap.segment(0).zoneMin(-1, l)).as("segment min").isEqualTo(-BIG);
                TestRows.assertZonesExact(snap);
                // flyweights left on early rows can step (next()) to their segment's end: those rows once more, at most
                assertThat(w.zoneRowsRead()).as("rows whose zone maps were read from the mappings")
                    .isLessThanOrEqualTo(2 * rows);
            }
        }
    }

    /**
     * The fix must not re-read every appended row at commit: plain append(flyweight) loops read each row once from the
     * mappings (at its block's end or the commit). appendRow() then wrap(row) reads each block once more at commit: the
     * flyweight is re-pointed on the block's last row when the next block starts (as any flyweight but the appender),
     * so it may overwrite that row, and the block is recomputed, not widened, to keep its entry exact
     * (ZoneMapOverwriteTest).
     */
    @ParameterizedTest
    @CsvSource({"COLUMN,staging-off", "ROW,staging-off", "COLUMN,columnAddress", "ROW,reserve"})
    void shouldReadEachAppendedRowOnceForTheZoneMaps(final Layout layout, final String how) {
        final Schema schema = TestRows.allTypes(layout, 256);
        final long rows = 2_000;
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            final AllTypesFlyweight f = new AllTypesFlyweight();
            try (TableWriter w = TestRows.appendingWriter(table, how, f); TableReader reader = table.reader()) {
                // a writer switched from staging reads its uncommitted rows (row 0) from the mappings again
                TestRows.append(w, f, w.pendingRows(), rows);
                w.commit();
                assertThat(w.zoneRowsRead()).as("append(flyweight)").isEqualTo(rows);
                final AllTypesFlyweight g = new AllTypesFlyweight().bind(w);
                final long read = w.zoneRowsRead();
                for (long r = rows; r < 2 * rows; r++) {
                    TestRows.write(g.wrap(w.appendRow()), r);
                }
                w.commit();
                // plus the rest of f's segment: f, left on the last committed row, may step into it with next()
                assertThat(w.zoneRowsRead() - read).as("appendRow() then wrap")
                    .isLessThanOrEqualTo(2 * rows + schema.blockRows() + schema.segmentRows());
                TestRows.verifyRows(reader.snapshot(), 0, 2 * rows);
                TestRows.assertZonesExact(reader.snapshot());
            }
        }
    }
}
