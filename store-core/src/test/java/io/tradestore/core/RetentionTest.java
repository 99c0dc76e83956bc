package io.tradestore.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.txn.TxnDescriptor;

/**
 * Retention drops whole sealed segments from the front of a table: committed and synced before files go, readers
 * holding an older snapshot finish on their mappings, flyweights and checks start at the first row kept, and a crash
 * between the commit and the deletion leaves files the next writer deletes.
 */
@ExtendWith(TestRows.NoLeaks.class)
class RetentionTest {
    private static final int SEGMENT = 64;
    private static final long HOUR = TimeUnit.HOURS.toNanos(1);
    private static final long T0 = 1_700_000_000_000_000_000L;

    @TempDir
    Path dir;

    private static Schema schema(final Layout layout) {
        return TradesSchema.SCHEMA.with("trades", layout, SEGMENT, 16);
    }

    /** Row r is at T0 + r hours: segment k holds hours [64k, 64k + 63]. */
    private static void append(final TableWriter w, final long from, final long to) {
        append(w, from, to, -1);
    }

    /** As above, with row {@code late} a thousand segments' time later. */
    private static void append(final TableWriter w, final long from, final long to, final long late) {
        final TradeFlyweight f = new TradeFlyweight();
        for (long r = from; r < to; r++) {
            w.append(f).tradeId(r).ts(T0 + (r == late ? 1000 * SEGMENT : r) * HOUR).clientId(r % 7).venue("XLON")
                .instrument("SYM" + r % 3).side('B').price(100_000_000L + r).quantity(r + 1);
        }
        w.commit();
    }

    private static long sumQuantity(final TableSnapshot snap) {
        final TradeFlyweight f = new TradeFlyweight();
        f.bind(snap);
        long sum = 0;
        while (f.next()) {
            sum += f.quantity();
        }
        return sum;
    }

    /** @return whether a TTL of {@code olderThan} would drop anything now, asked as a schedule asks. */
    private static boolean due(final TableReader reader, final long olderThan, final long now) {
        final TableSnapshot snap = reader.acquire();
        try {
            return RetentionRule.due(snap, RetentionRule.cut(snap, olderThan, now));
        } finally {
            reader.release(snap);
        }
    }

    /** Sum of r + 1 for r in [from, to). */
    private static long expected(final long from, final long to) {
        return (to * (to + 1) - from * (from + 1)) / 2;
    }

    @Test
    void shouldDropWholeSealedSegmentsOlderThanTheCutAndKeepOldSnapshotsReadable() throws IOException {
        for (final Layout layout : Layout.values()) {
            final Path storeDir = dir.resolve(layout.name());
            try (Store store = Store.open(storeDir)) {
                final Table t = store.createTable(schema(layout));
                final TableReader reader = t.reader();
                try (TableWriter w = t.writer()) {
                    append(w, 0, 5 * SEGMENT + 10);
                    // the newest row is hour 5S+9 (in the past, so the reference): keeping 5S+9 hours keeps row 0
                    final long now = System.currentTimeMillis() * 1_000_000L;
                    assertThat(due(reader, (5 * SEGMENT + 9) * HOUR, now)).isFalse();
                    assertThat(due(reader, (3 * SEGMENT + 10) * HOUR, now)).isTrue();
                    final TableSnapshot before = reader.acquire();
                    assertThat(sumQuantity(before)).isEqualTo(expected(0, 5 * SEGMENT + 10));
                    // the cut falls inside segment 2: segments 0 and 1 go, segment 2 stays (its newest row is newer)
                    final Retention r = w.dropOlderThan(T0 + (2 * SEGMENT + 5) * HOUR);
                    assertThat(r.segments()).isEqualTo(2);
                    assertThat(r.rows()).isEqualTo(2L * SEGMENT);
                    assertThat(r.firstRow()).isEqualTo(2L * SEGMENT);
                    assertThat(w.firstRow()).isEqualTo(2L * SEGMENT);
                    assertThat(SegmentDeletionTest.segmentDirectories(t.directory()))
                        .doesNotContain("seg-000000", "seg-000001").contains("seg-000002");
                    // a snapshot taken before the drop still reads every row from its mappings
                    assertThat(sumQuantity(before)).isEqualTo(expected(0, 5 * SEGMENT + 10));
                    final TableSnapshot after = reader.acquire();
                    assertThat(after.firstSegment()).isEqualTo(2);
                    assertThat(after.firstRow()).isEqualTo(2L * SEGMENT);
                    assertThat(after.liveRows()).isEqualTo(3L * SEGMENT + 10);
                    assertThat(sumQuantity(after)).isEqualTo(expected(2 * SEGMENT, 5 * SEGMENT + 10));
                    assertThatThrownBy(() -> after.segment(1)).isInstanceOf(IndexOutOfBoundsException.class)
                        .hasMessageContaining("dropped by retention");
                    assertThatThrownBy(() -> new TradeFlyweight().bind(after).wrap(5))
                        .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("dropped by retention");
                    assertThat(reader.retiredSegments()).isEqualTo(2);
                    assertThat(reader.release(before)).isEqualTo(2);
                    assertThat(reader.retiredSegments()).isZero();
                    reader.release(after);
                    assertThat(new TableCheck("trades", 10).all(reader.acquire()).problems()).isEmpty();
                    // a cut that reaches past every sealed segment keeps the open one
                    final Retention all = w.dropOlderThan(Long.MAX_VALUE);
                    assertThat(all.segments()).isEqualTo(3);
                    append(w, 5 * SEGMENT + 10, 6 * SEGMENT + 1);
                    assertThat(w.dropOlderThan(T0).segments()).isZero();
                }
                reader.close();
            }
            // the drop outlives the writer and the process: a new writer and reader start at the first row kept
            try (Store store = Store.open(storeDir)) {
                final Table t = store.table("trades");
                try (TableReader reader = t.reader()) {
                    final TableSnapshot s = reader.snapshot();
                    assertThat(s.firstRow()).isEqualTo(5L * SEGMENT);
                    assertThat(sumQuantity(s)).isEqualTo(expected(5 * SEGMENT, 6 * SEGMENT + 1));
                }
                try (TableWriter w = t.writer()) {
                    assertThat(w.firstRow()).isEqualTo(5L * SEGMENT);
                    append(w, 6 * SEGMENT + 1, 7 * SEGMENT);
                    assertThat(new TradeFlyweight().bind(w).next()).isTrue();
                }
            }
        }
    }

