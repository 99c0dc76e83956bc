package io.tradestore.core;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Readers and writers in different processes (child JVMs) and in different Store instances of one process. */
@ExtendWith(TestRows.NoLeaks.class)
class MultiProcessTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldSeeCommitsOfAWriterInAnotherProcess(final Layout layout) throws Exception {
        final Schema schema = TestRows.allTypes(layout, 64);
        try (Store store = Store.open(dir)) {
            store.createTable(schema);
            try (TableReader reader = store.table("all_types").reader();
                 ChildJvm child = ChildJvm.start("append", dir.toString(), layout.name(), "64", "3000", "250")) {
                assertThat(reader.snapshot().rowCount()).isZero();
                long seen = 0;
                for (long expected = 250; expected <= 3000; expected += 250) {
                    final long reported = Long.parseLong(child.await("COMMITTED ", 60, TimeUnit.SECONDS).substring(10));
                    assertThat(reported).isEqualTo(expected);
                    final TableSnapshot snap = reader.snapshot();
                    assertThat(snap.rowCount()).as("a snapshot after the child reported its commit")
                        .isGreaterThanOrEqualTo(reported);
                    TestRows.verifyRows(snap, seen, snap.rowCount());
                    seen = snap.rowCount();
                }
                child.await("DONE", 60, TimeUnit.SECONDS);
                assertThat(child.waitFor(30_000)).isTrue();
                assertThat(child.exitValue()).as(child.stderr()).isZero();
                final TableSnapshot end = reader.snapshot();
                assertThat(end.rowCount()).isEqualTo(3000);
                TestRows.verifyRows(end, 0, 3000);
                assertThat(end.findSymbol(7, "S12")).isNotNegative();
            }
        }
    }

    @Test
    void shouldSeeCommitsThroughASecondStoreInstance() {
        final Schema schema = TestRows.allTypes(Layout.COLUMN, 8);
        try (Store writerStore = Store.open(dir); Store readerStore = Store.open(dir)) {
            final TableWriter w = writerStore.createTable(schema).writer();
            final TableReader reader = readerStore.table("all_types").reader();
            final AllTypesFlyweight f = new AllTypesFlyweight();
            for (int commit = 1; commit <= 5; commit++) {
                for (int i = 0; i < 7; i++) {
                    TestRows.write(w.append(f), w.pendingRows() - 1);
                }
                assertThat(reader.snapshot().rowCount()).isEqualTo(7L * (commit - 1));
                w.commit();
                final TableSnapshot snap = reader.snapshot();
                assertThat(snap.rowCount()).isEqualTo(7L * commit);
                TestRows.verifyRows(snap, 0, snap.rowCount());
            }
        }
    }

    @Test
    void shouldRefuseAWriterWhileAnotherProcessHoldsTheTable() throws Exception {
        final Schema schema = TestRows.allTypes(Layout.ROW, 8);
        TestRows.fill(dir, schema, 5);
        try (ChildJvm child = ChildJvm.start("hold", dir.toString(), "ROW", "8")) {
            assertThat(child.await("LOCKED ", 60, TimeUnit.SECONDS)).isEqualTo("LOCKED 5");
            try (Store store = Store.open(dir)) {
                final Table table = store.table("all_types");
                assertThatThrownBy(table::writer).isInstanceOf(StoreException.class)
                    .hasMessageContaining("already has a writer").hasMessageContaining("_lock")
                    .hasMessageContaining("another process");
                // readers are never blocked by the writer
                try (TableReader reader = table.reader()) {
                    assertThat(reader.snapshot().rowCount()).isEqualTo(5);
                }
                child.closeStdin();
                child.await("RELEASED", 60, TimeUnit.SECONDS);
                assertThat(child.waitFor(30_000)).isTrue();
                try (TableWriter w = table.writer()) {
                    assertThat(w.committedRows()).isEqualTo(5);
                }
            }
        }
    }

    @Test
    void shouldKeepTheLockWhenASecondWriterInThisProcessIsRefused() throws Exception {
        final Schema schema = TestRows.allTypes(Layout.COLUMN, 8);
        TestRows.fill(dir, schema, 3);
        try (Store store = Store.open(dir); TableWriter held = store.table("all_types").writer()) {
            try (Store other = Store.open(dir)) {
                assertThatThrownBy(() -> other.table("all_types").writer()).isInstanceOf(StoreException.class)
                    .hasMessageContaining("only one writer per table");
            }
            // the refusal above must not have released this process's lock: another process is still refused
            try (ChildJvm child = ChildJvm.start("try-writer", dir.toString(), "COLUMN", "8")) {
                assertThat(child.await("", 60, TimeUnit.SECONDS)).startsWith("REFUSED")
                    .contains("already has a writer");
                assertThat(child.waitFor(30_000)).isTrue();
            }
            assertThat(held.committedRows()).isEqualTo(3);
        }
        try (ChildJvm child = ChildJvm.start("try-writer", dir.toString(), "COLUMN", "8")) {
            assertThat(child.await("", 60, TimeUnit.SECONDS)).isEqualTo("ACQUIRED 3");
            assertThat(child.waitFor(30_000)).isTrue();
        }
    }
}
