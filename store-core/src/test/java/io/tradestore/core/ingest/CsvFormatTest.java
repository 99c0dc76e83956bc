package io.tradestore.core.ingest;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.GZIPOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** RFC 4180 features, chunk boundaries inside quoted fields, gzip, streams, and commit-every atomicity. */
@ExtendWith(TestRows.NoLeaks.class)
class CsvFormatTest {
    @TempDir
    Path dir;

    @Test
    void shouldReadQuotesCrlfBomNullsAndHeaderInAnyOrder() {
        final String csv = "\uFEFF Quantity ,PRICE,\"side\",instrument,venue,client_id,ts,trade_id\r\n"
            + "100,10.5,B,\"SYM,1\",XLON,7,2026-11-16T08:00:00.000000001Z,1\r\n"
            + "200,-0.000001,SELL,\"say \"\"hi\"\"\",\"X\nPAR\",8,2026-11-16T09:00:00+01:00,2\r\n"
            + "\r\n"
            + ",,,,,,1794816000000000003,3\n"
            + "\"4\",\"1\",\"buy\",\"\",\"\",\"\",\"2026-11-16T08:00:00Z\",\"4\"";
        final Path f = IngestFixtures.write(dir.resolve("a.csv"), csv);
        final LoadResult r = IngestFixtures.load(dir.resolve("s"), LoadOptions.defaults(), f);
        assertThat(r.rowsLoaded()).isEqualTo(4);
        assertThat(IngestFixtures.summarise(dir.resolve("s")).firstRows()).containsExactly(
            "1|1794816000000000001|7|XLON|SYM,1|B|10500000|100",
            "2|1794816000000000000|8|X\nPAR|say \"hi\"|S|-1|200",
            "3|1794816000000000003|-9223372036854775808|null|null||-9223372036854775808|-9223372036854775808",
            "4|1794816000000000000|-9223372036854775808|null|null|B|1000000|4");
    }

    /** Rows whose instrument is a quoted value holding newlines, commas and quotes, so chunk cuts land inside them. */
    private static String trickyRows(final int rows, final long seed) {
        final SplittableRandom r = new SplittableRandom(seed);
        final StringBuilder sb = new StringBuilder(IngestFixtures.HEADER);
        for (int i = 0; i < rows; i++) {
            final String instrument = switch (r.nextInt(4)) {
                case 0 -> "\"A\nB" + r.nextInt(5) + "\"";
                case 1 -> "\"\n\n,\"\"" + r.nextInt(3) + "\"";
                case 2 -> "SYM" + r.nextInt(9);
                default -> "\"q,\r\n" + r.nextInt(4) + "\"";
            };
            sb.append(i).append(",2026-11-16T08:00:").append(String.format("%02d", i % 60)).append("Z,")
                .append(r.nextInt(100))
                .append(",V").append(r.nextInt(3)).append(',').append(instrument).append(',')
                .append(r.nextBoolean() ? 'B' : 'S')
                .append(',').append(r.nextInt(10_000)).append('.').append(r.nextInt(10)).append(',')
                .append(r.nextInt(1000))
                .append(r.nextInt(7) == 0 ? "\r\n" : "\n");
        }
        return sb.toString();
    }

    @Test
    void shouldFindRecordsWhateverChunkCutsFallInsideQuotedNewlines() throws IOException {
        final String csv = trickyRows(400, 11);
        final Path plain = IngestFixtures.write(dir.resolve("t.csv"), csv);
        final Path gz = dir.resolve("t.csv.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write(csv.getBytes(StandardCharsets.UTF_8));
        }
        IngestFixtures.load(dir.resolve("reference"), LoadOptions.defaults().withThreads(1), plain);
        final IngestFixtures.Summary expected = IngestFixtures.summarise(dir.resolve("reference"));
        assertThat(expected.rows()).isEqualTo(400);
        int run = 0;
        for (final int chunk : new int[] {16, 17, 23, 50, 64, 97, 128, 333, 1000}) {
            for (final Path f : List.of(plain, gz)) {
                final Path store = dir.resolve("s" + run++);
                final LoadResult r =
                    IngestFixtures.load(store, LoadOptions.defaults().withThreads(1 + run % 3).withChunkBytes(chunk)
                    .withMaxLineLength(64), f);
                assertThat(r.rowsLoaded()).as("chunk=%d file=%s", chunk, f).isEqualTo(400);
                assertThat(IngestFixtures.summarise(store)).as("chunk=%d file=%s", chunk, f).isEqualTo(expected);
            }
        }
    }

