package io.tradestore.server.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableReader;
import io.tradestore.core.sample.TradeGenerator;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code tradestore load} and {@code tradestore generate}: exit codes, messages, rejects, table state. */
class LoadCommandTest {
    private static final String HEADER = "trade_id,ts,client_id,venue,instrument,side,price,quantity\n";

    @TempDir
    Path dir;

    private record Run(int code, String out, String err) {
    }

    private static Run run(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = TradestoreCli.commandLine(new PrintWriter(out, true), new PrintWriter(err, true))
            .execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private long rows(final Path store, final String table) {
        try (Store s = Store.open(store); TableReader r = s.table(table).reader()) {
            return r.snapshot().rowCount();
        }
    }

    @Test
    void shouldGenerateDeterministicCsvAndLoadItIntoANewTable() throws Exception {
        final Path a = dir.resolve("a.csv");
        final Path b = dir.resolve("b.csv");
        assertThat(run("generate", "--rows", "5000", "--seed", "3", "--out", a.toString()).code()).isZero();
        assertThat(run("generate", "--rows", "5000", "--seed", "3", "--out", b.toString()).code()).isZero();
        assertThat(Files.readAllBytes(a)).isEqualTo(Files.readAllBytes(b));
        assertThat(Files.readAllLines(a).get(0) + "\n").isEqualTo(HEADER);
        assertThat(Files.readAllLines(a)).hasSize(5001);
        final Path store = dir.resolve("store");
        final Run r = run("load", store.toString(), a.toString(), "--threads", "2");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).startsWith("loaded 5,000 rows into 'trades' (0 rejected) in ").contains("rows/s")
            .endsWith("table has 5,000 rows\n");
        assertThat(r.err()).doesNotContain("\r");
        assertThat(rows(store, "trades")).isEqualTo(5000);
    }

    /** Segments the load seals get their symbol columns' bitmap indexes from the load itself; the open one does not. */
    @Test
    void shouldBuildTheBitmapIndexesOfTheSegmentsItSeals() throws Exception {
        final Path csv = dir.resolve("t.csv");
        TradeGenerator.writeCsv(csv, 150_000, 4);
        final Path store = dir.resolve("store");
        assertThat(run("create", store.toString(), "--segment-rows", "65536").code()).isZero();
        final Run r = run("load", store.toString(), csv.toString(), "--commit-every", "40000");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err())
            .contains("table has 150,000 rows\nbuilt 4 bitmap indexes (symbol columns of the sealed segments), "
                + "the last ");
        for (final String seg : new String[] {"seg-000000", "seg-000001"}) {
            for (final String col : new String[] {"venue", "instrument"}) {
                assertThat(store.resolve("trades").resolve(seg).resolve(col + ".bitmap")).exists();
            }
        }
        assertThat(store.resolve("trades").resolve("seg-000002").resolve("venue.bitmap")).doesNotExist();
        assertThat(store.resolve("trades").resolve("seg-000000").resolve("client_id.bitmap")).doesNotExist();
    }

    @Test
    void shouldFailWithFileLineColumnAndLeaveTheTableUnchanged() throws Exception {
        final Path store = dir.resolve("store");
        final Path good = dir.resolve("good.csv");
        TradeGenerator.writeCsv(good, 100, 1);
        assertThat(run("load", store.toString(), good.toString()).code()).isZero();
        final Path bad = dir.resolve("bad.csv");
        Files.writeString(bad,
            HEADER + "1,2026-11-16T08:00:00Z,5,XLON,ABC,B,10,1\n2,2026-11-16T08:00:00Z,5,XLON,ABC,B,12.3.4,10\n",
            StandardCharsets.UTF_8);
        final Run r = run("load", store.toString(), bad.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).isEqualTo(bad + ":3:37: column 'price': '12.3.4' is not a decimal\n"
            + "tradestore load: failed; table 'trades' is unchanged at 100 rows\n");
        assertThat(rows(store, "trades")).isEqualTo(100);
    }

    @Test
    void shouldSkipBadRowsIntoTheRejectsFile() throws Exception {
        final Path store = dir.resolve("store");
        final Path bad = dir.resolve("bad.csv");
        Files.writeString(bad,
            HEADER + "1,2026-11-16T08:00:00Z,5,XLON,ABC,B,10,1\n2,2026-11-16T08:00:00Z,5,XLON,ABC,X,1,10\n"
            + "3,2026-11-16T08:00:00Z,5,XLON,ABC,S,1,10\n", StandardCharsets.UTF_8);
        final Path rejects = dir.resolve("rejects.txt");
        final Run r =
            run("load", store.toString(), bad.toString(), "--on-error", "skip", "--rejects", rejects.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).startsWith("loaded 2 rows into 'trades' (1 rejected)");
        assertThat(Files.readAllLines(rejects))
            .containsExactly(bad + ":3:35: column 'side': 'X' is not a side (B, S, BUY or SELL)");
        final Run stderr = run("load", store.toString(), bad.toString(), "--on-error", "SKIP");
        assertThat(stderr.err()).startsWith("rejected: " + bad + ":3:35: column 'side'");
        final Run limited = run("load", store.toString(), bad.toString(), "--on-error", "skip", "--max-errors", "0");
        assertThat(limited.code()).isEqualTo(1);
        assertThat(limited.err()).startsWith("too many rejected rows: more than --max-errors 0");
        assertThat(rows(store, "trades")).isEqualTo(4);
    }

    @Test
    void shouldLoadIntoANamedTableWithACustomSchema() throws Exception {
        final Path schema = dir.resolve("quotes.json");
        Files.writeString(schema,
            "{\"formatVersion\":1,\"name\":\"quotes\",\"layout\":\"ROW\",\"segmentRows\":1024,\"blockRows\":256,"
            + "\"timestamp\":\"ts\",\"columns\":[{\"name\":\"ts\",\"type\":\"timestamp\"},{\"name\":\"sym\",\"type\":"
            + "\"symbol\"},"
            + "{\"name\":\"bid\",\"type\":\"decimal(4)\"},{\"name\":\"size\",\"type\":\"i32\"},{\"name\":\"flag\",\"ty"
            + "pe\":\"char\"},"
            + "{\"name\":\"mid\",\"type\":\"f64\"}]}");
        final Path csv = dir.resolve("q.csv");
        Files.writeString(csv,
            "mid,flag,size,bid,sym,ts\n1.5,A,10,1.25,X,2026-11-16T08:00:00Z\n,,,,,2026-11-16T08:00:01Z\n");
        final Path store = dir.resolve("store");
        final Run r = run("load", store.toString(), csv.toString(), "--schema", schema.toString(), "--table", "q2");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(rows(store, "q2")).isEqualTo(2);
        final Run usage = run("load", store.toString(), csv.toString(), "--on-error", "maybe");
        assertThat(usage.code()).isEqualTo(2);
        assertThat(usage.err()).contains("Invalid value for option '--on-error': 'maybe' must be fail or skip");
        assertThat(run("load", store.toString(), dir.resolve("missing.csv").toString()).code()).isEqualTo(1);
    }

    @Test
    void shouldFormatProgressWithRateShareAndEta() {
        final String line = LoadCommand.Progress.line(5_000_000, 3, 340_000_000, 3_400_000_000L, 1_000_000_000L);
        assertThat(line).isEqualTo("5,000,000 rows  5,000,000 rows/s  340 MB/s  3 rejected  10%  ETA 9 s");
        assertThat(List.of(LoadCommand.Progress.line(10, 0, 100, -1, 2_000_000_000L)))
            .containsExactly("10 rows  5 rows/s  0 MB/s");
    }
}
