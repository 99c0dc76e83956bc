package io.tradestore.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.PartitionBy;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.schema.SchemaCodec;
import io.tradestore.core.segment.SegmentDescriptor;
import io.tradestore.core.segment.ZoneMapDescriptor;

/**
 * A partitioned table's segments each hold rows of one period: the writer ends a segment early when a row of another
 * period comes (late rows included), readers and flyweights skip the unused row numbers, commits refuse a segment
 * spanning two periods, and what a rollback or crash leaves of an early end is forgotten.
 */
@ExtendWith(TestRows.NoLeaks.class)
class PartitionTest {
    private static final int SEGMENT = 64;
    private static final long HOUR = TimeUnit.HOURS.toNanos(1);
    private static final long DAY = TimeUnit.DAYS.toNanos(1);
    /** 2023-11-14T22:13:20Z: two hours before a day's end. */
    private static final long T0 = 1_700_000_000_000_000_000L;

    @TempDir
    Path dir;

    static Schema schema(final Layout layout, final PartitionBy by) {
        final Schema base = TradesSchema.SCHEMA;
        final Schema.Builder b = Schema.builder("trades").layout(layout).segmentRows(SEGMENT).blockRows(16)
            .timestamp("ts").partitionBy(by);
        for (final Column c : base.columns()) {
            b.column(c.name(), c.typeName());
        }
        return b.build();
    }

