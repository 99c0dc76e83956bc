package io.tradestore.core;

import static io.tradestore.core.TestRows.BIG;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

/**
 * A value overwritten before its commit, after its block's zone map was first widened with it (a block end on the
 * mapped path, a window copy on the staging path, a raw address asked for later), must not stay in the zone map: whole
 * unfiltered blocks answer min and max from their entries, so a stale bound is a wrong answer. After the commit every
 * entry is exact (TestRows.assertZonesExact).
 */
@ExtendWith(TestRows.NoLeaks.class)
class ZoneMapOverwriteTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"COLUMN,staged", "ROW,staged", "COLUMN,staged-thread", "COLUMN,staging-off", "ROW,staging-off"})
    void shouldForgetAValueOverwrittenThroughAFlyweightBeforeTheCommit(final Layout layout, final String how) {
        final Schema schema = TestRows.allTypes(layout, 64);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            final AllTypesFlyweight appender = new AllTypesFlyweight();
            final AllTypesFlyweight early = new AllTypesFlyweight();
            try (TableWriter w = TestRows.appendingWriter(table, how, appender); TableReader reader = table.reader()) {
                TestRows.append(w, appender, w.pendingRows(), 2);
                early.bind(w).wrap(1).l(BIG); // row 1 holds a big value while its block ends and its window is copied
                TestRows.append(w, appender, 2, 40);
                early.l(7); // then a small one, before the commit
                w.commit();
                final TableSnapshot snap = reader.snapshot();
                assertThat(snap.segment(0).zoneMax(0, schema.indexOf("l"))).as("block 0's max").isLessThan(BIG);
                TestRows.assertZonesExact(snap);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"COLUMN,address", "ROW,address", "COLUMN,reserve", "ROW,reserve"})
    void shouldForgetAValueStagedThenOverwrittenAfterTheWriterLeftStaging(final Layout layout, final String how) {
        final Schema schema = TestRows.allTypes(layout, 64);
        final int l = schema.indexOf("l");
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = TestRows.stagedWriter(table, Durability.NONE, 8, true, false); TableReader reader =
                table.reader()) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                TestRows.append(w, f, 0, 2);
                f.l(BIG); // the appender, on row 1
                TestRows.append(w, f, 2, 20); // windows copied: blocks 0-3 widened with BIG from the staged values
                if ("address".equals(how)) {
                    NativeMemory.putLong(w.columnAddress(0, l) + w.columnStride(l), 7); // leaves staging; row 1, raw
                } else {
                    final int n = w.reserve(4); // leaves staging; the reserved rows are written whole below
                    final AllTypesFlyweight g = new AllTypesFlyweight().bind(w);
                    for (int i = 0; i < n; i++) {
                        TestRows.write(g.wrap(20 + i), 20 + i);
                    }
                    g.wrap(1).l(7);
                }
                w.commit();
                final TableSnapshot snap = reader.snapshot();
                assertThat(snap.segment(0).zoneMax(0, l)).as("block 0's max").isLessThan(BIG);
                TestRows.assertZonesExact(snap);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"COLUMN", "ROW"})
    void shouldForgetAValueOverwrittenThroughAnAddressAskedForAfterItsBlockEnded(final Layout layout) {
        final Schema schema = TestRows.allTypes(layout, 64);
        final int l = schema.indexOf("l");
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = TestRows.stagedWriter(table, Durability.NONE, 8, false, false); TableReader reader =
                table.reader()) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                TestRows.append(w, f, 0, 2);
                f.l(BIG); // the appender, on row 1, moves on with the next appends: no flyweight is left there
                TestRows.append(w, f, 2, 20); // blocks 0-3 end: their zone maps hold BIG
                NativeMemory.putLong(w.columnAddress(0, l) + w.columnStride(l), 7); // row 1, through a raw address
                w.commit();
                final TableSnapshot snap = reader.snapshot();
                assertThat(snap.segment(0).zoneMax(0, l)).as("block 0's max").isLessThan(BIG);
                TestRows.assertZonesExact(snap);
            }
        }
    }
}
