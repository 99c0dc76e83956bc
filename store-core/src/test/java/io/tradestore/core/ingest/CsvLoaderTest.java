package io.tradestore.core.ingest;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.Store;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TestRows;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.sample.TradeGenerator;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(TestRows.NoLeaks.class)
class CsvLoaderTest {
    @TempDir
    Path dir;

    /** A plain String-based reading of generated CSV (no quotes in it), as the reference. */
    static IngestFixtures.Summary reference(final List<Path> files) throws IOException {
        long rows = 0;
        long a = 0;
        long b = 0;
        long c = 0;
        long d = 0;
        long e = 0;
        long buys = 0;
        final LinkedHashSet<String> venues = new LinkedHashSet<>();
        final LinkedHashSet<String> instruments = new LinkedHashSet<>();
        final List<String> first = new ArrayList<>();
        for (final Path f : files) {
            final List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
            for (final String line : lines.subList(1, lines.size())) {
                final String[] x = line.split(",", -1);
                rows++;
                final long ts = Instant.parse(x[1]).getEpochSecond() * 1_000_000_000L + Instant.parse(x[1]).getNano();
                final long price = new java.math.BigDecimal(x[6]).movePointRight(6).longValueExact();
                a += Long.parseLong(x[0]);
                b += ts;
                c += Long.parseLong(x[2]);
                d += price;
                e += Long.parseLong(x[7]);
                buys += x[5].equals("B") ? 1 : 0;
                venues.add(x[3]);
                instruments.add(x[4]);
                if (first.size() < 50) {
                    first.add(x[0] + "|" + ts + "|" + x[2] + "|" + x[3] + "|" + x[4] + "|" + x[5] + "|" + price + "|"
                        + x[7]);
                }
            }
        }
        return new IngestFixtures.Summary(rows, a, b, c, d, e, buys, List.copyOf(venues), List.copyOf(instruments),
            first);
    }

    @ParameterizedTest
    @CsvSource({"1,4194304,true", "2,4096,true", "3,100,true", "2,64,true", "4,1000,true", "2,4096,false",
        "3,100,false"})
    void shouldLoadGeneratedTradesExactlyWhateverTheChunkingAndThreads(final int threads, final int chunkBytes,
    final boolean columnWrites)
        throws IOException {
        final Path csv = dir.resolve("t.csv");
        TradeGenerator.writeCsv(csv, 20_000, 7);
        final LoadResult r =
            IngestFixtures.load(dir.resolve("store"),
            LoadOptions.defaults().withThreads(threads).withChunkBytes(chunkBytes)
            .withMaxLineLength(256).withColumnWrites(columnWrites), csv);
        assertThat(r.rowsLoaded()).isEqualTo(20_000);
        assertThat(r.rowsRejected()).isZero();
        assertThat(IngestFixtures.summarise(dir.resolve("store"))).isEqualTo(reference(List.of(csv)));
    }

