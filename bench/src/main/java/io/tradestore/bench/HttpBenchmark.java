package io.tradestore.bench;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.ingest.CsvLoader;
import io.tradestore.core.ingest.LoadOptions;
import io.tradestore.core.sample.TradeGenerator;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.http.QueryServer;
import io.tradestore.server.http.ServerConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Fixed-rate HTTP load against {@code POST /v1/query} on loopback, corrected for coordinated omission: request i is
 * due at {@code start + i / rate}, and its latency is measured from that intended send time, so a stalled server is
 * charged for every request it delayed (Gil Tene's wrk2 method). Finds the highest rate the server sustains (see
 * {@link Run#sustained()}) by doubling and then bisecting, and reports the latency percentiles at half of it.
 *
 * <pre>
 * mvn -B -o -pl store-server,bench -am package -DskipTests
 * flock /tmp/tradestore-bench.lock bench/http-bench.sh --store /tmp/tradestore-bench-50m --rows 50000000
 * </pre>
 *
 * Options: {@code --store DIR} (created and filled with generated trades when it has no trades table), {@code --rows
 * N}, {@code --query client,window,pruned,health} (which workloads: one client's volume; one instrument's two-hour
 * window; a query whose time range prunes every segment, i.e. HTTP plus planning; {@code GET /health}, i.e. HTTP
 * alone), {@code --seconds S} per measured step, {@code --connections C}, {@code --server-threads T},
 * {@code --scan-threads S} (threads one query may use; default as {@code serve}: cores / server threads), {@code --rate
 * R} (skip the search and measure at R, printing the CPU time of each thread group), {@code --trace PREFIX}
 * (per-request traces of every run, see {@link #measure(Store, QueryEngine, List, int, int, int, double, PrintStream,
 * String)}).
 */
public final class HttpBenchmark {
    private static final long GROWTH_SLACK_NS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final double SUSTAINED_FRACTION = 0.97;

    private final InetSocketAddress address;
    private final int connections;
    private final PrintStream log;
    private long medianLimitNs = Long.MAX_VALUE;
    /** Where per-request traces go ({@code --trace PREFIX}), or null. */
    private String tracePrefix;
    private int traceRuns;
    /** The load generator's connections, kept across runs (see {@link NioLoad}). */
    private NioLoad load;

    private HttpBenchmark(final InetSocketAddress address, final int connections, final PrintStream log) {
        this.address = address;
        this.connections = connections;
        this.log = log;
    }

    /**
     * What one fixed-rate run saw. Sustained: nothing failed, at least 97% of the offered rate was answered, the median
     * stayed near the unloaded median ({@code medianLimitNs}: 5 times the median at 20 requests/s, plus 10 ms), and
     * the queue did not grow (the median of the run's second half is at most twice the first half's plus 5 ms). A
     * server that falls behind shows medians climbing; a machine shared with other work shows tail spikes, which this
     * tolerates and the percentiles still report.
     */
    record Run(double offered, double achieved, long ok, long errors, Histogram latency, Histogram firstHalf,
        Histogram secondHalf,
               boolean aborted, long medianLimitNs) {
        boolean sustained() {
            return !aborted && errors == 0 && achieved >= offered * SUSTAINED_FRACTION
                && latency.getValueAtPercentile(50) <= medianLimitNs
                && secondHalf.getValueAtPercentile(50) <= 2 * firstHalf.getValueAtPercentile(50) + GROWTH_SLACK_NS;
        }

        String line() {
            return String.format(Locale.ROOT,
                "offered %8.0f/s achieved %8.0f/s ok %8d err %6d  p50 %7.3f p90 %7.3f p99 %7.3f p99.9 %7.3f "
                    + "max %8.3f ms%s", offered, achieved, ok, errors, ms(latency.getValueAtPercentile(50)),
                    ms(latency.getValueAtPercentile(90)),
                ms(latency.getValueAtPercentile(99)), ms(latency.getValueAtPercentile(99.9)), ms(latency.getMaxValue()),
                sustained() ? "" : "  (not sustained)");
        }
    }

    static double ms(final long ns) {
        return ns / 1e6;
    }

    /**
     * Runs the benchmark; exits 1 when it fails, 2 on bad usage.
     *
     * @param args see the class comment, or {@code --help}.
     */
    public static void main(final String[] args) {
        BenchCli.exit(new Cli(), args);
    }

    /** The command line. */
    @Command(name = "bench/http-bench.sh", mixinStandardHelpOptions = true,
        description =
            {"Fixed-rate load against POST /v1/query on loopback, corrected for coordinated omission: finds the "
            + "highest rate the"
            + " server sustains by doubling and bisecting, and reports the latency percentiles at half of it."})
    static final class Cli implements Callable<Integer> {
        @Mixin
        BenchCli.StoreOption storeOption = new BenchCli.StoreOption();

        @Option(names = "--rows", paramLabel = "N", converter = BenchCli.Rows.class,
            description = "trades the store must hold; a store"
            + " without a trades table is filled with that many generated ones (default: ${DEFAULT-VALUE})")
        long rows = 50_000_000L;

        @Option(names = "--query", paramLabel = "KIND", split = ",", converter = BenchCli.HttpKind.class,
            description = "workloads: client"
            + " (one client's volume), window (one instrument's two-hour window), pruned (a time range that prunes "
            + "every segment: HTTP and"
            + " planning), health (GET /health: HTTP alone) (default: client,window)")
        List<String> kinds = List.of("client", "window");

        @Mixin
        BenchCli.LoadOptions load = new BenchCli.LoadOptions();

        @Option(names = "--scan-threads", paramLabel = "S", converter = BenchCli.Count.class,
            description = "threads one query may use"
            + " (default: as tradestore serve, cores / server threads)")
        Integer scanThreads;

        @Option(names = "--trace", paramLabel = "PREFIX",
            description = "write per-request traces of every run to PREFIX-requests-KIND.txt and"
            + " PREFIX-N.tsv")
        String tracePrefix;

        @Override
        public Integer call() throws Exception {
            load.check(this);
            final int serverThreads = load.serverThreads;
            // as `tradestore serve` does: workers x scan threads ~ cores
            final int engineThreads = scanThreads != null ? scanThreads
                : Math.max(1, Runtime.getRuntime().availableProcessors() / serverThreads);
            try (Store store = Store.open(storeOption.dir)) {
                ensureTrades(store, rows);
                final long tableRows = store.table("trades").reader().snapshot().rowCount();
                try (QueryEngine engine = new QueryEngine(store, engineThreads)) {
                    System.out.printf(Locale.ROOT,
                        "HTTP benchmark: %,d trades, %d cores, server threads %d, scan threads %d, %d connections, "
                        + "JDK %s, load average %.1f%n", tableRows, Runtime.getRuntime().availableProcessors(),
                        serverThreads, engineThreads,
                        load.connections, System.getProperty("java.version"),
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
                    final List<KindResult> results =
                        measure(store, engine, kinds, load.seconds, load.connections, serverThreads, load.fixedRate,
                        System.out, tracePrefix);
                    System.out.println();
                    System.out.println(
                        "| query | max sustained q/s | rate at half q/s | p50 ms | p90 ms | p99 ms | p99.9 ms"
                        + " | max ms |");
                    System.out.println("|---|---|---|---|---|---|---|---|");
                    for (final KindResult k : results) {
                        final Histogram h = k.atHalf().latency();
                        System.out.println(
                            String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.3f | %.3f | %.3f | %.3f | %.3f |",
                            k.kind(),
                            k.maxSustained(), k.atHalf().achieved(), ms(h.getValueAtPercentile(50)),
                            ms(h.getValueAtPercentile(90)),
                            ms(h.getValueAtPercentile(99)), ms(h.getValueAtPercentile(99.9)), ms(h.getMaxValue())));
                    }
                }
            }
            return 0;
        }
    }

    /**
     * What one workload measured.
     *
     * @param kind         client, window, pruned or health.
     * @param exampleJson  the first request's body (or its request line when it has none).
     * @param maxSustained the highest sustained rate found (twice the fixed rate when the search was skipped).
     * @param atHalf       the run at half of it, with its corrected latency histogram (nanoseconds).
     */
    record KindResult(String kind, String exampleJson, double maxSustained, Run atHalf) {
    }

    /**
     * Serves {@code store} on an ephemeral loopback port and measures each workload in this process: a warm-up, an
     * unloaded run at 20/s (its median sets the sustained limit), the search for the highest sustained rate (unless
     * {@code fixedRate > 0}), then a run at half of it.
     *
     * @param store         the store (with a trades table of generated trades).
     * @param engine        the engine the server uses.
     * @param kinds         workloads: client, window, pruned, health.
     * @param seconds       seconds per measured step.
     * @param connections   client connections.
     * @param serverThreads server worker threads.
     * @param fixedRate     a rate to measure at instead of searching (0: search).
     * @param log           where each step's line goes.
     * @return one result per workload.
     * @throws IOException when the server cannot start.
     */
    static List<KindResult> measure(final Store store, final QueryEngine engine, final List<String> kinds,
        final int seconds,
                                    final int connections, final int serverThreads, final double fixedRate,
                                    final PrintStream log)
        throws IOException {
        return measure(store, engine, kinds, seconds, connections, serverThreads, fixedRate, log, null);
    }

    /**
     * As {@link #measure(Store, QueryEngine, List, int, int, int, double, PrintStream)}, writing per-request traces
     * when {@code tracePrefix} is not null: {@code PREFIX-requests-KIND.txt} (request bodies, one a line, in the order
     * they are sent round-robin) and {@code PREFIX-N.tsv} per run (request index, index into the bodies, intended send
     * time and end in System.nanoTime, latency, offered rate), to match latencies with requests, GC logs ({@code
     * -Xlog:gc:...:tn} decorates with the same clock) or other events.
     */
    static List<KindResult> measure(final Store store, final QueryEngine engine, final List<String> kinds,
        final int seconds,
                                    final int connections, final int serverThreads, final double fixedRate,
                                    final PrintStream log,
                                    final String tracePrefix) throws IOException {
        final List<KindResult> out = new ArrayList<>();
        try (QueryServer server = QueryServer.start(store, engine,
            new ServerConfig("127.0.0.1", 0, serverThreads, 1024, 1 << 20, 10_000, null))) {
            final HttpBenchmark bench = new HttpBenchmark(server.address(), connections, log);
            bench.tracePrefix = tracePrefix;
            try (Closeable closesLoad = () -> {
                if (bench.load != null) {
                    bench.load.close();
                }
            }) {
                measureAll(bench, kinds, seconds, fixedRate, log, out);
            }
        }
        return out;
    }

    /** Measures each workload in turn (see {@link #measure}). */
    private static void measureAll(final HttpBenchmark bench, final List<String> kinds, final int seconds,
        final double fixedRate, final PrintStream log,
                                   final List<KindResult> out) throws IOException {
        for (final String kind : kinds) {
            final String[] bodies = HttpWorkload.hasBody(kind) ? HttpWorkload.bodies(kind) : null;
            final byte[][] requests = HttpWorkload.requests(kind, bodies);
            final String example = HttpWorkload.shown(kind, 0, bodies);
            log.println("== " + kind + ": " + example);
            if (bench.tracePrefix != null) {
                final String file = bench.tracePrefix + "-requests-" + kind + ".txt";
                try (PrintStream w =
                    new PrintStream(new java.io.FileOutputStream(file), false, StandardCharsets.UTF_8)) {
                    for (int i = 0; i < requests.length; i++) {
                        w.println(HttpWorkload.shown(kind, i, bodies));
                    }
                }
            }
            bench.medianLimitNs = Long.MAX_VALUE;
            bench.run(requests, 200, Math.min(3, seconds)); // warm-up: JIT, page cache, connections
            final Run unloaded = bench.run(requests, 20, Math.min(3, seconds));
            bench.medianLimitNs = 5 * unloaded.latency().getValueAtPercentile(50) + TimeUnit.MILLISECONDS.toNanos(10);
            log.printf(Locale.ROOT, "   unloaded (20/s): p50 %.3f ms; sustained needs p50 <= %.3f ms%n",
                ms(unloaded.latency().getValueAtPercentile(50)), ms(bench.medianLimitNs));
            final Run half;
            double max = fixedRate * 2;
            if (fixedRate > 0) {
                // with a fixed rate, where the CPU went: load generator (load-#) against server and engine threads
                final ThreadTimes times = ThreadTimes.start();
                half = bench.run(requests, fixedRate, seconds);
                log.print(times.stop());
            } else {
                final int stepSeconds = Math.max(1, seconds / 2);
                max = findMax(rate -> bench.run(requests, rate, stepSeconds), log);
                half = bench.run(requests, max / 2, seconds);
            }
            log.println("   at half of max: " + half.line());
            out.add(new KindResult(kind, example, max, half));
        }
    }

    /**
     * The highest sustained rate: up by doubling from 250/s (down by halving when even that is too much), then three
     * bisections; shared by the HTTP and the PostgreSQL loads.
     *
     * @param run runs a fixed-rate step at the rate it is given.
     * @param log where each step's line goes.
     * @return the highest rate that was sustained (0 when none was).
     */
    static double findMax(final java.util.function.DoubleFunction<Run> run, final PrintStream log) {
        double good = 0;
        double bad = 0;
        // up by doubling from 250/s; when even 250/s is too much, down by halving
        for (double rate = 250; rate <= 256_000 && rate >= 2; ) {
            final Run r = run.apply(rate);
            log.println("   " + r.line());
            if (r.sustained()) {
                good = rate;
                if (bad > 0) {
                    break;
                }
                rate *= 2;
            } else {
                bad = rate;
                if (good > 0) {
                    break;
                }
                rate /= 2;
            }
        }
        if (good == 0 || bad == 0) {
            log.printf(Locale.ROOT, "   max sustained: %.0f/s (search range exhausted)%n", good);
            return good;
        }
        for (int step = 0; step < 3; step++) {
            final double mid = (good + bad) / 2;
            final Run r = run.apply(mid);
            log.println("   " + r.line());
            if (r.sustained()) {
                good = mid;
            } else {
                bad = mid;
            }
        }
        log.printf(Locale.ROOT, "   max sustained: %.0f/s%n", good);
        return good;
    }

    /**
     * Sends requests at a fixed rate over {@code connections} keep-alive connections for {@code seconds}, from one
     * selector thread ({@link NioLoad}).
     */
    private Run run(final byte[][] requests, final double rate, final int seconds) {
        try {
            if (load == null) {
                load = new NioLoad(address, connections);
            }
        } catch (final IOException e) {
            log.println("   load generator failed: " + e);
            return failed(rate, medianLimitNs);
        }
        final Measured m = fixedRate(load, requests, rate, seconds, tracePrefix != null, log, medianLimitNs);
        final NioLoad.Outcome o = m.outcome();
        if (o.traceIndex != null) {
            final String file = tracePrefix + "-" + (++traceRuns) + ".tsv";
            try (PrintStream w = new PrintStream(new java.io.FileOutputStream(file), false, StandardCharsets.UTF_8)) {
                w.println("index\trequest\tintended_ns\tend_ns\tlatency_ns\trate");
                for (int i = 0; i < o.traced; i++) {
                    w.println(o.traceIndex[i] + "\t" + (o.traceIndex[i] % requests.length) + "\t" + o.traceIntended[i]
                        + "\t" + o.traceEnd[i] + "\t"
                        + (o.traceEnd[i] - o.traceIntended[i]) + "\t" + rate);
                }
            } catch (final IOException e) {
                log.println("   trace not written: " + e);
            }
        }
        return m.run();
    }

    /** A run and what the load generator saw (its trace, when asked for). */
    record Measured(Run run, NioLoad.Outcome outcome) {
    }

    /**
     * One fixed-rate run of a load generator, over HTTP or PG wire: {@code rate * seconds} requests (cycling through
     * {@code requests}) at their intended send times from 50 ms on, given up on after twice the time and 5 s more.
     *
     * @param load          the generator, connected.
     * @param requests      the requests' bytes.
     * @param rate          requests a second.
     * @param seconds       how long to send.
     * @param trace         whether to keep each request's timings.
     * @param log           where a generator failure is told.
     * @param medianLimitNs the median latency a sustained run stays under.
     * @return the run.
     */
    static Measured fixedRate(final NioLoad load, final byte[][] requests, final double rate, final int seconds,
        final boolean trace, final PrintStream log, final long medianLimitNs) {
        final long total = Math.max(1, (long) (rate * seconds));
        final double periodNs = 1e9 / rate;
        final long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        final long giveUp = start + TimeUnit.SECONDS.toNanos(seconds) * 2 + TimeUnit.SECONDS.toNanos(5);
        NioLoad.Outcome o;
        try {
            o = load.run(requests, total, periodNs, start, giveUp, trace);
        } catch (final IOException e) {
            log.println("   load generator failed: " + e);
            o = new NioLoad.Outcome();
            o.aborted = true;
            o.lastEnd = System.nanoTime();
        }
        final double elapsed = Math.max(1, o.lastEnd - start) / 1e9;
        return new Measured(new Run(rate, (o.ok + o.errors) / elapsed, o.ok, o.errors, o.latency, o.firstHalf,
            o.secondHalf, o.aborted, medianLimitNs), o);
    }

    /** @return a run whose generator could not start: aborted, nothing sent. */
    private static Run failed(final double rate, final long medianLimitNs) {
        final NioLoad.Outcome o = new NioLoad.Outcome();
        return new Run(rate, 0, 0, 0, o.latency, o.firstHalf, o.secondHalf, true, medianLimitNs);
    }

    /** Generates and loads trades when the store has no trades table (50M rows: about a minute and 2.5 GB). */
    static void ensureTrades(final Store store, final long rows) throws Exception {
        if (store.hasTable("trades") && store.table("trades").reader().snapshot().rowCount() >= rows) {
            return;
        }
        if (store.hasTable("trades")) {
            throw new IllegalStateException("store " + store.directory() + " has a trades table with fewer than " + rows
                + " rows; remove it or pass --rows");
        }
        System.err.printf(Locale.ROOT, "generating and loading %,d trades into %s%n", rows, store.directory());
        final long t0 = System.nanoTime();
        final PipedInputStream in = new PipedInputStream(1 << 20);
        final PipedOutputStream pipe = new PipedOutputStream(in);
        final Thread gen = new Thread(() -> {
            try (OutputStream o = new java.io.BufferedOutputStream(pipe, 1 << 20)) {
                new TradeGenerator(rows, 42).writeCsv(o);
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
        }, "generator");
        gen.start();
        try (TableWriter w = store.createTable(TradesSchema.SCHEMA).writer()) {
            CsvLoader.load(w, "generated", in, LoadOptions.defaults(), null);
        }
        gen.join();
        System.err.printf(Locale.ROOT, "loaded in %s%n", Duration.ofNanos(System.nanoTime() - t0));
    }
}
