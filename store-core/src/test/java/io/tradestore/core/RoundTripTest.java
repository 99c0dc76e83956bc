package io.tradestore.core;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(TestRows.NoLeaks.class)
class RoundTripTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"COLUMN,8,0", "COLUMN,8,1", "COLUMN,8,7", "COLUMN,8,8", "COLUMN,8,9", "COLUMN,8,100", "ROW,8,0",
        "ROW,8,7",
        "ROW,8,8", "ROW,8,17", "ROW,4,100", "COLUMN,2,33", "COLUMN,1024,5000", "ROW,1024,3000"})
    void shouldReadBackEveryTypeAfterReopen(final Layout layout, final int segmentRows, final int rows) {
        final Schema schema = TestRows.allTypes(layout, segmentRows);
        TestRows.fill(dir, schema, rows);
        try (Store store = Store.open(dir); TableReader reader = store.table("all_types").reader()) {
            final TableSnapshot snap = reader.snapshot();
            assertThat(snap.rowCount()).isEqualTo(rows);
            assertThat(snap.segmentCount()).isEqualTo((rows + segmentRows - 1) / segmentRows);
            final AllTypesFlyweight f = new AllTypesFlyweight().bind(snap);
            long n = 0;
            while (f.next()) {
                TestRows.verify(f, n++);
            }
            assertThat(n).isEqualTo(rows);
            for (long r = rows - 1; r >= 0; r -= 3) {
                TestRows.verify(f.wrap(r), r);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldAppendAcrossReopensAndKeepDictionaryCodes(final Layout layout) {
        final Schema schema = TestRows.allTypes(layout, 8);
        TestRows.fill(dir, schema, 11);
        final int codeOfS5;
        try (Store store = Store.open(dir); TableReader reader = store.table("all_types").reader()) {
            codeOfS5 = reader.snapshot().findSymbol(7, "S5");
            assertThat(codeOfS5).isNotNegative();
        }
        TestRows.fill(dir, schema, 30);
        try (Store store = Store.open(dir); TableReader reader = store.table("all_types").reader()) {
            final TableSnapshot snap = reader.snapshot();
            assertThat(snap.rowCount()).isEqualTo(30);
            assertThat(snap.findSymbol(7, "S5")).isEqualTo(codeOfS5);
            assertThat(snap.dictionarySize(7)).isEqualTo(13);
            final AllTypesFlyweight f = new AllTypesFlyweight().bind(snap);
            for (long r = 0; r < 30; r++) {
                TestRows.verify(f.wrap(r), r);
            }
        }
    }

    @Test
    void shouldNotShowUncommittedRowsAndDiscardThemOnClose() {
        final Schema schema = TestRows.allTypes(Layout.COLUMN, 8);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = table.writer(); TableReader reader = table.reader()) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                TestRows.append(w, f, 0, 5);
                w.commit();
                TestRows.append(w, f, 5, 12);
                assertThat(reader.snapshot().rowCount()).isEqualTo(5);
                assertThat(w.pendingRows()).isEqualTo(12);
            }
            try (TableWriter w = table.writer()) {
                assertThat(w.committedRows()).isEqualTo(5);
                final AllTypesFlyweight f = new AllTypesFlyweight();
                // the discarded tail must read as nulls, not as the old values
                final AllTypesFlyweight row5 = w.append(f);
                assertThat(row5.l()).isEqualTo(Long.MIN_VALUE);
                assertThat(row5.symValue()).isNull();
                w.rollback();
            }
        }
    }

    @Test
    void shouldRollBackRowsAndDictionaryEntries() {
        final Schema schema = TestRows.allTypes(Layout.COLUMN, 8);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = table.writer()) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                TestRows.write(w.append(f), 0);
                w.commit();
                w.append(f).sym("never-committed");
                w.rollback();
                assertThat(w.dictionary(7).find("never-committed")).isEqualTo(-1);
                TestRows.write(w.append(f), 1);
                w.commit();
            }
            try (TableReader reader = table.reader()) {
                final TableSnapshot snap = reader.snapshot();
                assertThat(snap.rowCount()).isEqualTo(2);
                assertThat(snap.findSymbol(7, "never-committed")).isEqualTo(-1);
                assertThat(snap.dictionarySize(7)).isEqualTo(2);
            }
        }
    }

    @Test
    void shouldRejectBadIndexesWithExceptions() {
        TestRows.fill(dir, TestRows.allTypes(Layout.ROW, 8), 3);
        try (Store store = Store.open(dir); TableReader reader = store.table("all_types").reader()) {
            final TableSnapshot snap = reader.snapshot();
            final AllTypesFlyweight f = new AllTypesFlyweight();
            assertThatThrownBy(() -> f.wrap(0)).isInstanceOf(StoreException.class).hasMessageContaining("not bound");
            assertThat(f.l()).isZero();
            f.bind(snap);
            assertThatThrownBy(() -> f.wrap(3)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("row=3 rowLimit=3");
            assertThatThrownBy(() -> f.wrap(-1)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> f.wrap(0).l(5)).isInstanceOf(StoreException.class)
                .hasMessageContaining("read-only");
            assertThatThrownBy(() -> snap.symbolValue(7, 99)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("code=99");
            assertThatThrownBy(() -> snap.segment(1)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("segment=1 segmentCount=1");
            assertThatThrownBy(() -> snap.findSymbol(0, "x")).isInstanceOf(StoreException.class)
                .hasMessageContaining("not a symbol");
            assertThatThrownBy(() -> snap.schema().column(10)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("column=10 columnCount=10");
            assertThatThrownBy(() -> new io.tradestore.core.flyweight.TradeFlyweight().bind(snap))
                .isInstanceOf(StoreException.class).hasMessageContaining("does not fit");
        }
        try (Store store = Store.open(dir)) {
            final TableReader reader = store.table("all_types").reader();
            final TableSnapshot snap = reader.snapshot();
            final AllTypesFlyweight f = new AllTypesFlyweight().bind(snap);
            reader.close();
            assertThatThrownBy(() -> f.wrap(1)).isInstanceOf(StoreException.class).hasMessageContaining("closed");
        }
    }

    @Test
    void shouldRefuseASecondWriter() {
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(TestRows.allTypes(Layout.COLUMN, 8));
            try (TableWriter ignored = table.writer()) {
                assertThatThrownBy(table::writer).isInstanceOf(StoreException.class)
                    .hasMessageContaining("already has a writer");
                try (Store other = Store.open(dir)) {
                    assertThatThrownBy(() -> other.table("all_types").writer()).isInstanceOf(StoreException.class)
                        .hasMessageContaining("only one writer per table");
                }
            }
            table.writer().close();
        }
    }
}
