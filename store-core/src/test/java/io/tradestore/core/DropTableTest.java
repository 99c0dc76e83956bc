package io.tradestore.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

/**
 * Dropping a table: one rename takes it out of the store, its files follow; readers finish on their mappings and are
 * told at their next snapshot; a writer anywhere refuses the drop; a crash mid-delete is finished by the next open.
 */
@ExtendWith(TestRows.NoLeaks.class)
class DropTableTest {
    private static final Schema SCHEMA = TradesSchema.SCHEMA.with("trades", Layout.COLUMN, 64, 16);

    @TempDir
    Path dir;

    private static void fill(final Table t, final int rows) {
        try (TableWriter w = t.writer()) {
            final TradeFlyweight f = new TradeFlyweight();
            for (int r = 0; r < rows; r++) {
                w.append(f).tradeId(r).ts(1_700_000_000_000_000_000L + r).venue("XLON").instrument("A").side('S')
                    .price(1).quantity(r);
            }
            w.commit();
        }
    }

    @Test
    void shouldDropATableWhileAReaderFinishesOnItsMappings() throws IOException {
        try (TestRows.TemporaryProperty check = new TestRows.TemporaryProperty(TableReader.FILE_CHECK_PROPERTY, "0");
             Store store = Store.open(dir)) {
            final Table t = store.createTable(SCHEMA);
            fill(t, 300);
            final TableReader reader = t.reader();
            final TableSnapshot snap = reader.acquire();
            store.dropTable("trades");
            assertThat(store.hasTable("trades")).isFalse();
            assertThat(store.tableNames()).isEmpty();
            try (var entries = Files.list(dir)) {
                assertThat(entries).isEmpty();
            }
            // the snapshot's mappings outlive the files' names
            final TradeFlyweight f = new TradeFlyweight();
            f.bind(snap);
            long sum = 0;
            while (f.next()) {
                sum += f.quantity();
            }
            assertThat(sum).isEqualTo(299L * 300 / 2);
            assertThatThrownBy(reader::acquire).isInstanceOf(TableDroppedException.class)
                .hasMessageContaining("table 'trades' was dropped");
            assertThatThrownBy(t::reader).isInstanceOf(TableDroppedException.class);
            reader.release(snap);
            reader.close();
            assertThatThrownBy(() -> store.table("trades")).isInstanceOf(StoreException.class)
                .hasMessageContaining("unknown table 'trades'");
            assertThatThrownBy(() -> store.dropTable("trades")).isInstanceOf(StoreException.class)
                .hasMessageContaining("unknown table 'trades'");
            // the name is free again; a reader of the dropped table tells the new one apart
            final TableReader another = store.createTable(SCHEMA).reader();
            assertThat(another.snapshot().rowCount()).isZero();
            another.close();
        }
    }

    @Test
    void shouldTellAReaderThatTheTableWasDroppedAndCreatedAgain() {
        try (TestRows.TemporaryProperty check = new TestRows.TemporaryProperty(TableReader.FILE_CHECK_PROPERTY, "0");
             Store store = Store.open(dir); Store other = Store.open(dir)) {
            fill(store.createTable(SCHEMA), 10);
            try (TableReader reader = store.table("trades").reader()) {
                assertThat(reader.snapshot().rowCount()).isEqualTo(10);
                other.dropTable("trades");
                other.createTable(SCHEMA);
                assertThatThrownBy(reader::snapshot).isInstanceOf(TableDroppedException.class)
                    .hasMessageContaining("dropped and created again");
            }
        }
    }

    @Test
    void shouldOpenTheNewTableAfterAnotherProcessDroppedAndRemadeIt() {
        try (Store store = Store.open(dir); Store other = Store.open(dir)) {
            fill(store.createTable(SCHEMA), 10);
            final Table old = store.table("trades");
            other.dropTable("trades");
            assertThatThrownBy(() -> store.table("trades")).hasMessageContaining("unknown table 'trades'");
            assertThatThrownBy(old::reader).isInstanceOf(TableDroppedException.class);
            other.createTable(SCHEMA.with("trades", Layout.ROW, 128, 16));
            final Table made = store.table("trades");
            assertThat(made).isNotSameAs(old);
            assertThat(made.schema().layout()).isEqualTo(Layout.ROW);
            try (TableReader r = made.reader()) {
                assertThat(r.snapshot().rowCount()).isZero();
            }
        }
    }

    @Test
    void shouldRefuseTheDropWhileAWriterHoldsTheTable() {
        try (Store store = Store.open(dir); Store other = Store.open(dir)) {
            final Table t = store.createTable(SCHEMA);
            try (TableWriter w = t.writer()) {
                assertThatThrownBy(() -> store.dropTable("trades")).isInstanceOf(StoreException.class)
                    .hasMessageContaining("writer open");
                // another Store (as another process would) meets the writer lock
                assertThatThrownBy(() -> other.dropTable("trades")).isInstanceOf(TableLockedException.class);
                w.commit();
            }
            assertThat(store.hasTable("trades")).isTrue();
            fill(t, 5); // the refused drops left the table usable
            store.dropTable("trades");
            assertThat(other.hasTable("trades")).isFalse();
        }
    }

    @Test
    void shouldFinishADropACrashInterruptedWhenTheStoreOpens() throws IOException {
        try (Store store = Store.open(dir)) {
            fill(store.createTable(SCHEMA), 100);
        }
        // as if the process died after the rename, part way through the deletion
        final Path gone = dir.resolve("trades.1f" + TableFiles.DROPPED_SUFFIX);
        Files.move(dir.resolve("trades"), gone);
        Files.delete(gone.resolve("_txn"));
        try (Store store = Store.open(dir)) {
            assertThat(store.tableNames()).isEmpty();
            assertThat(Files.exists(gone)).isFalse();
        }
    }
}
