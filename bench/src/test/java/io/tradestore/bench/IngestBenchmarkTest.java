package io.tradestore.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A smoke run of the ingest benchmark on a few thousand trades, so that it cannot rot: every step runs, every request
 * is answered 204 (another answer throws), the section lands between its markers. Never timings.
 */
class IngestBenchmarkTest {
    @TempDir
    Path dir;

    @Test
    void shouldRunEveryStepAndWriteItsSection() throws Exception {
        final Path out = dir.resolve("benchmarks.md");
        Files.writeString(out, "# Benchmarks\n\nkept\n\n" + IngestBenchmark.SECTION_START + "\nold\n"
            + IngestBenchmark.SECTION_END + "\n\ntail\n");
        final int code = new CommandLine(new IngestBenchmark()).execute("--dir", dir.resolve("work").toString(),
            "--rows", "20000", "--batch", "1000", "--seconds", "1", "--query-rate", "20", "--ingest-rate", "200000",
            "--report", out.toString());
        assertThat(code).isZero();
        final String md = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(md).startsWith("# Benchmarks\n\nkept\n").endsWith("tail\n").doesNotContain("\nold\n")
            .contains("### Ingest over HTTP").contains("tradestore load (CSV, the same rows):")
            .contains("line protocol over HTTP, alone:").contains("line protocol over HTTP, under 20 q/s:")
            .contains("rows/s  (sent as fast as answered)").contains("rows/s  (offered 200,000 rows/s)");
    }
}
