package io.tradestore.core;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.ingest.CsvLoader;
import io.tradestore.core.ingest.LoadOptions;
import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.sample.TradeGenerator;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static io.tradestore.core.TestRows.BIG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Stores through {@link TableWriter#columnAddress} ("raw" addresses: the writer cannot see them) into uncommitted rows,
 * at any time before commit, must reach the zone maps, or a range filter could skip those rows. The mapped path
 * widens a block's zone maps when appends (appendRow, or the segment end of a reserve) pass the block's end, and column
 * writes at reserve; so the zone maps of a segment whose addresses are out are widened at commit instead, or a store
 * made later through an address handed out before or after would be missed. The CSV loader must still read no row
 * twice for the zone maps (it asks for addresses only when it stores through them). Random mixes:
 * {@link ZoneMapRawStorePropertyTest}.
 */
@ExtendWith(TestRows.NoLeaks.class)
class RawAddressZoneMapTest {
    @TempDir
    Path dir;

    /**
     * appendRow past block and segment ends after the address of segment 0 was asked for, then stores into every row.
     */
    @ParameterizedTest
    @CsvSource({"COLUMN,true", "ROW,true", "COLUMN,false", "ROW,false"})
    void shouldWidenZoneMapsWithStoresThroughAnAddressAskedForBeforeTheRowsWereAppended(final Layout layout,
        final boolean staging) {
        final Schema schema = TestRows.allTypes(layout, 16);
        final int l = schema.indexOf("l");
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = TestRows.stagedWriter(table, Durability.NONE, 8, staging, false); TableReader reader =
                table.reader()) {
                w.appendRow();
                final long base0 = w.columnAddress(0, l);
                for (int i = 1; i < 40; i++) {
                    w.appendRow();
                }
                // segment 1's address asked for after its blocks ended, segment 2's (open, rows 32-39) too
                final long[] bases = {base0, w.columnAddress(1, l), w.columnAddress(2, l)};
                for (int r = 0; r < 40; r++) {
                    NativeMemory.putLong(bases[r / 16] + (r % 16) * (long) w.columnStride(l), 1_000L + r);
                }
                w.commit();
                final TableSnapshot snap = reader.snapshot();
                for (int seg = 0; seg < 3; seg++) {
                    for (int block = 0; block < (seg < 2 ? 4 : 2); block++) {
                        final long first = 1_000L + seg * 16 + block * 4;
                        assertThat(new long[] {snap.segment(seg).zoneMin(block, l),
                            snap.segment(seg).zoneMax(block, l)})
                            .as("segment %d block %d", seg, block).containsExactly(first, first + 3);
                    }
                }
                TestRows.assertZonesExact(snap);
            }
        }
    }

    /** An address is good until the writer closes: stores through one asked for before a commit, into rows after it. */
    @ParameterizedTest
    @CsvSource({"COLUMN,true", "ROW,true", "COLUMN,false", "ROW,false"})
    void shouldWidenZoneMapsWithStoresThroughAnAddressAskedForBeforeTheLastCommit(final Layout layout,
        final boolean staging) {
        final Schema schema = TestRows.allTypes(layout, 64);
        final int l = schema.indexOf("l");
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = TestRows.stagedWriter(table, Durability.NONE, 8, staging, false); TableReader reader =
                table.reader()) {
                for (int i = 0; i < 4; i++) {
                    w.appendRow();
                }
                final long base = w.columnAddress(0, l);
                final long stride = w.columnStride(l);
                for (int r = 0; r < 4; r++) {
                    NativeMemory.putLong(base + r * stride, r);
                }
                w.commit();
                for (int i = 4; i < 30; i++) {
                    w.appendRow();
                }
                NativeMemory.putLong(base + 5 * stride, BIG);
                NativeMemory.putLong(base + 13 * stride, -BIG);
                w.commit();
                final TableSnapshot snap = reader.snapshot();
                assertThat(snap.segment(0).zoneMax(1, l)).as("block 1 max").isEqualTo(BIG);
                assertThat(snap.segment(0).zoneMin(3, l)).as("block 3 min").isEqualTo(-BIG);
                assertThat(new long[] {snap.segment(0).zoneMin(-1, l), snap.segment(0).zoneMax(-1, l)}).as("segment")
                    .containsExactly(-BIG, BIG);
                TestRows.assertZonesExact(snap);
            }
        }
    }

    /**
     * Bulk appends (reserve) with stores through the addresses: the reserve that opens the next segment used to widen
     * the ended segment's zone maps, before the stores the caller still made into it.
     */
    @ParameterizedTest
    @CsvSource({"COLUMN", "ROW"})
    void shouldWidenZoneMapsWithStoresIntoReservedRowsOfASegmentThatEnded(final Layout layout) {
        final Schema schema = TestRows.allTypes(layout, 16);
        final int l = schema.indexOf("l");
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = table.writer(); TableReader reader = table.reader()) {
                assertThat(w.reserve(16)).isEqualTo(16);
                for (int r = 0; r < 16; r++) {
                    storeRow(w, r, r);
                }
                assertThat(w.reserve(16)).isEqualTo(16);
                for (int r = 16; r < 32; r++) {
                    storeRow(w, r, r);
                }
                // segment 0 ended (segment 1 was opened by the reserve above): its address still reaches its rows
                NativeMemory.putLong(w.columnAddress(0, l) + 6 * (long) w.columnStride(l), BIG);
                w.commit();
                final TableSnapshot snap = reader.snapshot();
                assertThat(snap.segment(0).zoneMax(1, l)).as("block 1 max").isEqualTo(BIG);
                assertThat(snap.segment(0).zoneMax(-1, l)).as("segment max").isEqualTo(BIG);
                TestRows.assertZonesExact(snap);
            }
        }
    }

    /**
     * Column writes widen the zone maps from the values they write; a store through an address of the same segment,
     * asked for before or after, may come later and must reach the zone maps too.
     */
    @ParameterizedTest
    @CsvSource({"true", "false"})
    void shouldWidenZoneMapsWithStoresAfterColumnWrites(final boolean addressFirst) {
        assumeTrue(MappedFile.writeAvailable(), "column writes need posix write(2)");
        final Schema schema = TestRows.allTypes(Layout.COLUMN, 16);
        final int l = schema.indexOf("l");
        TestRows.fill(dir, TestRows.ALL_TYPES.with("source", Layout.COLUMN, 16, 4), 16);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableReader source = store.table("source").reader(); TableWriter w = table
                .writer(); TableReader reader = table.reader()) {
                final TableSnapshot src = source.snapshot();
                TestRows.copyDictionaries(src, w);
                assertThat(w.columnWrites(true)).isTrue();
                TestRows.copyColumns(src, w, 0, 8, 8);
                w.commit();
                long base = 0;
                if (addressFirst) {
                    base = w.columnAddress(0, l);
                }
                TestRows.copyColumns(src, w, 8, 16, 8);
                if (!addressFirst) {
                    base = w.columnAddress(0, l);
                }
                NativeMemory.putLong(base + 10 * (long) w.columnStride(l), BIG);
                w.commit();
                final TableSnapshot snap = reader.snapshot();
                assertThat(snap.segment(0).zoneMax(2, l)).as("block 2 max").isEqualTo(BIG);
                assertThat(snap.segment(0).zoneMax(-1, l)).as("segment max").isEqualTo(BIG);
                TestRows.assertZonesExact(snap);
            }
        }
    }

    /**
     * Released addresses let the zone maps be widened before commit again (the loader's case: the pass over a full
     * segment overlaps parsing); asked for again, the segment's rows already widened are widened again at commit.
     */
    @ParameterizedTest
    @CsvSource({"COLUMN", "ROW"})
    void shouldWidenBeforeCommitOnceAddressesAreReleasedAndAgainWhenTheyAreAskedForAgain(final Layout layout) {
        final Schema schema = TestRows.allTypes(layout, 16);
        final int l = schema.indexOf("l");
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = TestRows.stagedWriter(table, Durability.NONE, 8, false, false); TableReader reader =
                table.reader()) {
                w.appendRow();
                final long stride = w.columnStride(l);
                long base = w.columnAddress(0, l);
                for (int r = 0; r < 16; r++) {
                    if (r > 0) {
                        w.appendRow();
                    }
                    NativeMemory.putLong(base + r * stride, r);
                }
                w.releaseColumnAddresses(0);
                for (int r = 16; r < 20; r++) {
                    w.appendRow();
                }
                assertThat(w.zoneRowsRead()).as("segment 0 widened when segment 1 opened").isEqualTo(16);
                base = w.columnAddress(0, l);
                NativeMemory.putLong(base + 5 * stride, BIG);
                w.commit();
                final TableSnapshot snap = reader.snapshot();
                assertThat(snap.segment(0).zoneMax(1, l)).as("block 1 max").isEqualTo(BIG);
                TestRows.assertZonesExact(snap);
            }
        }
    }

    /**
     * The loader's constraint: no second pass over the rows for the zone maps. With column writes it asks for no
     * address, so writeColumn's widening stands (nothing read back); storing through the addresses, each row is read
     * once (when the next segment opens, after the loader released the full one's addresses, or at commit).
     */
    @ParameterizedTest
    @CsvSource({"true,0", "false,20000"})
    void shouldReadNoLoadedRowTwiceForTheZoneMaps(final boolean columnWrites, final long expectedRead) {
        assumeTrue(!columnWrites || MappedFile.writeAvailable(), "column writes need posix write(2)");
        final Path csv = dir.resolve("trades.csv");
        TradeGenerator.writeCsv(csv, 20_000, 7);
        try (Store store = Store.open(dir.resolve("store"))) {
            final Table table = store.createTable(TradesSchema.SCHEMA.with("trades", Layout.COLUMN, 4096, 1024));
            try (TableWriter w = table.writer(); TableReader reader = table.reader()) {
                CsvLoader.load(w, List.of(csv),
                    LoadOptions.defaults().withColumnWrites(columnWrites).withCommitEvery(7_000)
                    .withChunkBytes(64 << 10), null);
                assertThat(reader.snapshot().rowCount()).isEqualTo(20_000);
                assertThat(w.zoneRowsRead()).as("rows read back for the zone maps").isEqualTo(expectedRead);
            }
        }
    }

    /**
     * Writes every column of a reserved all-types row through the writer's column addresses: {@code l} and {@code ts}
     * from the row, nulls elsewhere.
     */
    static void storeRow(final TableWriter w, final long row, final long l) {
        final Schema schema = w.schema();
        final int seg = (int) (row >>> schema.segmentShift());
        final long in = row & (schema.segmentRows() - 1);
        final long[] values =
            {Byte.MIN_VALUE, Short.MIN_VALUE, Integer.MIN_VALUE, l, 0, Long.MIN_VALUE, 1_000_000_000L * row, -1, 0, -1};
        for (int c = 0; c < schema.columnCount(); c++) {
            final long a = w.columnAddress(seg, c) + in * w.columnStride(c);
            if (c == schema.indexOf("d")) {
                NativeMemory.putDouble(a, Double.NaN);
            } else {
                NativeMemory.fillPattern(a, 1, schema.column(c).width(), schema.column(c).width(), values[c]);
            }
        }
    }
}
