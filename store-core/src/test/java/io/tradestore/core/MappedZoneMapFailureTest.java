package io.tradestore.core;

import java.nio.file.Path;

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
 * An append at a segment's end that fails after the writer widened the ended block's zone maps (the next segment cannot
 * be created: a full disk) leaves the appender on the block's last row, where it can still write. That write must reach
 * the zone maps at commit, as on the staging path (which re-points every flyweight when opening the segment fails).
 */
@ExtendWith(TestRows.NoLeaks.class)
class MappedZoneMapFailureTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"COLUMN,staging-off", "ROW,staging-off", "COLUMN,columnAddress", "COLUMN,reserve", "COLUMN,staged",
        "ROW,staged"})
    void shouldWidenZoneMapsWithAWriteThroughTheAppenderOfAnAppendThatFailedAtASegmentEnd(final Layout layout,
    final String how) {
        final FaultTest.FullDisk disk = new FaultTest.FullDisk();
        final Schema schema = TestRows.allTypes(layout, 8);
        final int l = schema.indexOf("l");
        try (Store store = Store.open(dir, disk)) {
            final Table table = store.createTable(schema);
            final AllTypesFlyweight f = new AllTypesFlyweight();
            try (TableWriter w = TestRows.appendingWriter(table, how, f); TableReader reader = table.reader()) {
                TestRows.append(w, f, w.pendingRows(), 8);
                disk.failFrom(1);
                assertThatThrownBy(() -> w.append(f)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("No space left");
                disk.clear();
                assertThat(w.pendingRows()).isEqualTo(8);
                // the appender is still on row 7, the last row of block 1 (rows 4-7), and writes it
                f.l(BIG);
                w.commit();
                final TableSnapshot snap = reader.snapshot();
                assertThat(new AllTypesFlyweight().bind(snap).wrap(7).l()).isEqualTo(BIG);
                assertThat(snap.segment(0).zoneMax(1, l)).as("block 1 max").isEqualTo(BIG);
                assertThat(snap.segment(0).zoneMax(-1, l)).as("segment max").isEqualTo(BIG);
                TestRows.assertZonesExact(snap);
                // the writer stays usable
                TestRows.append(w, f, 8, 20);
                w.commit();
                TestRows.assertZonesExact(reader.snapshot());
            }
        }
    }

    /**
     * appendRow's contract: write the row's fields through a flyweight or the column addresses before commit(). On the
     * mapped path the writer widens a block's zone maps from the files when appends pass the block's end, so values
     * stored later through columnAddress into rows of ended blocks would be missed (the blocks' zone maps would stay
     * empty here): a segment whose addresses are out gets its zone maps at commit.
     */
    @Test
    void shouldWidenZoneMapsWithStoresThroughColumnAddressIntoRowsOfBlocksThatEnded() {
        final Schema schema = TestRows.allTypes(Layout.COLUMN, 64);
        final int l = schema.indexOf("l");
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = TestRows.stagedWriter(table, Durability.NONE, 8, false, false); TableReader reader =
                table.reader()) {
                for (int i = 0; i < 20; i++) {
                    w.appendRow();
                }
                final long base = w.columnAddress(0, l);
                for (int i = 0; i < 20; i++) {
                    NativeMemory.putLong(base + i * w.columnStride(l), 1_000L + i);
                }
                w.commit();
                final TableSnapshot snap = reader.snapshot();
                assertThat(snap.segment(0).zoneMin(0, l)).as("block 0 min").isEqualTo(1_000L);
                assertThat(snap.segment(0).zoneMin(-1, l)).as("segment min").isEqualTo(1_000L);
            }
        }
    }
}