    @Test
    void shouldLoadGzipAndSeveralFilesInOrder() throws IOException {
        final Path a = dir.resolve("a.csv");
        final Path b = dir.resolve("b.csv.gz");
        TradeGenerator.writeCsv(a, 3_000, 1);
        final Path plainB = dir.resolve("b.plain");
        TradeGenerator.writeCsv(plainB, 5_000, 2);
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(b))) {
            out.write(Files.readAllBytes(plainB));
        }
        final LoadResult r = IngestFixtures.load(dir.resolve("store"),
            LoadOptions.defaults().withThreads(2).withChunkBytes(1000).withMaxLineLength(200), a, b);
        assertThat(r.rowsLoaded()).isEqualTo(8_000);
        assertThat(IngestFixtures.summarise(dir.resolve("store"))).isEqualTo(reference(List.of(a, plainB)));
    }

    /**
     * A named pipe (what {@code <(zcat x.csv.gz)} hands the command, or mkfifo) cannot be mapped, sized or seeked: it
     * loads as a stream, plain or gzip, with the same rows as the file, between regular files, in parallel chunks.
     */
    @ParameterizedTest
    @CsvSource({"false,4194304", "false,1000", "true,1000"})
    void shouldLoadFromANamedPipeAsFromTheFile(final boolean gzip, final int chunkBytes) throws Exception {
        final Path before = dir.resolve("before.csv");
        final Path csv = dir.resolve("t.csv");
        final Path after = dir.resolve("after.csv");
        TradeGenerator.writeCsv(before, 500, 3);
        TradeGenerator.writeCsv(csv, 20_000, 7);
        TradeGenerator.writeCsv(after, 700, 4);
        final byte[] bytes;
        if (gzip) {
            final java.io.ByteArrayOutputStream packed = new java.io.ByteArrayOutputStream();
            try (OutputStream out = new GZIPOutputStream(packed)) {
                out.write(Files.readAllBytes(csv));
            }
            bytes = packed.toByteArray();
        } else {
            bytes = Files.readAllBytes(csv);
        }
        final Path fifo = dir.resolve("pipe");
        final Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).redirectErrorStream(true).start();
        assertThat(mkfifo.waitFor(30, TimeUnit.SECONDS)).as("mkfifo ends").isTrue();
        assertThat(mkfifo.exitValue()).as("mkfifo exit code").isZero();
        // the writer blocks until the loader opens the pipe, as a shell's zcat would
        final CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try (OutputStream out = Files.newOutputStream(fifo)) {
                out.write(bytes);
            } catch (final IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        final LoadResult r =
            IngestFixtures.load(dir.resolve("store"), LoadOptions.defaults().withThreads(2).withChunkBytes(chunkBytes)
            .withMaxLineLength(256), before, fifo, after);
        writer.get(60, TimeUnit.SECONDS);
        assertThat(r.rowsLoaded()).isEqualTo(21_200);
        assertThat(IngestFixtures.summarise(dir.resolve("store"))).isEqualTo(reference(List.of(before, csv, after)));
    }

    /** Every column type the trades schema lacks, through both switches (unquoted and quoted fields), with nulls. */
    @Test
    void shouldLoadEveryColumnTypeWithNullsAndRangeChecks() {
        final Schema schema = Schema.builder("mixed").segmentRows(4).blockRows(2).column("ts", "timestamp")
            .column("a", "i8")
            .column("b", "i16").column("c", "i32").column("d", "i64").column("e", "f64").column("f", "decimal(2)")
            .column("g", "char")
            .column("h", "symbol").timestamp("ts").build();
        final Path csv = IngestFixtures.write(dir.resolve("mixed.csv"), "ts,a,b,c,d,e,f,g,h\n"
            + "1,127,-32767,2147483647,-9223372036854775807,1.5,12.34,x,AB\n"
            + "2,,,,,,,,\n"
            + "3,\"-127\",\"300\",\"-5\",\"0\",\"NaN\",\"-0.01\",\"~\",\"a symbol longer than 8 bytes\"\n"
            + "4,5,6,7,8,-2.5e3,0,Z,AB\n"
            + "5,128,6,7,8,1,1,q,CD\n"
            + "6,1,32768,7,8,1,1,q,CD\n"
            + "7,1,2,2147483648,8,1,1,q,CD\n"
            + "8,1,2,3,4,1,1,qq,CD\n"
            + "9,1,2,3,4,1e400,1,q,CD\n"
            + "10,-1,-2,-3,-4,1e-2,-1,q,CD\n");
        final LoadResult r =
            IngestFixtures.load(dir.resolve("store"), schema,
            LoadOptions.defaults().withOnError(OnError.SKIP).withThreads(2)
            .withChunkBytes(64).withMaxLineLength(200), csv);
        assertThat(r.rowsLoaded()).isEqualTo(5);
        assertThat(r.rowsRejected()).isEqualTo(5);
        assertThat(r.firstRejects()).containsExactly(
            csv + ":6:3: column 'a': '128' is out of range for i8 [-127, 127]",
            csv + ":7:5: column 'b': '32768' is out of range for i16 [-32767, 32767]",
            csv + ":8:7: column 'c': '2147483648' is out of range for i32 [-2147483647, 2147483647]",
            csv + ":9:15: column 'g': 'qq' is not a single printable ASCII character",
            csv + ":10:11: column 'e': '1e400' is out of range for f64");
        final List<String> rows = new ArrayList<>();
        try (Store store = Store.open(dir.resolve("store")); TableReader reader = store.table("mixed").reader()) {
            final TableSnapshot snap = reader.snapshot();
            for (long row = 0; row < snap.rowCount(); row++) {
                final StringBuilder sb = new StringBuilder();
                for (int c = 0; c < schema.columnCount(); c++) {
                    final long a = snap.segment((int) (row >>> 2)).columnBase(c) + (row & 3) * snap.columnStride(c);
                    final String v = switch (schema.columns().get(c).type()) {
                        case I8 -> Byte.toString(NativeMemory.getByte(a));
                        case I16 -> Short.toString(NativeMemory.getShort(a));
                        case I32 -> Integer.toString(NativeMemory.getInt(a));
                        case F64 -> Double.toString(NativeMemory.getDouble(a));
                        case CHAR -> Integer.toString(NativeMemory.getByte(a));
                        case SYMBOL -> NativeMemory.getInt(a) < 0 ? "null" : snap
                            .symbolValue(c, NativeMemory.getInt(a));
                        default -> Long.toString(NativeMemory.getLong(a));
                    };
                    sb.append(c == 0 ? "" : ",").append(v);
                }
                rows.add(sb.toString());
            }
        }
        assertThat(rows).containsExactly(
            "1,127,-32767,2147483647,-9223372036854775807,1.5,1234,120,AB",
            "2,-128,-32768,-2147483648,-9223372036854775808,NaN,-9223372036854775808,0,null",
            "3,-127,300,-5,0,NaN,-1,126,a symbol longer than 8 bytes",
            "4,5,6,7,8,-2500.0,0,90,AB",
            "10,-1,-2,-3,-4,0.01,-100,113,CD");
    }
}
