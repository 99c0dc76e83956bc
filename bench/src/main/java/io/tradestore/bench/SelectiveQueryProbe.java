package io.tradestore.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;

import io.tradestore.core.Store;
import io.tradestore.query.QueryEngine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The HTTP benchmark's selective queries (random client or random two-hour instrument window, as
 * {@link HttpWorkload#queryJson}) run straight on the engine by {@code --callers} threads back to back: the engine's
 * cost per query and its latency spread without HTTP. Not a unit test; run on the store the HTTP benchmark made:
 * {@code flock /tmp/tradestore-bench.lock java <launcher flags> -cp bench/target/tradestore-bench.jar
 * io.tradestore.bench.SelectiveQueryProbe --store /tmp/tradestore-bench-50m --query client --callers 1 --scan-threads
 * 1} (add {@code -Xlog:gc} to see collections). Prints one line per round: queries/s, p50, p90, p99, p99.9, max.
 *
 * <p>{@code --per-request N}: instead, each of the HTTP benchmark's 4,096 request bodies of the workload (the ones it
 * sends round-robin, {@link HttpWorkload#bodies}) runs N times on one caller after a warm-up pass, and the slowest
 * bodies are printed with their median time, rows matched and rows scanned: which requests are heavy on the engine
 * itself (how the window workload's 3 slow bodies were found).
 */
@Command(name = "SelectiveQueryProbe", mixinStandardHelpOptions = true,
    description =
        {"The HTTP benchmark's selective queries run straight on the engine by --callers threads back to back: the "
        + "engine's cost"
        + " per query and its latency spread without HTTP; prints one line per round: queries/s, p50, p90, p99, p99.9, "
        + "max."})
public final class SelectiveQueryProbe implements Callable<Integer> {
    @Mixin
    BenchCli.StoreOption storeOption = new BenchCli.StoreOption();

    @Option(names = "--query", paramLabel = "KIND", converter = BodyKind.class,
        description = "the HTTP benchmark's workload: client, window"
        + " or pruned (default: ${DEFAULT-VALUE})")
    String kind = "client";

    @Option(names = "--callers", paramLabel = "N", converter = BenchCli.Count.class,
        description = "threads calling the engine back to back"
        + " (default: ${DEFAULT-VALUE})")
    int callers = 1;

    @Option(names = "--scan-threads", paramLabel = "N", converter = BenchCli.Count.class,
        description = "the engine's threads"
        + " (default: ${DEFAULT-VALUE})")
    int scanThreads = 1;

    @Option(names = "--queries", paramLabel = "N", converter = BenchCli.Count.class,
        description = "queries per caller and round"
        + " (default: ${DEFAULT-VALUE})")
    int queries = 4000;

    @Option(names = "--rounds", paramLabel = "R", converter = BenchCli.Count.class,
        description = "rounds (default: ${DEFAULT-VALUE})")
    int rounds = 6;

    @Option(names = "--per-request", paramLabel = "N", converter = BenchCli.NonNegative.class,
        description = "instead, run each of the"
        + " workload's request bodies N times on one caller and print the slowest (default: 0, off)")
    int perRequest;

    SelectiveQueryProbe() {
    }

    /** A workload whose requests have a query body. */
    static final class BodyKind extends BenchCli.OneOf {
        BodyKind() {
            super(HttpWorkload.KINDS.stream().filter(HttpWorkload::hasBody).toList(), "workloads with a query");
        }
    }

    /**
     * Runs the probe; exits 1 when it fails, 2 on bad usage.
     *
     * @param args see the class comment, or {@code --help}.
     */
    public static void main(final String[] args) {
        BenchCli.exit(new SelectiveQueryProbe(), args);
    }

    @Override
    public Integer call() throws Exception {
        try (Store s = Store.open(storeOption.dir); QueryEngine engine = new QueryEngine(s, scanThreads)) {
            if (perRequest > 0) {
                final String[] bodies = HttpWorkload.bodies(kind);
                final RequestTime[] times = perRequest(engine, bodies, perRequest);
                final RequestTime[] byTime = times.clone();
                Arrays.sort(byTime, (a, b) -> Double.compare(b.medianMs(), a.medianMs()));
                System.out.printf(Locale.ROOT, "%s: %d bodies x %d runs, mean of medians %.3f ms; slowest:%n", kind,
                    bodies.length, perRequest,
                    Arrays.stream(times).mapToDouble(RequestTime::medianMs).average().orElse(0));
                for (int i = 0; i < Math.min(20, byTime.length); i++) {
                    final RequestTime t = byTime[i];
                    System.out.printf(Locale.ROOT, "  #%d %.3f ms matched %d scanned %d  %s%n", t.index(), t.medianMs(),
                        t.rowsMatched(), t.rowsScanned(),
                        bodies[t.index()]);
                }
                return 0;
            }
            for (int round = 0; round < rounds; round++) {
                final double[][] latencies = new double[callers][queries];
                final Thread[] threads = new Thread[callers];
                final String q = kind;
                final int n = queries;
                final long t0 = System.nanoTime();
                for (int t = 0; t < callers; t++) {
                    final double[] lat = latencies[t];
                    final Random rnd = new Random(1000L * round + t);
                    threads[t] = new Thread(() -> {
                        for (int i = 0; i < n; i++) {
                            final String json = HttpWorkload.queryJson(q, rnd);
                            final long q0 = System.nanoTime();
                            engine.execute(json);
                            lat[i] = (System.nanoTime() - q0) / 1e6;
                        }
                    });
                    threads[t].start();
                }
                for (final Thread t : threads) {
                    t.join();
                }
                final double wall = (System.nanoTime() - t0) / 1e9;
                final double[] all = Arrays.stream(latencies).flatMapToDouble(Arrays::stream).sorted().toArray();
                final int m = all.length;
                System.out.printf(Locale.ROOT,
                    "%s, %d caller(s), round %d: %.0f q/s; p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f max %.3f ms%n", kind,
                    callers, round, m / wall, all[m / 2], all[m * 9 / 10], all[m * 99 / 100], all[m * 999 / 1000],
                    all[m - 1]);
            }
        }
        return 0;
    }

    /**
     * One request body's engine time.
     *
     * @param index       its index among the bodies.
     * @param medianMs    the median of its runs.
     * @param rowsMatched rows it matched.
     * @param rowsScanned rows it read.
     */
    record RequestTime(int index, double medianMs, long rowsMatched, long rowsScanned) {
    }

    /**
     * Runs every body once (warm-up), then {@code runs} rounds over all bodies, and returns each body's median time.
     *
     * @param engine the engine.
     * @param bodies query bodies.
     * @param runs   timed runs per body.
     * @return one entry per body, in their order.
     */
    static RequestTime[] perRequest(final QueryEngine engine, final String[] bodies, final int runs) {
        for (final String b : bodies) {
            engine.execute(b);
        }
        final double[][] ms = new double[bodies.length][runs];
        final long[][] rows = new long[bodies.length][2];
        for (int r = 0; r < runs; r++) {
            for (int i = 0; i < bodies.length; i++) {
                final long t0 = System.nanoTime();
                final io.tradestore.query.QueryResult result = engine.execute(bodies[i]);
                ms[i][r] = (System.nanoTime() - t0) / 1e6;
                rows[i][0] = result.stats().rowsMatched();
                rows[i][1] = result.stats().rowsScanned();
            }
        }
        final RequestTime[] out = new RequestTime[bodies.length];
        for (int i = 0; i < bodies.length; i++) {
            Arrays.sort(ms[i]);
            out[i] = new RequestTime(i, ms[i][runs / 2], rows[i][0], rows[i][1]);
        }
        return out;
    }
}
