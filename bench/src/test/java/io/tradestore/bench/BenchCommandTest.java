package io.tradestore.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A smoke run of {@code tradestore bench}: every step on a few thousand trades, so that the composed harness cannot
 * rot. Checks the report's shape, the charts' well-formedness and that hand-written text around the generated section
 * survives; never timings.
 */
class BenchCommandTest {
    @TempDir
    Path dir;

    @Test
    void shouldRunEveryStepAndWriteTheReportBetweenItsMarkersWithCharts() throws Exception {
        final Path out = dir.resolve("docs").resolve("benchmarks.md");
        Files.createDirectories(out.getParent());
        Files.writeString(out,
            "# Benchmarks\n\nhand-written intro\n\n" + BenchCommand.SECTION_START + "\nold results\n"
            + BenchCommand.SECTION_END
            + "\n\n## How to reproduce\n\nhand-written tail\n");
        final BenchCommand.Options o =
            BenchCommand.Options.parse(
            new String[] {"--rows", "20000", "--threads", "2", "--runs", "2", "--warmups", "1",
            "--warmup-ms", "20",
            "--load-runs", "2", "--segment-rows", "4096", "--floor-mib", "16", "--http-seconds", "1", "--http-rate",
            "100",
            "--http-queries", "client,window,health", "--sql-runs", "2", "--sql-warmups", "1", "--duckdb-memory", "1GB",
            "--dir", dir.resolve("work").toString(), "--out", out.toString()});
        final ByteArrayOutputStream progress = new ByteArrayOutputStream();
        final BenchCommand.Results r = BenchCommand.run(o, new PrintStream(progress, true, StandardCharsets.UTF_8));

        assertThat(progress.toString(StandardCharsets.UTF_8))
            .contains("[1/7", "floor", "[2/7", "layouts", "[3/7", "load", "[4/7", "queries",
            "[5/7", "shapes", "[6/7", "http", "[7/7", "sql", "Median DuckDB / tradestore over the");
        assertThat(r.floor1).isPositive();
        assertThat(r.layouts.results).extracting(x -> x.name).anyMatch(n -> n.startsWith("Java objects"))
            .anyMatch(n -> n.startsWith("ROW"))
            .anyMatch(n -> n.startsWith("COLUMN"));
        // --runs 2: the COLUMN append repeated twice after its build, every repetition timed
        assertThat(r.layouts.appends).hasSize(2).allSatisfy(a -> assertThat(a.ms).isPositive());
        assertThat(r.queries).hasSize(8);
        // the shapes step on the same tables: every answer agreed with DuckDB's (a mismatch throws), each timed
        assertThat(r.shapeTimings).hasSizeGreaterThanOrEqualTo(24).hasSameSizeAs(r.shapes)
            .allSatisfy(t -> assertThat(t.engineMs()).hasSize(2));
        assertThat(r.load.tradestoreSeconds()).hasSize(2);
        assertThat(r.http).hasSize(3).allSatisfy(k -> assertThat(k.atHalf().ok()).isPositive());
        // the sql step: every reference query's SQL answer equal to the JSON one (a difference throws), all three
        // paths timed; the HTTP step's selective workloads over PG wire (health has no SQL twin)
        assertThat(r.sql.overheads()).hasSize(8).allSatisfy(x -> assertThat(x.pgMs()).isPositive());
        assertThat(r.sql.load()).extracting(HttpBenchmark.KindResult::kind).containsExactly("client", "window");
        assertThat(r.sql.load()).allSatisfy(k -> assertThat(k.atHalf().ok()).isPositive());

        final String md = Files.readString(out);
        assertThat(md)
            .contains("hand-written intro", "hand-written tail", "## How to reproduce", "### Memory-bandwidth floor",
            "### Storage layouts",
            "### CSV load", "### Queries vs DuckDB", "### HTTP", "### SQL and PostgreSQL wire", "| PG overhead |",
            "| 8 |", "| median of 2 (min–max) |",
            "img/bench-queries.svg", "img/bench-http-latency.svg", "### Query shapes\n",
            ShapesBenchmark.SECTION_START, "### Query shapes vs DuckDB", "drawn by the differential test",
            ShapesBenchmark.SECTION_END,
            "ENUM")
            .doesNotContain("old results");
        assertThat(md.indexOf("hand-written intro")).isLessThan(md.indexOf("### Queries vs DuckDB"));
        assertThat(md.indexOf("### HTTP")).isLessThan(md.indexOf("hand-written tail"));
        for (final String svg : new String[] {BenchReport.QUERIES_SVG, BenchReport.LAYOUTS_SVG, BenchReport.HTTP_SVG}) {
            final Path file = out.getParent().resolve("img").resolve(svg);
            assertThat(DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile())
                .getDocumentElement().getTagName())
                .isEqualTo("svg");
        }
        assertThat(out.getParent().resolve("img").resolve(BenchReport.hgrmName("client"))).isNotEmptyFile();
        assertThat(dir.resolve("work").resolve("trades.csv")).doesNotExist();
    }

    @Test
    void shouldLeaveOutSkippedSteps() throws Exception {
        final Path out = dir.resolve("benchmarks.md");
        final BenchCommand.Options o =
            BenchCommand.Options.parse(new String[] {"--rows", "5000", "--skip", "layouts,load,queries,shapes,http,sql",
            "--floor-mib", "8", "--out", out.toString()});
        final BenchCommand.Results r =
            BenchCommand.run(o, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        assertThat(r.layouts).isNull();
        assertThat(r.queries).isNull();
        assertThat(r.shapeTimings).isNull();
        assertThat(Files.readString(out)).contains("### Memory-bandwidth floor")
            .doesNotContain("### Storage layouts", "### HTTP", "### SQL", "### Query shapes",
                ShapesBenchmark.SECTION_START);
    }

    @Test
    void shouldRejectBadUsage() {
        assertThatThrownBy(() -> BenchCommand.Options.parse(new String[] {"--skip", "nonsense"}))
            .hasMessageContaining("the steps are");
        assertThatThrownBy(() -> BenchCommand.Options.parse(new String[] {"--rows"}))
            .hasMessageContaining("Missing required parameter");
        assertThatThrownBy(() -> BenchCommand.Options.parse(new String[] {"--frobnicate", "1"}))
            .hasMessageContaining("Unknown option");
        assertThatThrownBy(() -> BenchCommand.Options.parse(new String[] {"--segment-rows", "1000"}))
            .hasMessageContaining("power of two");
    }

    @Test
    void shouldDrawWellFormedChartsForOddInput() throws Exception {
        final String svg =
            SvgCharts.bars("a < b & \"c\"", java.util.List.of("x<y", "z"), new double[] {Double.NaN, 0},
            java.util.List.of("-", "0"),
            1.0, "1x");
        assertThat(DocumentBuilderFactory.newInstance().newDocumentBuilder()
            .parse(new java.io.ByteArrayInputStream(svg.getBytes(
            StandardCharsets.UTF_8))).getDocumentElement().getTagName()).isEqualTo("svg");
        final String ratios = SvgCharts.ratios("r", java.util.List.of("a", "b", "c"), new double[] {0.03, 1.0, 250});
        assertThat(DocumentBuilderFactory.newInstance().newDocumentBuilder()
            .parse(new java.io.ByteArrayInputStream(ratios.getBytes(
            StandardCharsets.UTF_8))).getDocumentElement().getTagName()).isEqualTo("svg");
        assertThat(ratios).contains("0.01x", "1000x", "250.00x");
        assertThat(SvgCharts.niceCeiling(3.2)).isEqualTo(5.0);
        assertThat(SvgCharts.niceCeiling(0.07)).isEqualTo(0.1, org.assertj.core.data.Offset.offset(1e-12));
    }
}