    @Test
    void shouldLoadFromAStream() {
        final String csv = trickyRows(300, 12);
        final Path store = dir.resolve("s");
        try (Store s = Store.open(store); TableWriter w = s.openOrCreate(IngestFixtures.SMALL_TRADES).writer()) {
            final LoadResult r = CsvLoader.load(w, "-", new ByteArrayInputStream(csv.getBytes(StandardCharsets.UTF_8)),
                LoadOptions.defaults().withChunkBytes(40).withMaxLineLength(64), null);
            assertThat(r.rowsLoaded()).isEqualTo(300);
        }
        final Path plain = IngestFixtures.write(dir.resolve("t.csv"), csv);
        IngestFixtures.load(dir.resolve("reference"), LoadOptions.defaults(), plain);
        assertThat(IngestFixtures.summarise(store)).isEqualTo(IngestFixtures.summarise(dir.resolve("reference")));
    }

    @Test
    void shouldLoadADirectoryInNameOrder() throws IOException {
        final Path in = Files.createDirectory(dir.resolve("in"));
        IngestFixtures.write(in.resolve("b.csv"), IngestFixtures.HEADER + "2,2026-11-16T08:00:00Z,1,V,S2,B,1,1\n");
        IngestFixtures.write(in.resolve("a.csv"), IngestFixtures.HEADER + "1,2026-11-16T08:00:00Z,1,V,S1,B,1,1\n");
        IngestFixtures.write(in.resolve(".hidden"), "junk");
        final ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (OutputStream out = new GZIPOutputStream(gz)) {
            out.write((IngestFixtures.HEADER + "3,2026-11-16T08:00:00Z,1,V,S3,B,1,1")
                .getBytes(StandardCharsets.US_ASCII));
        }
        Files.write(in.resolve("c.csv.gz"), gz.toByteArray());
        final LoadResult r = IngestFixtures.load(dir.resolve("s"), LoadOptions.defaults(), in);
        assertThat(r.files()).isEqualTo(3);
        assertThat(IngestFixtures.summarise(dir.resolve("s")).instruments()).containsExactly("S1", "S2", "S3");
    }

    @Test
    void shouldCommitCompleteBatchesOnlyWithCommitEvery() {
        final StringBuilder sb = new StringBuilder(IngestFixtures.HEADER);
        for (int i = 0; i < 57; i++) {
            sb.append(i).append(",2026-11-16T08:00:00Z,1,V,S").append(i).append(",B,1,1\n");
        }
        sb.append("57,2026-11-16T08:00:00Z,1,V,BAD,B,1.0000001,1\n");
        for (int i = 58; i < 70; i++) {
            sb.append(i).append(",2026-11-16T08:00:00Z,1,V,S").append(i).append(",B,1,1\n");
        }
        final Path f = IngestFixtures.write(dir.resolve("c.csv"), sb.toString());
        final Path store = dir.resolve("s");
        // default: one transaction; nothing stays
        assertThatThrownBy(() -> IngestFixtures.load(store, LoadOptions.defaults().withChunkBytes(100), f))
            .isInstanceOf(LoadException.class).hasMessageContaining(":59:35: column 'price'");
        assertThat(IngestFixtures.summarise(store).rows()).isZero();
        // every 10 rows: the five complete batches before the bad row stay, with their dictionary entries only
        final LoadException e = org.junit.jupiter.api.Assertions.assertThrows(LoadException.class,
            () -> IngestFixtures.load(store, LoadOptions.defaults().withChunkBytes(100).withCommitEvery(10), f));
        assertThat(e.rowsCommitted()).isEqualTo(50);
        final IngestFixtures.Summary s = IngestFixtures.summarise(store);
        assertThat(s.rows()).isEqualTo(50);
        assertThat(s.sumTradeId()).isEqualTo(49 * 50 / 2);
        assertThat(s.instruments()).hasSize(50).endsWith("S49");
        // skip mode with commit-every: everything good is loaded, in batches
        final LoadResult r =
            IngestFixtures.load(store, LoadOptions.defaults().withOnError(OnError.SKIP).withCommitEvery(10), f);
        assertThat(r.rowsLoaded()).isEqualTo(69);
        assertThat(r.commits()).isEqualTo(7);
        assertThat(IngestFixtures.summarise(store).rows()).isEqualTo(119);
    }
}
