package io.tradestore.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import io.tradestore.core.dict.SymbolDictionaryDescriptor;
import io.tradestore.core.memory.FileAllocator;
import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.ZoneMapDescriptor;
import io.tradestore.core.txn.TxnDescriptor;

import static io.tradestore.core.FileDamage.deleteTree;
import static io.tradestore.core.FileDamage.flip;
import static io.tradestore.core.FileDamage.putInt;
import static io.tradestore.core.FileDamage.replace;
import static io.tradestore.core.FileDamage.truncate;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Damaged files and a full disk: every failure is a StoreException whose message names the file and the problem, a
 * failed open leaks nothing, and a full disk at segment creation leaves the table at its last commit.
 */
@ExtendWith(TestRows.NoLeaks.class)
class FaultTest {
    @TempDir
    Path dir;

    /** A file damage: what to do to a table of 20 committed rows (segments of 8), and what the error must say. */
    interface Damage {
        void apply(Path table) throws IOException;
    }

    static Stream<Arguments> damages() {
        final int slot1 = TxnDescriptor.slotOffset(1, 2);
        return Stream.of(
            Arguments.of("_txn missing", (Damage) t -> Files.delete(t.resolve("_txn")), "_txn",
            "missing transaction file"),
            Arguments.of("_txn truncated", (Damage) t -> truncate(t.resolve("_txn"), 20), "_txn", "truncated"),
            Arguments.of("_txn row count flipped",
            (Damage) t -> flip(t.resolve("_txn"), slot1 + TxnDescriptor.SLOT_ROW_COUNT_OFFSET),
                "_txn", "fails its checksum"),
            Arguments.of("_txn checksum flipped",
            (Damage) t -> flip(t.resolve("_txn"), slot1 + TxnDescriptor.SLOT_CHECKSUM_OFFSET + 3),
                "_txn", "fails its checksum"),
            Arguments.of("_txn dictionary count flipped", (Damage) t -> flip(t.resolve("_txn"),
                slot1 + TxnDescriptor.SLOT_DICTIONARIES_OFFSET), "_txn", "fails its checksum"),
            Arguments.of("_txn sequence flipped",
            (Damage) t -> flip(t.resolve("_txn"), TxnDescriptor.SEQUENCE_OFFSET + 1), "_txn",
                "corrupted transaction file"),
            Arguments.of("_txn schema hash flipped",
            (Damage) t -> flip(t.resolve("_txn"), TxnDescriptor.SCHEMA_HASH_OFFSET), "_txn",
                "does not belong to this schema"),
            Arguments.of("_txn newer version",
            (Damage) t -> putInt(t.resolve("_txn"), TxnDescriptor.FORMAT_VERSION_OFFSET, 7), "_txn",
                "newer than this tradestore supports"),
            Arguments.of("_txn zeroed version",
            (Damage) t -> putInt(t.resolve("_txn"), TxnDescriptor.FORMAT_VERSION_OFFSET, 0), "_txn",
                "formatVersion=0"),
            Arguments.of("_schema.json missing", (Damage) t -> Files.delete(t.resolve("_schema.json")), "_schema.json",
                "missing schema file"),
            Arguments.of("_schema.json truncated", (Damage) t -> truncate(t.resolve("_schema.json"), 40),
            "_schema.json",
                "malformed schema JSON"),
            Arguments.of("_schema.json corrupted",
            (Damage) t -> replace(t.resolve("_schema.json"), "\"i64\"", "\"i65\""),
                "_schema.json", "unknown type 'i65'"),
            Arguments.of("_schema.json newer version",
            (Damage) t -> replace(t.resolve("_schema.json"), "\"formatVersion\" : 1",
                "\"formatVersion\" : 9"), "_schema.json", "newer than this tradestore supports"),
            Arguments.of("_schema.json changed", (Damage) t -> replace(t.resolve("_schema.json"), "\"blockRows\" : 4",
                "\"blockRows\" : 2"), "_txn", "does not belong to this schema"),
            Arguments.of("sym missing", (Damage) t -> Files.delete(t.resolve("sym.sym")), "sym.sym",
            "missing dictionary file"),
            Arguments.of("sym truncated",
            (Damage) t -> truncate(t.resolve("sym.sym"), SymbolDictionaryDescriptor.HEADER_LENGTH + 5),
                "sym.sym", "truncated dictionary file"),
            Arguments.of("sym header cut", (Damage) t -> truncate(t.resolve("sym2.sym"), 6), "sym2.sym", "truncated"),
            Arguments.of("sym corrupted",
            (Damage) t -> putInt(t.resolve("sym.sym"), SymbolDictionaryDescriptor.HEADER_LENGTH,
                0x7fff0000), "sym.sym", "corrupted dictionary"),
            Arguments.of("sym newer version",
            (Damage) t -> putInt(t.resolve("sym.sym"), SymbolDictionaryDescriptor.FORMAT_VERSION_OFFSET,
                3), "sym.sym", "newer than this tradestore supports"),
            Arguments.of("segment directory missing", (Damage) t -> deleteTree(t.resolve("seg-000001")), "seg-000001",
                "missing segment directory"),
            Arguments.of("column file missing", (Damage) t -> Files.delete(t.resolve("seg-000002/l.d")), "l.d",
            "missing file"),
            Arguments.of("column file truncated", (Damage) t -> truncate(t.resolve("seg-000000/ts.d"), 20), "ts.d",
            "truncated file"),
            Arguments.of("zone map missing", (Damage) t -> Files.delete(t.resolve("seg-000000/_zone")), "_zone",
            "missing file"),
            Arguments.of("zone map truncated", (Damage) t -> truncate(t.resolve("seg-000002/_zone"), 100), "_zone",
            "truncated file"),
            Arguments.of("zone map corrupted",
            (Damage) t -> putInt(t.resolve("seg-000001/_zone"), ZoneMapDescriptor.COLUMN_COUNT_OFFSET,
                99), "_zone", "corrupted zone map"),
            Arguments.of("zone map newer version", (Damage) t -> putInt(t.resolve("seg-000001/_zone"),
                ZoneMapDescriptor.FORMAT_VERSION_OFFSET, ZoneMapDescriptor.FORMAT_VERSION + 1), "_zone",
                "newer than this tradestore supports"),
            Arguments.of("zone map entry damaged in place", (Damage) t -> FileDamage.flip(t.resolve("seg-000001/_zone"),
                ZoneMapDescriptor.ENTRIES_OFFSET + 3), "_zone", "fail their checksum"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("damages")
    void shouldNameTheFileAndTheProblemWhenAFileIsDamaged(final String name, final Damage damage, final String file,
                                                          final String problem) throws IOException {
        final Schema schema = TestRows.allTypes(Layout.COLUMN, 8);
        TestRows.fill(dir, schema, 20);
        damage.apply(dir.resolve("all_types"));
        try (Store store = Store.open(dir)) {
            assertThatThrownBy(() -> store.table("all_types").reader()).as(name).isInstanceOf(StoreException.class)
                .hasMessageContaining(file).hasMessageContaining(problem);
            assertThatThrownBy(() -> store.table("all_types").writer()).as(name).isInstanceOf(StoreException.class)
                .hasMessageContaining(file).hasMessageContaining(problem);
        }
        TestRows.assertNoNativeLeaks();
    }

    /**
     * A file cut short under an open reader (its mapping now reaches past the file's end, where a read faults): the
     * next snapshot that checks the lengths (every one with the check interval at 0) names it without reading it.
     */
    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldNameAFileCutShortUnderAnOpenReader(final Layout layout) throws IOException {
        final Schema schema = TestRows.allTypes(layout, 8);
        TestRows.fill(dir, schema, 20);
        final Path victim = dir.resolve("all_types").resolve("seg-000001")
            .resolve(layout == Layout.ROW ? "rows.d" : "l.d");
        final long mapped = Files.size(victim);
        try (TestRows.TemporaryProperty everySnapshot =
            new TestRows.TemporaryProperty(TableReader.FILE_CHECK_PROPERTY, "0");
             Store store = Store.open(dir); TableReader reader = store.table("all_types").reader()) {
            assertThat(reader.snapshot().rowCount()).isEqualTo(20);
            truncate(victim, 3);
            assertThatThrownBy(reader::snapshot).isInstanceOf(StoreException.class)
                .hasMessage("damaged data in all_types: segment 1 file "
                + victim + " is 3 bytes, shorter than the " + mapped
                + " bytes mapped (truncated while mapped); restore the table from a"
                + " copy, or reload it");
        }
    }

    /**
     * With an interval, a round of the check takes two segments per snapshot (a table fed all day has hundreds of
     * files): a file cut short in the tenth segment is named by the fifth snapshot of the round, and by every one after
     * it.
     */
    @Test
    void shouldCheckTheFilesInRoundsOfTwoSegmentsPerSnapshot() throws Exception {
        final Schema schema = TestRows.allTypes(Layout.COLUMN, 8);
        TestRows.fill(dir, schema, 80);
        final Path victim = dir.resolve("all_types").resolve("seg-000009").resolve("l.d");
        try (TestRows.TemporaryProperty interval =
            new TestRows.TemporaryProperty(TableReader.FILE_CHECK_PROPERTY, "300");
             Store store = Store.open(dir); TableReader reader = store.table("all_types").reader()) {
            Thread.sleep(310); // past the interval: the next snapshot starts a round, the fifth ends it
            for (int call = 0; call < 5; call++) {
                reader.release(reader.acquire());
            }
            truncate(victim, 3);
            Thread.sleep(310);
            for (int call = 1; call <= 4; call++) {
                final TableSnapshot snap = reader.acquire();
                assertThat(snap.segmentCount()).as("call %d", call).isEqualTo(10);
                reader.release(snap);
            }
            for (int call = 5; call <= 7; call++) {
                assertThatThrownBy(reader::acquire).as("call %d", call).isInstanceOf(StoreException.class)
                    .hasMessageStartingWith("damaged data in all_types: segment 9 file " + victim + " is 3 bytes");
            }
            // callers at once: those that do not get to check again fail too, none reads the cut mapping
            final java.util.concurrent.atomic.AtomicInteger handedOut = new java.util.concurrent.atomic.AtomicInteger();
            final Thread[] threads = new Thread[4];
            for (int t = 0; t < threads.length; t++) {
                threads[t] = new Thread(() -> {
                    for (int i = 0; i < 2_000; i++) {
                        try {
                            reader.release(reader.acquire());
                            handedOut.incrementAndGet();
                        } catch (final StoreException expected) {
                            // the cut file, named
                        }
                    }
                });
                threads[t].start();
            }
            for (final Thread t : threads) {
                t.join();
            }
            assertThat(handedOut).hasValue(0);
        }
    }

    @Test
    void shouldDetectAFlippedByteAnywhereInTheCommittedTransactionSlot() throws IOException {
        final Schema schema = TestRows.allTypes(Layout.ROW, 8);
        TestRows.fill(dir, schema, 13);
        final Path txn = dir.resolve("all_types").resolve("_txn");
        final byte[] good = Files.readAllBytes(txn);
        final int slot = TxnDescriptor.slotOffset(1, 2);
        for (int offset = slot; offset < slot + TxnDescriptor.slotLength(2); offset++) {
            Files.write(txn, good);
            flip(txn, offset);
            try (Store store = Store.open(dir)) {
                final int at = offset;
                assertThatThrownBy(() -> store.table("all_types").reader()).as("byte %d", at)
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining(txn.toString()).hasMessageContaining("corrupted transaction file");
            }
        }
        Files.write(txn, good);
        try (Store store = Store.open(dir); TableReader reader = store.table("all_types").reader()) {
            TestRows.verifyRows(reader.snapshot(), 0, 13);
        }
    }

    /** Fails with "No space left on device" on every file from the armed one on, until disarmed. */
    static final class FullDisk implements FileAllocator {
        final AtomicInteger countdown = new AtomicInteger(Integer.MAX_VALUE);
        final AtomicInteger allocations = new AtomicInteger();

        void failFrom(final int nth) {
            countdown.set(nth);
        }

        void clear() {
            countdown.set(Integer.MAX_VALUE);
        }

        @Override
        public void allocate(final Path path, final long length) throws IOException {
            allocations.incrementAndGet();
            if (countdown.decrementAndGet() <= 0) {
                countdown.set(0);
                throw new IOException("No space left on device");
            }
            FileAllocator.platform().allocate(path, length);
        }

        @Override
        public String describe() {
            return "full-disk fault injector";
        }
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldReportAFullDiskAtSegmentCreationAndRecoverWhenItClears(final Layout layout) {
        final FullDisk disk = new FullDisk();
        final Schema schema = TestRows.allTypes(layout, 8);
        try (Store store = Store.open(dir, disk)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = table.writer(); TableReader reader = table.reader()) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                TestRows.append(w, f, 0, 20);
                w.commit();
                final long mappings = MappedFile.mappingCount();
                // the next segment's second file fails (in ROW: its zone map)
                disk.failFrom(2);
                TestRows.append(w, f, 20, 24);
                assertThatThrownBy(() -> w.append(f)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("No space left on device").hasMessageContaining("seg-000003")
                    .hasMessageContaining("free disk space");
                assertThat(MappedFile.mappingCount()).as("nothing of the failed segment stays mapped")
                    .isEqualTo(mappings);
                assertThat(w.committedRows()).isEqualTo(20);
                assertThat(w.pendingRows()).isEqualTo(24);
                assertThatThrownBy(() -> w.append(f)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("No space left");
                assertThat(reader.snapshot().rowCount()).isEqualTo(20);
                w.rollback();
                assertThat(reader.snapshot().rowCount()).isEqualTo(20);
                disk.clear();
                TestRows.append(w, f, 20, 45);
                w.commit();
                TestRows.verifyRows(reader.snapshot(), 0, 45);
            }
        }
        TestRows.assertNoNativeLeaks();
        try (Store store = Store.open(dir); TableReader reader = store.table("all_types").reader()) {
            TestRows.verifyRows(reader.snapshot(), 0, 45);
            TestRows.assertZonesExact(reader.snapshot());
        }
    }

    @Test
    void shouldReportAFullDiskHitByTheBackgroundSegmentCreation() {
        final FullDisk disk = new FullDisk();
        final Schema schema = TestRows.allTypes(Layout.COLUMN, 1 << 16);
        try (Store store = Store.open(dir, disk)) {
            final Table table = store.createTable(schema);
            // Segment 0 (11 files) is created in the background when the writer opens, segment 1 when the first append
            // opens segment 0: fail segment 1's third file. Armed before the writer opens, so the count does not depend
            // on how far the background creation of segment 0 got (it raced the arming when set after the open).
            disk.failFrom(11 + 3);
            try (TableWriter w = table.writer()) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                TestRows.write(w.append(f), 0);
                TestRows.append(w, f, 1, 1 << 16);
                w.commit();
                assertThatThrownBy(() -> w.append(f)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("No space left on device").hasMessageContaining("seg-000001");
                assertThat(w.committedRows()).isEqualTo(1 << 16);
                disk.clear();
                TestRows.append(w, f, w.pendingRows(), (1 << 16) + 100);
                w.commit();
            }
            try (TableReader reader = table.reader()) {
                TestRows.verifyRows(reader.snapshot(), 0, (1 << 16) + 100);
            }
        }
    }

    @Test
    void shouldLeaveNoTableBehindWhenCreationHitsAFullDisk() {
        final FullDisk disk = new FullDisk();
        try (Store store = Store.open(dir, disk)) {
            disk.failFrom(1);
            assertThatThrownBy(() -> store.createTable(TestRows.allTypes(Layout.COLUMN, 8)))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("cannot create table 'all_types'")
                .hasMessageContaining("No space left on device");
            assertThat(store.hasTable("all_types")).isFalse();
            assertThat(store.tableNames()).isEmpty();
            assertThat(dir.resolve("all_types")).doesNotExist();
            disk.clear();
            store.createTable(TestRows.allTypes(Layout.COLUMN, 8));
            assertThat(store.tableNames()).containsExactly("all_types");
        }
    }

    @Test
    void shouldRefuseToCreateOverADamagedTableDirectory() throws IOException {
        TestRows.fill(dir, TestRows.allTypes(Layout.COLUMN, 8), 3);
        Files.delete(dir.resolve("all_types").resolve("_schema.json"));
        try (Store store = Store.open(dir)) {
            assertThatThrownBy(() -> store.openOrCreate(TestRows.allTypes(Layout.COLUMN, 8)))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("_schema.json").hasMessageContaining("damaged");
        }
        assertThat(dir.resolve("all_types").resolve("_txn")).exists();
    }
}