    @Test
    void shouldDropEverySegmentOfAFullTableAndAppendAfterIt() {
        for (final Layout layout : Layout.values()) {
            final Path storeDir = dir.resolve("full-" + layout);
            try (Store store = Store.open(storeDir)) {
                final Table t = store.createTable(schema(layout));
                try (TableWriter w = t.writer()) {
                    append(w, 0, 3 * SEGMENT);
                    assertThat(w.dropOlderThan(Long.MAX_VALUE).segments()).isEqualTo(3);
                    try (TableReader r = t.reader()) {
                        assertThat(r.snapshot().liveRows()).isZero();
                        assertThat(sumQuantity(r.snapshot())).isZero();
                    }
                    append(w, 3 * SEGMENT, 3 * SEGMENT + 7);
                }
                try (TableWriter w = t.writer()) {
                    append(w, 3 * SEGMENT + 7, 4 * SEGMENT);
                    assertThat(w.dropOlderThan(Long.MAX_VALUE).segments()).isEqualTo(1);
                }
                // every segment is dropped and the table ends on a segment boundary: a writer opens on nothing mapped
                try (TableWriter w = t.writer()) {
                    append(w, 4 * SEGMENT, 4 * SEGMENT + 2);
                }
                try (TableReader r = t.reader()) {
                    assertThat(r.snapshot().firstRow()).isEqualTo(4L * SEGMENT);
                    assertThat(sumQuantity(r.snapshot())).isEqualTo(expected(4 * SEGMENT, 4 * SEGMENT + 2));
                }
            }
        }
    }

    @Test
    void shouldStopAtTheFirstSegmentWithANewerRow() {
        try (Store store = Store.open(dir)) {
            final Table t = store.createTable(schema(Layout.COLUMN));
            try (TableWriter w = t.writer()) {
                // a late row in segment 1 holds it and segment 2 back, though segment 2 is older than the cut
                append(w, 0, 3 * SEGMENT + 1, SEGMENT + 3);
                final Retention r = w.dropOlderThan(T0 + 3 * SEGMENT * HOUR);
                assertThat(r.segments()).isEqualTo(1);
                assertThat(w.dropOlderThan(T0 + 3 * SEGMENT * HOUR).segments()).isZero();
            }
        }
    }

    @Test
    void shouldDeleteTheFilesOfADropACrashInterruptedWhenTheNextWriterOpens() throws IOException {
        final Path saved = dir.resolve("saved");
        try (Store store = Store.open(dir.resolve("s"))) {
            final Table t = store.createTable(schema(Layout.COLUMN));
            try (TableWriter w = t.writer()) {
                append(w, 0, 3 * SEGMENT + 1);
                copyTree(t.directory().resolve("seg-000000"), saved);
                w.dropOlderThan(T0 + SEGMENT * HOUR);
            }
            // as if the process died between the commit and the deletion
            copyTree(saved, t.directory().resolve("seg-000000"));
            try (TableReader r = t.reader()) {
                assertThat(r.snapshot().firstSegment()).isEqualTo(1);
            }
            try (TableWriter w = t.writer()) {
                assertThat(SegmentDeletionTest.segmentDirectories(t.directory())).doesNotContain("seg-000000");
                assertThat(w.firstRow()).isEqualTo(SEGMENT);
            }
        }
    }

