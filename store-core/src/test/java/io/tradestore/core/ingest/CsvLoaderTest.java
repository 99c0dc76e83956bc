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
import java.util.zip.GZIPOutputStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.TestRows;
import io.tradestore.core.sample.TradeGenerator;

import static org.assertj.core.api.Assertions.assertThat;

class CsvLoaderTest {
    @TempDir
    Path dir;

    @AfterEach
    void noLeaks() {
        TestRows.assertNoNativeLeaks();
    }

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
                    first.add(x[0] + "|" + ts + "|" + x[2] + "|" + x[3] + "|" + x[4] + "|" + x[5] + "|" + price + "|" + x[7]);
                }
            }
        }
        return new IngestFixtures.Summary(rows, a, b, c, d, e, buys, List.copyOf(venues), List.copyOf(instruments), first);
    }

    @ParameterizedTest
    @CsvSource({"1,4194304", "2,4096", "3,100", "2,64", "4,1000"})
    void shouldLoadGeneratedTradesExactlyWhateverTheChunkingAndThreads(final int threads, final int chunkBytes) throws IOException {
        final Path csv = dir.resolve("t.csv");
        TradeGenerator.writeCsv(csv, 20_000, 7);
        final LoadResult r = IngestFixtures.load(dir.resolve("store"),
            LoadOptions.defaults().withThreads(threads).withChunkBytes(chunkBytes).withMaxLineLength(256), csv);
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
}
