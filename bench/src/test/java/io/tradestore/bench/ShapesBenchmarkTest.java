package io.tradestore.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A smoke run of the query-shapes benchmark on a few thousand trades, so that it cannot rot: every shape's answers
 * agree with DuckDB's (a mismatch throws), the report lands between its markers. Never timings.
 */
class ShapesBenchmarkTest {
    @TempDir
    Path dir;

    @Test
    void shouldRunEveryDrawnShapeWithAgreeingAnswersAndWriteItsSection() throws Exception {
        final Path out = dir.resolve("benchmarks.md");
        Files.writeString(out, "# Benchmarks\n\nkept\n\n" + ShapesBenchmark.SECTION_START + "\nold\n"
            + ShapesBenchmark.SECTION_END + "\n\ntail\n");
        final ShapesBenchmark.Cli cli = BenchCli.parse(new ShapesBenchmark.Cli(),
            "--rows", "30000", "--runs", "2", "--warmups", "1", "--warmup-ms", "10", "--segment-rows", "4096",
            "--floor-mib", "16", "--dir", dir.resolve("store").toString(), "--out", out.toString());
        assertThat(cli.shapeSeed).isEqualTo(DrawnShapes.DEFAULT_SEED);
        final ShapesBenchmark.Report r = ShapesBenchmark.run(cli.options(), false, cli.shapeSeed, cli.shapeCount,
            System.err);
        // every shape drawn, its answers compared by the difftest's checker before timing (a mismatch throws)
        assertThat(r.shapes()).hasSizeGreaterThanOrEqualTo(24).hasSameSizeAs(r.timings())
            .allSatisfy(s -> assertThat(s.drawn()).isNotNull())
            .allSatisfy(s -> assertThat(s.selected()).isBetween(0.0, 1.0));
        assertThat(r.timings()).allSatisfy(t -> assertThat(t.engineMs()).hasSize(2));
        final String md = Files.readString(out);
        assertThat(md).contains("kept", "tail", "### Query shapes vs DuckDB", "drawn by the differential test",
            "--shape-seed " + DrawnShapes.DEFAULT_SEED, "| selects |", "Median DuckDB / tradestore over the",
            "worst: shape", "ENUM", r.shapes().get(0).query().title()).doesNotContain("\nold\n");
    }

    @Test
    void shouldStillRunTheHandWrittenShapesOnRequest() throws Exception {
        final ShapesBenchmark.Cli cli = BenchCli.parse(new ShapesBenchmark.Cli(),
            "--rows", "20000", "--runs", "1", "--warmups", "0", "--warmup-ms", "0", "--segment-rows", "4096",
            "--floor-mib", "16", "--hand-written");
        final ShapesBenchmark.Report r = ShapesBenchmark.run(cli.options(), cli.handWritten, cli.shapeSeed,
            cli.shapeCount, System.err);
        assertThat(r.shapes()).hasSize(31).allSatisfy(s -> assertThat(s.drawn()).isNull());
        assertThat(r.markdown()).contains("(a) decimal range", "(e) 2-hour", "--hand-written");
    }

    @Test
    void shouldGiveDuckDbEnumSymbolColumnsInTheLoadedOrder() throws Exception {
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement st = duck.createStatement()) {
            st.execute("CREATE TABLE trades (trade_id BIGINT, venue VARCHAR, instrument VARCHAR, side VARCHAR)");
            st.execute("INSERT INTO trades SELECT i, CASE WHEN i % 3 = 0 THEN 'XPAR' ELSE 'XLON' END, "
                + "'SYM' || (1000 - i % 7), CASE WHEN i % 2 = 0 THEN 'S' ELSE 'B' END FROM range(5000) t(i)");
            DuckEnums.apply(duck);
            final List<String> types = new ArrayList<>();
            try (ResultSet rs = st.executeQuery("SELECT data_type FROM information_schema.columns "
                + "WHERE table_name = 'trades' AND column_name IN ('venue', 'instrument', 'side')")) {
                while (rs.next()) {
                    types.add(rs.getString(1));
                }
            }
            assertThat(types).hasSize(3).allSatisfy(t -> assertThat(t).startsWith("ENUM("));
            try (ResultSet rs = st.executeQuery("SELECT count(*) FILTER (WHERE trade_id <> rn - 1), "
                + "min(venue), max(venue) FROM (SELECT trade_id, venue, row_number() OVER () AS rn FROM trades)")) {
                rs.next();
                assertThat(rs.getLong(1)).isZero();
                assertThat(rs.getString(2)).isEqualTo("XLON");
                assertThat(rs.getString(3)).isEqualTo("XPAR");
            }
        }
    }
}
