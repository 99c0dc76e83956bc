package io.tradestore.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every harness's command line, parsed without running a benchmark: each invocation the scripts and docs show gives
 * the values it says, {@code --help} prints the usage and runs nothing, and a bad value is bad usage (exit 2) with
 * picocli's message naming the option, from {@code main} as from the command.
 */
class BenchCliTest {
    private static final String STORE = "/tmp/tradestore-bench-50m";

    @TempDir
    Path dir;

    /** What a command printed and returned. */
    private record Outcome(int code, String out, String err) {
    }

    private static Outcome execute(final Object command, final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = BenchCli.commandLine(command)
            .setColorScheme(CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF))
            .setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute(args);
        return new Outcome(code, out.toString(), err.toString());
    }

    /**
     * Each harness's command, its name in the usage, and an option that points it at a directory (where it would write
     * if it ran).
     */
    static Stream<Arguments> commands() {
        return Stream.of(
            Arguments.of(new BenchCommand.Cli(), "tradestore bench", "--dir"),
            Arguments.of(new QueryBenchmark.Cli(), "bench/query-benchmark.sh", "--dir"),
            Arguments.of(new ShapesBenchmark.Cli(), "bench/shapes-benchmark.sh", "--dir"),
            Arguments.of(new LayoutsBenchmark.Cli(), "LayoutsBenchmark", "--dir"),
            Arguments.of(new LoadBenchmark(), "LoadBenchmark", "--store"),
            Arguments.of(new HttpBenchmark.Cli(), "bench/http-bench.sh", "--store"),
            Arguments.of(new ReferenceQueryProbe(), "ReferenceQueryProbe", "--store"),
            Arguments.of(new SelectiveQueryProbe(), "SelectiveQueryProbe", "--store"));
    }

    @ParameterizedTest
    @MethodSource("commands")
    void shouldPrintTheUsageForHelpAndRunNothing(final Object command, final String name, final String dirOption) {
        final Path work = dir.resolve("work");
        final Outcome o = execute(command, dirOption, work.toString(), "--help");
        assertThat(o.code()).isZero();
        assertThat(o.out()).startsWith("Usage: " + name).contains(dirOption, "-h, --help", "default: ");
        assertThat(o.err()).isEmpty();
        assertThat(work).doesNotExist();
    }

    @Test
    void shouldParseTheDocumentedBenchInvocations() {
        BenchCommand.Options o = BenchCommand.Options.parse();
        // the options the query benchmark has too, through the record they make for it
        assertThat(o.queryOptions(o.dir, null))
            .isEqualTo(new QueryBenchmark.Options(50_000_000L, 2, 7, 5, 2000, 0, 42, null, null, 2L << 30));
        assertThat(o.loadRuns).isEqualTo(3);
        assertThat(o.httpSeconds).isEqualTo(10);
        assertThat(o.httpRate).isZero();
        assertThat(o.httpQueries).containsExactly("client", "window");
        assertThat(o.duckdbMemory).isEqualTo("8GB");
        assertThat(o.out.endsWith(Path.of("docs", "benchmarks.md"))).isTrue();
        assertThat(o.skip).isEmpty();

        o = BenchCommand.Options.parse("--rows", "1000000");
        assertThat(o.rows).isEqualTo(1_000_000L);
        assertThat(o.commandLine).isEqualTo("--rows 1000000");

        o = BenchCommand.Options.parse("--skip", "floor,load,queries,http", "--rows", "50000000", "--out", "/tmp/x.md");
        assertThat(o.skip).containsExactly("floor", "load", "queries", "http");
        assertThat(o.runs("layouts")).isTrue();
        assertThat(o.runs("load")).isFalse();
        assertThat(o.out).isEqualTo(Path.of("/tmp/x.md"));

        o = BenchCommand.Options.parse("--skip", "floor,layouts,queries,http", "--load-runs", "3", "--out", "-");
        assertThat(o.out).as("--out -: stdout only").isNull();
        assertThat(o.loadRuns).isEqualTo(3);

        o = BenchCommand.Options.parse("--rows", "50_000_000", "--threads", "4", "--runs", "9", "--warmups", "0",
            "--warmup-ms", "0",
            "--http-seconds", "3", "--http-rate", "250.5", "--http-queries", "pruned,health", "--duckdb-memory",
            "512MiB", "--floor-mib", "16",
            "--segment-rows", "4096", "--seed", "7", "--dir", "/tmp/w");
        assertThat(o.queryOptions(o.dir, null))
            .isEqualTo(new QueryBenchmark.Options(50_000_000L, 4, 9, 0, 0, 4096, 7, Path.of("/tmp/w"), null,
            16L << 20));
        assertThat(o.httpSeconds).isEqualTo(3);
        assertThat(o.httpRate).isEqualTo(250.5);
        assertThat(o.httpQueries).containsExactly("pruned", "health");
        assertThat(o.duckdbMemory).isEqualTo("512MiB");
        assertThat(o.schema().segmentRows()).isEqualTo(4096);
        assertThat(o.seed).isEqualTo(7);
        assertThat(o.dir).isEqualTo(Path.of("/tmp/w"));
    }

    @Test
    void shouldParseTheQueryBenchmarkScriptsOptions() {
        assertThat(QueryBenchmark.Options.defaults())
            .isEqualTo(new QueryBenchmark.Options(50_000_000L, 2, 7, 5, 2000, 0, 42, null, null, 2L << 30));
        final QueryBenchmark.Options o =
            QueryBenchmark.Options.parse("--rows", "50000000", "--threads", "2", "--runs", "7", "--warmups", "5",
            "--warmup-ms", "2000", "--out", "docs/benchmarks.md", "--dir", "/path/for/store", "--segment-rows", "65536",
            "--seed", "9",
            "--floor-mib", "2048");
        assertThat(o)
            .isEqualTo(new QueryBenchmark.Options(50_000_000L, 2, 7, 5, 2000, 65536, 9, Path.of("/path/for/store"),
            Path.of("docs/benchmarks.md"), 2L << 30));
    }

    @Test
    void shouldParseTheLayoutsScriptsAndDocumentedRuns() {
        LayoutsBenchmark.Options o = LayoutsBenchmark.Options.parse("--rows", "50000000", "--dir", "/path/on/disk");
        assertThat(o.rows).isEqualTo(50_000_000L);
        assertThat(o.dir).isEqualTo(Path.of("/path/on/disk"));
        assertThat(o.variants).containsExactly("floor", "objects", "row", "column");
        assertThat(o.reps).isEqualTo(5);
        assertThat(o.floorMib).isEqualTo(1024);
        assertThat(o.appendRuns).isEqualTo(5);

        // bench/run-layouts.sh's second run puts the script's options first and the user's after them: the last value
        // wins
        o = LayoutsBenchmark.Options.parse("--rows", "50000000", "--variants", "floor,row,column", "--rows", "1000");
        assertThat(o.variants).containsExactly("floor", "row", "column");
        assertThat(o.rows).isEqualTo(1000);

        o = LayoutsBenchmark.Options.parse("--variants", "column", "--reps", "0", "--rows", "50000000",
            "--segment-rows", "65536",
            "--floor-mib", "8", "--append-runs", "0");
        assertThat(o.variants).containsExactly("column");
        assertThat(o.reps).isZero();
        assertThat(o.segmentRows).isEqualTo(65536);
        assertThat(o.floorMib).isEqualTo(8);
        assertThat(o.appendRuns).isZero();
    }

    @Test
    void shouldParseTheLoadBenchmarksDocumentedRuns() {
        // the load-bench profile's default load.args, and the runs of docs/benchmarks.md and docs/file-format.md
        LoadBenchmark c = BenchCli.parse(new LoadBenchmark(), "--rows", "50000000", "--threads", "2", "--runs", "3");
        assertThat(c.rows).isEqualTo(50_000_000L);
        assertThat(c.threads).isEqualTo(2);
        assertThat(c.runs).isEqualTo(3);
        assertThat(c.csv).as("default: /tmp/trades-ROWS.csv, named at run time").isNull();
        assertThat(c.store).isEqualTo(Path.of("/tmp/tradestore-loadbench"));
        assertThat(c.noDuckdb).isFalse();

        c = BenchCli.parse(new LoadBenchmark(), "--rows", "50000000", "--threads", "2", "--runs", "5", "--file",
            "/tmp/trades-50m.csv", "--store",
            "/tmp/loadbench");
        assertThat(c.runs).isEqualTo(5);
        assertThat(c.csv).isEqualTo(Path.of("/tmp/trades-50m.csv"));
        assertThat(c.store).isEqualTo(Path.of("/tmp/loadbench"));

        c = BenchCli.parse(new LoadBenchmark(), "--rows", "10000000", "--threads", "2", "--runs", "3", "--no-duckdb",
            "--thread-times", "--seed", "5");
        assertThat(c.noDuckdb).isTrue();
        assertThat(c.threadTimes).isTrue();
        assertThat(c.seed).isEqualTo(5);
    }

    /** A negative --rate is refused by both load harnesses before anything runs (the HTTP one took it as search). */
    @Test
    void shouldRefuseANegativeRateInBothLoadHarnesses() {
        final HttpBenchmark.Cli http = BenchCli.parse(new HttpBenchmark.Cli(), "--rate", "-5");
        assertThatThrownBy(() -> http.load.check(http)).isInstanceOf(CommandLine.ParameterException.class)
            .hasMessage("--rate -5.0 must not be negative");
        final SqlBenchmark.Cli sql = BenchCli.parse(new SqlBenchmark.Cli(), "--rate", "-0.5");
        assertThatThrownBy(() -> sql.load.check(sql)).isInstanceOf(CommandLine.ParameterException.class)
            .hasMessage("--rate -0.5 must not be negative");
        final SqlBenchmark.Cli fine = BenchCli.parse(new SqlBenchmark.Cli(), "--rate", "0");
        fine.load.check(fine);
        assertThat(fine.load.fixedRate).isZero();
    }

    @Test
    void shouldParseTheHttpBenchmarkScriptsOptions() {
        HttpBenchmark.Cli c = BenchCli.parse(new HttpBenchmark.Cli(), "--store", STORE, "--rows", "50000000");
        assertThat(c.storeOption.dir).isEqualTo(Path.of(STORE));
        assertThat(c.rows).isEqualTo(50_000_000L);
        assertThat(c.kinds).containsExactly("client", "window");
        assertThat(c.load.seconds).isEqualTo(10);
        assertThat(c.load.connections).isEqualTo(32);
        assertThat(c.load.serverThreads).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(c.scanThreads).isNull();
        assertThat(c.load.fixedRate).isZero();
        assertThat(c.tracePrefix).isNull();

        c = BenchCli.parse(new HttpBenchmark.Cli(), "--query", "client,window,pruned,health", "--seconds", "3",
            "--connections", "8",
            "--server-threads", "2", "--scan-threads", "1", "--rate", "500", "--trace", "/tmp/trace");
        assertThat(c.storeOption.dir).isEqualTo(BenchCli.BENCH_STORE);
        assertThat(c.kinds).containsExactly("client", "window", "pruned", "health");
        assertThat(c.load.seconds).isEqualTo(3);
        assertThat(c.load.connections).isEqualTo(8);
        assertThat(c.load.serverThreads).isEqualTo(2);
        assertThat(c.scanThreads).isEqualTo(1);
        assertThat(c.load.fixedRate).isEqualTo(500);
        assertThat(c.tracePrefix).isEqualTo("/tmp/trace");
    }

    @Test
    void shouldParseTheProbesDocumentedRuns() {
        ReferenceQueryProbe q =
            BenchCli.parse(new ReferenceQueryProbe(), "--store", STORE, "--queries", "3,6,7,8", "--threads", "2",
            "--runs",
            "15", "--rounds", "1", "--settle-ms", "20", "--warmups", "3000");
        assertThat(q.which).containsExactlyInAnyOrder(3, 6, 7, 8);
        assertThat(q.threads).containsExactly(2);
        assertThat(q.runs).isEqualTo(15);
        assertThat(q.rounds).isEqualTo(1);
        assertThat(q.settleMs).isEqualTo(20);
        assertThat(q.warmups).isEqualTo(3000);
        q = BenchCli.parse(new ReferenceQueryProbe(), "--store", STORE, "--queries", "6", "--threads", "1,2",
            "--rounds", "3", "--runs", "21",
            "--settle-ms", "20", "--evict-mib", "64", "--inst", "SYM007", "--client", "42");
        assertThat(q.which).containsExactly(6);
        assertThat(q.threads).containsExactly(1, 2);
        assertThat(q.evictMib).isEqualTo(64);
        assertThat(q.inst).isEqualTo("SYM007");
        assertThat(q.client).isEqualTo(42);
        q = BenchCli.parse(new ReferenceQueryProbe());
        assertThat(q.which).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        assertThat(q.inst).isEqualTo("SYM262");
        assertThat(q.client).isEqualTo(108_882L);

        SelectiveQueryProbe s =
            BenchCli.parse(new SelectiveQueryProbe(), "--store", STORE, "--query", "client", "--callers", "1",
            "--scan-threads",
            "1");
        assertThat(s.kind).isEqualTo("client");
        assertThat(s.callers).isEqualTo(1);
        assertThat(s.scanThreads).isEqualTo(1);
        assertThat(s.queries).isEqualTo(4000);
        assertThat(s.rounds).isEqualTo(6);
        assertThat(s.perRequest).isZero();
        s = BenchCli.parse(new SelectiveQueryProbe(), "--store", STORE, "--query", "window", "--per-request", "5");
        assertThat(s.kind).isEqualTo("window");
        assertThat(s.perRequest).isEqualTo(5);
    }

    /** A bad command line of each harness and what picocli says about it. */
    static Stream<Arguments> badValues() {
        return Stream.of(
            Arguments.of(new BenchCommand.Cli(), new String[] {"--skip", "nonsense"},
            "Invalid value for option '--skip'",
                "'nonsense'; the steps are floor, layouts, load, queries, shapes, http"),
            Arguments.of(new BenchCommand.Cli(), new String[] {"--segment-rows", "1000"},
            "Invalid value for option '--segment-rows'",
                "'1000' must be a power of two"),
            Arguments.of(new BenchCommand.Cli(), new String[] {"--duckdb-memory", "lots"},
            "Invalid value for option '--duckdb-memory'",
                "use a size such as 8GB"),
            Arguments.of(new BenchCommand.Cli(), new String[] {"--http-queries", "client,nope"},
            "Invalid value for option '--http-queries'",
                "the workloads are client, window, pruned, health"),
            Arguments.of(new BenchCommand.Cli(), new String[] {"--rows"},
            "Missing required parameter for option '--rows'", "N"),
            Arguments.of(new BenchCommand.Cli(), new String[] {"--frobnicate", "1"},
            "Unknown options: '--frobnicate', '1'", "Usage:"),
            Arguments.of(new QueryBenchmark.Cli(), new String[] {"--warmups", "-1"},
            "Invalid value for option '--warmups'", "must be at least 0"),
            Arguments.of(new QueryBenchmark.Cli(), new String[] {"--rows", "many"}, "Invalid value for option '--rows'",
            "'many' is not a whole number"),
            Arguments.of(new LayoutsBenchmark.Cli(), new String[] {"--variants", "row,colum"},
            "Invalid value for option '--variants'",
                "the variants are floor, objects, row, column"),
            Arguments.of(new LayoutsBenchmark.Cli(), new String[] {"--append-runs", "-1"},
            "Invalid value for option '--append-runs'",
                "must be at least 0"),
            Arguments.of(new LoadBenchmark(), new String[] {"--runs", "0"}, "Invalid value for option '--runs'",
            "'0' must be at least 1"),
            Arguments.of(new HttpBenchmark.Cli(), new String[] {"--connections", "x"},
            "Invalid value for option '--connections'",
                "'x' is not a whole number"),
            Arguments.of(new HttpBenchmark.Cli(), new String[] {"--rate", "fast"}, "Invalid value for option '--rate'",
            "'fast'"),
            Arguments.of(new ReferenceQueryProbe(), new String[] {"--queries", "3,9"},
            "Invalid value for option '--queries'",
                "'9' must be at most 8"),
            Arguments.of(new ReferenceQueryProbe(), new String[] {"--threads", "1,0"},
            "Invalid value for option '--threads'",
                "'0' must be at least 1"),
            Arguments.of(new SelectiveQueryProbe(), new String[] {"--query", "health"},
            "Invalid value for option '--query'",
                "the workloads with a query are client, window, pruned"),
            Arguments.of(new SelectiveQueryProbe(), new String[] {"--store"},
            "Missing required parameter for option '--store'", "DIR"));
    }

    @ParameterizedTest
    @MethodSource("badValues")
    void shouldRefuseABadValueAsBadUsage(final Object command, final String[] args, final String message,
        final String detail) {
        final Outcome o = execute(command, args);
        assertThat(o.code()).isEqualTo(2);
        assertThat(o.err()).contains(message, detail, "Usage:");
        assertThat(o.out()).isEmpty();
    }

    @Test
    void shouldExitOneWithTheFailureWhenARunFails() {
        // an empty store has no trades table: the probe starts and fails at once, before measuring anything
        final Outcome o = execute(new ReferenceQueryProbe(), "--store", dir.resolve("empty").toString(),
            "--queries", "8", "--warmups", "0", "--runs", "1", "--rounds", "1", "--settle-ms", "0", "--evict-mib", "0");
        assertThat(o.code()).isEqualTo(1);
        assertThat(o.err()).startsWith("ReferenceQueryProbe: failed: ")
            .contains("unknown table 'trades'", "at io.tradestore.bench.ReferenceQueryProbe");
        assertThat(o.out()).isEmpty();
    }

    @Test
    void shouldThrowTheUsageErrorFromParse() {
        assertThatThrownBy(() -> BenchCommand.Options.parse("--skip", "nonsense"))
            .isInstanceOf(CommandLine.ParameterException.class)
            .hasMessageContaining("the steps are");
        assertThatThrownBy(() -> QueryBenchmark.Options.parse("--threads", "0"))
            .isInstanceOf(CommandLine.ParameterException.class)
            .hasMessageContaining("'0' must be at least 1");
        assertThatThrownBy(() -> LayoutsBenchmark.Options.parse("--segment-rows", "1"))
            .isInstanceOf(CommandLine.ParameterException.class)
            .hasMessageContaining("'1' must be at least 2");
    }

    /** Each harness's main class. */
    static Stream<String> mains() {
        return Stream.of(BenchCommand.class, QueryBenchmark.class, LayoutsBenchmark.class, LoadBenchmark.class,
            HttpBenchmark.class, ReferenceQueryProbe.class, SelectiveQueryProbe.class)
            .map(Class::getName);
    }

    @ParameterizedTest
    @MethodSource("mains")
    void shouldExitWithTheUsageCodeFromMain(final String mainClass) throws IOException, InterruptedException {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (final String f : System.getProperty("tradestore.jvmFlags", "").trim().split("\\s+")) {
            if (!f.isEmpty()) {
                cmd.add(f);
            }
        }
        cmd.addAll(List.of("-Xmx64m", "-XX:TieredStopAtLevel=1", "-Dpicocli.ansi=false", "-cp",
            System.getProperty("java.class.path"), mainClass,
            "--no-such-option"));
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        // the output is a few lines of usage, well inside the pipe's buffer, so reading after the exit cannot block the
        // child
        final boolean exited = p.waitFor(60, TimeUnit.SECONDS);
        if (!exited) {
            p.destroyForcibly();
        }
        final String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(exited).as("exited within 60 s; output:%n%s", output).isTrue();
        assertThat(p.exitValue()).as(output).isEqualTo(2);
        assertThat(output).contains("Unknown option: '--no-such-option'");
    }
}