    @ParameterizedTest
    @CsvSource({"COLUMN, DAY, true, 1", "ROW, HOUR, true, 2", "COLUMN, MONTH, false, 3", "ROW, DAY, false, 4",
        "COLUMN, HOUR, false, 5", "ROW, MONTH, true, 6"})
    void shouldKeepEverySegmentInOnePeriodThroughCommitsRollbacksAndReopens(final Layout layout, final PartitionBy by,
        final boolean staging, final long seed) {
        final Random rnd = new Random(seed);
        final long step = by == PartitionBy.HOUR ? HOUR / 24 : by == PartitionBy.DAY ? DAY / 24 : DAY * 3 / 2;
        final List<long[]> committed = new ArrayList<>();
        final List<long[]> pending = new ArrayList<>();
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema(layout, by));
            TableWriter w = TestRows.stagedWriter(table, Durability.NONE, 16, staging, false);
            final TradeFlyweight f = new TradeFlyweight();
            long t = T0;
            long id = 0;
            try {
                for (int i = 0; i < 2500; i++) {
                    final int op = rnd.nextInt(100);
                    if (op < 88) {
                        t += rnd.nextInt(8) == 0 ? step : rnd.nextInt((int) (step / 1_000_000)) * 1_000_000L;
                        // now and then a late row, a period or two back
                        final long ts = rnd.nextInt(40) == 0 ? t - (1 + rnd.nextInt(2)) * step * 12 : t;
                        if (rnd.nextBoolean()) {
                            w.append(f, ts).tradeId(id).quantity(id + 1).venue("V" + id % 3);
                        } else {
                            f.bind(w);
                            f.wrap(w.appendRow(ts)).tradeId(id).quantity(id + 1).venue("V" + id % 3);
                        }
                        pending.add(new long[] {id++, ts});
                    } else if (op < 96) {
                        w.commit();
                        committed.addAll(pending);
                        pending.clear();
                    } else if (op < 98) {
                        w.rollback();
                        pending.clear();
                    } else {
                        w.close();
                        pending.clear();
                        w = TestRows.stagedWriter(table, Durability.NONE, 16, staging, false);
                    }
                    if (i % 1000 == 999) {
                        verify(table, by, committed);
                    }
                }
                w.commit();
                committed.addAll(pending);
            } finally {
                w.close();
            }
            final int early = verify(table, by, committed);
            assertThat(early).as("segments ended before their last row").isGreaterThan(10);
        }
        try (Store store = Store.open(dir)) {
            verify(store.table("trades"), by, committed);
        }
    }

    /** @return how many segments were ended early. */
    private static int verify(final Table table, final PartitionBy by, final List<long[]> committed) {
        try (TableReader r = table.reader()) {
            final TableSnapshot snap = r.snapshot();
            final TradeFlyweight g = new TradeFlyweight().bind(snap);
            int i = 0;
            while (g.next()) {
                assertThat(i).as("rows read").isLessThan(committed.size());
                assertThat(new long[] {g.tradeId(), g.ts()}).as("row %d at %d", i, g.row()).isEqualTo(committed.get(i));
                assertThat(g.quantity()).isEqualTo(committed.get(i)[0] + 1);
                i++;
            }
            assertThat(i).isEqualTo(committed.size());
            assertThat(snap.liveRows()).isEqualTo(committed.size());
            long rows = 0;
            int early = 0;
            final int ts = snap.schema().timestampIndex();
            for (int s = snap.firstSegment(); s < snap.segmentCount(); s++) {
                final int n = snap.segmentRowCount(s);
                rows += n;
                final long min = snap.segment(s).zoneMin(-1, ts);
                final long max = snap.segment(s).zoneMax(-1, ts);
                assertThat(by.floor(min)).as("segment %d of %d rows", s, n).isEqualTo(by.floor(max));
                if (snap.segmentSealed(s) && n < SEGMENT) {
                    early++;
                }
            }
            assertThat(rows).isEqualTo(committed.size());
            assertThat(new TableCheck("trades", 10).all(snap).problems()).isEmpty();
            return early;
        }
    }

    @Test
    void shouldRefuseACommitWhoseRowsSpanTwoPeriodsInOneSegment() {
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema(Layout.COLUMN, PartitionBy.DAY));
            try (TableWriter w = table.writer()) {
                final TradeFlyweight f = new TradeFlyweight();
                w.append(f, T0).tradeId(1);
                w.commit();
                // the timestamp set through the flyweight, after the row was placed for the day of T0
                w.append(f, T0 + HOUR).tradeId(2).ts(T0 + DAY);
                assertThatThrownBy(w::commit).isInstanceOf(StoreException.class)
                    .hasMessageContaining("segment 0 would hold rows of 2023-11-14 and 2023-11-15")
                    .hasMessageContaining("partitioned by DAY");
                w.rollback();
                w.append(f, T0 + DAY).tradeId(2);
                w.commit();
                assertThat(w.committedRows()).isEqualTo(SEGMENT + 1);
            }
            try (TableReader r = table.reader()) {
                assertThat(r.snapshot().liveRows()).isEqualTo(2);
                assertThat(r.snapshot().segmentRowCount(0)).isEqualTo(1);
            }
        }
    }

    @Test
    void shouldForgetAnEarlyEndThatNoCommitMovedPast() throws IOException {
        final Schema schema = schema(Layout.COLUMN, PartitionBy.DAY);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = table.writer()) {
                final TradeFlyweight f = new TradeFlyweight();
                for (int i = 0; i < 10; i++) {
                    w.append(f, T0 + i).tradeId(i);
                }
                w.commit();
                w.append(f, T0 + DAY).tradeId(10); // ends segment 0 after 10 rows
                w.rollback();
                // the segment goes on where it was
                for (int i = 10; i < 20; i++) {
                    w.append(f, T0 + i).tradeId(i);
                }
                w.commit();
                assertThat(w.committedRows()).isEqualTo(20);
            }
        }
        // a crash between an early end and its commit leaves the end in the zone map of the last segment
        try (MappedFile zone = MappedFile.open(SegmentDescriptor.directory(dir.resolve("trades"), 0)
            .resolve(ZoneMapDescriptor.FILE_NAME), ZoneMapDescriptor.ENTRIES_OFFSET, true)) {
            NativeMemory.putInt(zone.address() + ZoneMapDescriptor.ENDED_ROWS_OFFSET, 20);
        }
        try (Store store = Store.open(dir)) {
            final Table table = store.table("trades");
            try (TableReader r = table.reader()) {
                assertThat(r.snapshot().liveRows()).isEqualTo(20);
            }
            try (TableWriter w = table.writer()) {
                final TradeFlyweight f = new TradeFlyweight();
                for (int i = 20; i < SEGMENT + 5; i++) {
                    w.append(f, T0 + i).tradeId(i);
                }
                w.commit();
            }
            try (TableReader r = table.reader()) {
                final TableSnapshot snap = r.snapshot();
                assertThat(snap.segmentRowCount(0)).isEqualTo(SEGMENT);
                assertThat(snap.liveRows()).isEqualTo(SEGMENT + 5);
                final TradeFlyweight g = new TradeFlyweight().bind(snap);
                long n = 0;
                while (g.next()) {
                    assertThat(g.tradeId()).isEqualTo(n++);
                }
                assertThat(n).isEqualTo(SEGMENT + 5);
            }
        }
    }

    @Test
    void shouldGiveBackTheDiskBlocksOfTheRowsASegmentEndedEarlyNeverHolds() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(MappedFile.writeAvailable(), "punching holes needs posix");
        final Schema schema = schema(Layout.COLUMN, PartitionBy.DAY).with("big", Layout.COLUMN, 1 << 16, 1 << 12);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = table.writer()) {
                final TradeFlyweight f = new TradeFlyweight();
                for (int i = 0; i < 1000; i++) {
                    w.append(f, T0 + i).tradeId(i);
                }
                w.append(f, T0 + DAY).tradeId(1000);
                w.commit();
                final long full = (long) schema.bytesPerRow() << 16;
                // segment 0 keeps 1,000 rows of its 65,536: a few pages per file stay allocated
                assertThat(allocated(table.directory().resolve("seg-000000"))).isLessThan(full / 8);
                assertThat(allocated(table.directory().resolve("seg-000001"))).isGreaterThan(full / 2);
            }
        }
    }

    /** @return bytes of disk blocks the files under a directory hold (du). */
    private static long allocated(final Path directory) throws IOException, InterruptedException {
        final Process p = new ProcessBuilder("du", "-s", "-B1", directory.toString()).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return Long.parseLong(out.split("\\s+")[0]);
    }

    @Test
    void shouldDropWholePeriodsOnly() {
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema(Layout.COLUMN, PartitionBy.DAY));
            try (TableWriter w = table.writer()) {
                final TradeFlyweight f = new TradeFlyweight();
                // days 0..4, 100 rows each (a full segment and a short one per day)
                for (int d = 0; d < 5; d++) {
                    for (int i = 0; i < 100; i++) {
                        w.append(f, T0 + d * DAY + i * TimeUnit.SECONDS.toNanos(1)).tradeId(d * 100L + i);
                    }
                }
                w.commit();
                // a cut in the middle of day 2 keeps day 2 whole
                final Retention r = w.dropOlderThan(T0 + 2 * DAY + HOUR);
                assertThat(r.segments()).isEqualTo(4);
                assertThat(r.rows()).isEqualTo(200);
                assertThat(r.firstRow()).isEqualTo(4L * SEGMENT);
            }
            try (TableReader reader = table.reader()) {
                final TableSnapshot snap = reader.snapshot();
                assertThat(snap.liveRows()).isEqualTo(300);
                final TradeFlyweight g = new TradeFlyweight().bind(snap);
                assertThat(g.next()).isTrue();
                assertThat(g.tradeId()).isEqualTo(200);
                // the cut the TTL schedule asks about is the start of the cut's day
                final long cut = RetentionRule.cut(snap, 2 * DAY, T0 + 10 * DAY);
                assertThat(cut).isEqualTo(PartitionBy.DAY.floor(T0 + 4 * DAY + 99 * TimeUnit.SECONDS.toNanos(1)
                    - 2 * DAY));
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"1, 700", "2, 4096"})
    void shouldLoadCsvRunsOfOnePeriodPerSegment(final int threads, final int chunkBytes) throws IOException {
        final StringBuilder csv = new StringBuilder("trade_id,ts,client_id,venue,instrument,side,price,quantity\n");
        final List<long[]> rows = new ArrayList<>();
        final Random rnd = new Random(7);
        long t = T0;
        for (int i = 0; i < 3000; i++) {
            t += rnd.nextInt(120) * TimeUnit.SECONDS.toNanos(1);
            final long ts = rnd.nextInt(100) == 0 ? t - DAY : t; // a late row a day back now and then
            rows.add(new long[] {i, ts});
            csv.append(i).append(',').append(java.time.Instant.ofEpochSecond(0, ts)).append(",1,V,S,B,1.5,")
                .append(i + 1).append('\n');
        }
        final Path file = java.nio.file.Files.writeString(dir.resolve("in.csv"), csv);
        try (Store store = Store.open(dir.resolve("store"))) {
            final Table table = store.createTable(schema(Layout.COLUMN, PartitionBy.HOUR));
            final io.tradestore.core.ingest.LoadResult r = io.tradestore.core.ingest.CsvLoader.load(table,
                List.of(file), io.tradestore.core.ingest.LoadOptions.defaults().withThreads(threads)
                    .withChunkBytes(chunkBytes), null);
            assertThat(r.rowsLoaded()).isEqualTo(3000);
            assertThat(verify(table, PartitionBy.HOUR, rows)).isGreaterThan(30);
        }
    }

    @Test
    void shouldRefuseToPartitionWithoutATimestampAndRoundTripTheSchema() {
        final Schema s = schema(Layout.ROW, PartitionBy.HOUR);
        assertThat(SchemaCodec.parse(SchemaCodec.toJson(s, false), "test")).isEqualTo(s);
        assertThat(SchemaCodec.toJson(s, false)).contains("\"partitionBy\":\"HOUR\"");
        assertThat(SchemaCodec.toJson(TradesSchema.SCHEMA, false)).doesNotContain("partitionBy");
        assertThatThrownBy(() -> Schema.builder("t").column("x", "i64").partitionBy(PartitionBy.DAY).build())
            .hasMessageContaining("/partitionBy").hasMessageContaining("designated timestamp");
        assertThatThrownBy(() -> SchemaCodec.parse("{\"name\":\"t\",\"timestamp\":\"ts\",\"partitionBy\":\"WEEK\","
            + "\"columns\":[{\"name\":\"ts\",\"type\":\"timestamp\"}]}", "test"))
            .hasMessageContaining("/partitionBy: unknown partitioning 'WEEK'");
    }

    @Test
    void shouldNameAndBoundPeriods() {
        final long t = T0; // 2023-11-14T22:13:20Z
        assertThat(PartitionBy.DAY.label(PartitionBy.DAY.floor(t))).isEqualTo("2023-11-14");
        assertThat(PartitionBy.HOUR.label(PartitionBy.HOUR.floor(t))).isEqualTo("2023-11-14T22");
        assertThat(PartitionBy.MONTH.label(PartitionBy.MONTH.floor(t))).isEqualTo("2023-11");
        assertThat(PartitionBy.MONTH.next(PartitionBy.MONTH.floor(t))).isEqualTo(
            java.time.Instant.parse("2023-12-01T00:00:00Z").getEpochSecond() * 1_000_000_000L);
        // before 1970: floor, not truncation toward zero
        assertThat(PartitionBy.DAY.floor(-1)).isEqualTo(-DAY);
        assertThat(PartitionBy.MONTH.floor(-1)).isEqualTo(
            java.time.Instant.parse("1969-12-01T00:00:00Z").getEpochSecond() * 1_000_000_000L);
        assertThat(PartitionBy.parse(" day ", "x")).isEqualTo(PartitionBy.DAY);
    }
}