    @Test
    void shouldReadAFormat1TransactionFileAsNothingDropped() {
        try (Store store = Store.open(dir)) {
            final Table t = store.createTable(schema(Layout.COLUMN));
            try (TableWriter w = t.writer()) {
                append(w, 0, SEGMENT + 1);
            }
            final Path txn = t.directory().resolve(TxnDescriptor.FILE_NAME);
            try (MappedFile f = MappedFile.open(txn, TxnDescriptor.SLOTS_OFFSET, true)) {
                NativeMemory.putInt(f.address() + TxnDescriptor.FORMAT_VERSION_OFFSET, TxnDescriptor.FORMAT_VERSION_1);
            }
            try (TableReader r = t.reader()) {
                assertThat(r.snapshot().firstRow()).isZero();
                assertThat(sumQuantity(r.snapshot())).isEqualTo(expected(0, SEGMENT + 1));
            }
            try (TableWriter w = t.writer()) {
                assertThat(w.dropOlderThan(Long.MAX_VALUE).segments()).isEqualTo(1);
            }
            try (MappedFile f = MappedFile.open(txn, TxnDescriptor.SLOTS_OFFSET, false)) {
                // a table with dropped rows is format 2: an older tradestore refuses it instead of missing its rows
                assertThat(NativeMemory.getInt(f.address() + TxnDescriptor.FORMAT_VERSION_OFFSET))
                    .isEqualTo(TxnDescriptor.FORMAT_VERSION);
            }
        }
    }

    @Test
    void shouldRefuseRetentionOnATableWithoutATimestamp() {
        try (Store store = Store.open(dir)) {
            final Table t = store.createTable(Schema.builder("plain").segmentRows(8).blockRows(4).column("l", "i64")
                .build());
            try (TableWriter w = t.writer()) {
                assertThatThrownBy(() -> w.dropOlderThan(0)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("no designated timestamp");
            }
        }
    }

    @Test
    void shouldReadDurationsAndCutAtTheNewestRowCappedByTheClock() {
        assertThat(RetentionRule.parse("30d")).isEqualTo(TimeUnit.DAYS.toNanos(30));
        assertThat(RetentionRule.parse(" 2 weeks ")).isEqualTo(TimeUnit.DAYS.toNanos(14));
        assertThat(RetentionRule.parse("36h")).isEqualTo(TimeUnit.HOURS.toNanos(36));
        assertThat(RetentionRule.parse("90m")).isEqualTo(TimeUnit.MINUTES.toNanos(90));
        assertThat(RetentionRule.parse("P30D")).isEqualTo(TimeUnit.DAYS.toNanos(30));
        assertThat(RetentionRule.parse("pt36h")).isEqualTo(TimeUnit.HOURS.toNanos(36));
        assertThat(RetentionRule.format(TimeUnit.DAYS.toNanos(14))).isEqualTo("2w");
        assertThat(RetentionRule.format(TimeUnit.HOURS.toNanos(36))).isEqualTo("36h");
        assertThat(RetentionRule.format(TimeUnit.DAYS.toNanos(30))).isEqualTo("30d");
        assertThatThrownBy(() -> RetentionRule.parse("3M")).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("months and years are not fixed lengths");
        assertThatThrownBy(() -> RetentionRule.parse("0d")).hasMessageContaining("above zero");
        assertThatThrownBy(() -> RetentionRule.parse("soon")).hasMessageContaining("cannot read 'soon'");
        // the reference is the newest row unless it is in the future; a duration past the epoch range cuts nothing
        assertThat(RetentionRule.cut(1_000, 5_000, 100)).isEqualTo(900);
        assertThat(RetentionRule.cut(9_000, 5_000, 100)).isEqualTo(4_900);
        assertThat(RetentionRule.parse("999999999w")).isEqualTo(Long.MAX_VALUE);
        assertThat(RetentionRule.cut(-10, 5_000, Long.MAX_VALUE)).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void shouldKeepATablesTtlBesideItsSchema() {
        try (Store store = Store.open(dir)) {
            final Table t = store.createTable(schema(Layout.COLUMN));
            assertThat(t.ttlNanos()).isZero();
            t.ttlNanos(TimeUnit.DAYS.toNanos(30));
            assertThat(store.table("trades").ttlNanos()).isEqualTo(TimeUnit.DAYS.toNanos(30));
            assertThat(new TableCheck("trades", 10).all(t.reader().snapshot()).problems()).isEmpty();
            t.ttlNanos(0);
            assertThat(t.ttlNanos()).isZero();
            final Table plain = store.createTable(Schema.builder("plain").segmentRows(8).blockRows(4)
                .column("l", "i64").build());
            assertThatThrownBy(() -> plain.ttlNanos(1)).hasMessageContaining("no designated timestamp");
        }
    }

    static void copyTree(final Path from, final Path to) throws IOException {
        Files.createDirectories(to);
        try (var files = Files.list(from)) {
            for (final Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, to.resolve(f.getFileName()));
            }
        }
    }
}
