package io.tradestore.bench;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A smoke run of the query benchmark on a few thousand trades, so that the harness cannot rot. No timing assertions.
 */
class QueryBenchmarkTest {
    @TempDir
    Path dir;

    @Test
    void shouldRunAllEightQueriesWithAgreeingAnswersAndWriteTheReport() throws Exception {
        final Path out = dir.resolve("benchmarks.md");
        Files.writeString(out,
            "# Benchmarks\n\nkept\n\n" + QueryBenchmark.SECTION_START + "\nold\n" + QueryBenchmark.SECTION_END
            + "\n\ntail\n");
        final QueryBenchmark.Options o =
            QueryBenchmark.Options.parse(
            new String[] {"--rows", "30000", "--runs", "2", "--warmups", "1", "--warmup-ms", "20",
            "--segment-rows", "4096", "--floor-mib", "16", "--dir", dir.resolve("store").toString(), "--out",
            out.toString()});
        final QueryBenchmark.Report r;
        try {
            r = QueryBenchmark.run(o, System.err);
        } catch (final QueryException e) {
            Assumptions.assumeFalse(e.code() == ErrorCode.INTERNAL && e.getMessage().contains("not built yet"),
                "query engine not built yet");
            throw e;
        }
        assertThat(r.timings()).hasSize(8);
        assertThat(r.timings()).allSatisfy(t -> assertThat(t.engineMs()).hasSize(2));
        assertThat(r.floorN()).isPositive();
        final String md = Files.readString(out);
        assertThat(md).contains("kept", "tail", "## Queries vs DuckDB", "| 8 |").doesNotContain("old");
    }

    @Test
    void shouldGenerateTheSameTradesForTheSameSeed() {
        final BenchTrades a = new BenchTrades(10_000, 7);
        final BenchTrades b = new BenchTrades(10_000, 7);
        final BenchTrades.Batch x = new BenchTrades.Batch(4_096);
        final BenchTrades.Batch y = new BenchTrades.Batch(4_096);
        long last = Long.MIN_VALUE;
        while (a.fill(x) > 0) {
            assertThat(b.fill(y)).isEqualTo(x.size);
            for (int i = 0; i < x.size; i++) {
                assertThat(x.price[i]).isEqualTo(y.price[i]).isPositive();
                assertThat(x.clientId[i]).isEqualTo(y.clientId[i]);
                assertThat(x.tsMicros[i]).isGreaterThan(last);
                last = x.tsMicros[i];
            }
        }
        assertThat(a.generated()).isEqualTo(10_000);
    }
}
