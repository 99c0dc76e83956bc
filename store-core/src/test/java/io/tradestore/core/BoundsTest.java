package io.tradestore.core;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.schema.Layout;
import io.tradestore.core.segment.Segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad indexes and misuse through the public API throw exceptions with key=value detail; none reaches raw memory. */
@ExtendWith(TestRows.NoLeaks.class)
class BoundsTest {
    @TempDir
    Path dir;

    @Test
    void shouldRejectBadIndexesOnSnapshotsSegmentsAndDictionaries() {
        TestRows.fill(dir, TestRows.allTypes(Layout.COLUMN, 8), 11);
        try (Store store = Store.open(dir); TableReader reader = store.table("all_types").reader()) {
            final TableSnapshot snap = reader.snapshot();
            assertThatThrownBy(() -> snap.segmentRowCount(2)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("segment=2 segmentCount=2");
            assertThatThrownBy(() -> snap.segment(-1)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> snap.dictionarySize(99)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("column=99 columnCount=10");
            assertThatThrownBy(() -> snap.symbolValue(7, -2)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("code=-2");
            assertThatThrownBy(() -> snap.symbolValue(3, 0)).isInstanceOf(StoreException.class)
                .hasMessageContaining("not a symbol");
            final Segment s = snap.segment(1);
            assertThatThrownBy(() -> s.zoneMin(2, 0)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("block=2 blocksPerSegment=2");
            assertThatThrownBy(() -> s.zoneMax(-2, 0)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> s.zoneMin(0, 10)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("column=10 columnCount=10");
            assertThatThrownBy(() -> s.minMax(snap.schema().column(3), 0, 9))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("from=0 to=9 segmentRows=8");
            // a reader's segment is mapped read-only: writing through it would crash the JVM, so it is refused
            assertThatThrownBy(() -> s.fillNulls(0, 8)).isInstanceOf(StoreException.class)
                .hasMessageContaining("read-only");
            assertThatThrownBy(() -> s.resetZones(0)).isInstanceOf(StoreException.class)
                .hasMessageContaining("read-only");
            assertThatThrownBy(() -> s.updateZones(0, 3)).isInstanceOf(StoreException.class)
                .hasMessageContaining("read-only");
            final AllTypesFlyweight f = new AllTypesFlyweight().bind(snap);
            assertThatThrownBy(() -> f.wrap(Long.MAX_VALUE)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> f.wrap(Long.MIN_VALUE)).isInstanceOf(IndexOutOfBoundsException.class);
            reader.close();
            assertThatThrownBy(() -> s.zoneMin(0, 0)).isInstanceOf(StoreException.class).hasMessageContaining("closed");
            assertThatThrownBy(() -> snap.segment(0)).isInstanceOf(StoreException.class).hasMessageContaining("closed");
            assertThatThrownBy(reader::snapshot).isInstanceOf(StoreException.class).hasMessageContaining("closed");
        }
    }

    @Test
    void shouldRejectBadArgumentsAndUseAfterCloseOnTheWriter() {
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(TestRows.allTypes(Layout.ROW, 8));
            final TableWriter w = table.writer();
            assertThatThrownBy(() -> w.dictionary(-1)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("column=-1 columnCount=10");
            assertThatThrownBy(() -> w.dictionary(0)).isInstanceOf(StoreException.class)
                .hasMessageContaining("not a symbol");
            assertThatThrownBy(() -> w.reserve(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("count=0 must be at least 1");
            assertThatThrownBy(() -> w.dictionary(7).value(0)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("code=0 dictionarySize=0");
            final AllTypesFlyweight f = new AllTypesFlyweight();
            TestRows.write(w.append(f), 0);
            assertThatThrownBy(() -> f.c((char) 200)).isInstanceOf(IllegalArgumentException.class);
            assertThat(w.reserve(100)).isEqualTo(7);
            w.commit();
            w.close();
            assertThatThrownBy(w::appendRow).isInstanceOf(StoreException.class).hasMessageContaining("closed");
            assertThatThrownBy(() -> w.append(f)).isInstanceOf(StoreException.class).hasMessageContaining("closed");
            assertThatThrownBy(() -> w.reserve(1)).isInstanceOf(StoreException.class).hasMessageContaining("closed");
            assertThatThrownBy(w::commit).isInstanceOf(StoreException.class).hasMessageContaining("closed");
            assertThatThrownBy(() -> f.wrap(0)).isInstanceOf(StoreException.class).hasMessageContaining("closed");
            w.close();
            store.close();
            assertThatThrownBy(() -> store.table("all_types")).isInstanceOf(StoreException.class)
                .hasMessageContaining("closed");
        }
    }
}
