package io.tradestore.bench;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;

import io.tradestore.core.Store;
import io.tradestore.query.QueryEngine;

/**
 * The HTTP benchmark's selective queries (random client or random two-hour instrument window, as
 * {@link HttpWorkload#queryJson}) run straight on the engine by {@code --callers} threads back to back: the engine's
 * cost per query and its latency spread without HTTP. Not a unit test; run on the store the HTTP benchmark made:
 * {@code flock /tmp/tradestore-bench.lock java <launcher flags> -cp bench/target/tradestore-bench.jar
 * io.tradestore.bench.SelectiveQueryProbe --store /tmp/tradestore-bench-50m --query client --callers 1 --scan-threads 1}
 * (add {@code -Xlog:gc} to see collections). Prints one line per round: queries/s, p50, p90, p99, p99.9, max.
 *
 * <p>{@code --per-request N}: instead, each of the HTTP benchmark's 4,096 request bodies of the workload (the ones it
 * sends round-robin, {@link HttpWorkload#bodies}) runs N times on one caller after a warm-up pass, and the slowest
 * bodies are printed with their median time, rows matched and rows scanned: which requests are heavy on the engine
 * itself (how the window workload's 3 slow bodies of session 5 were found).
 */
public final class SelectiveQueryProbe {
    private SelectiveQueryProbe() {
    }

    /** @param args see the class comment; also {@code --queries N} per caller and round, {@code --rounds R}. */
    public static void main(final String[] args) throws Exception {
        Path store = Path.of("/tmp/tradestore-bench-50m");
        String kind = "client";
        int callers = 1;
        int scanThreads = 1;
        int queries = 4000;
        int rounds = 6;
        int perRequest = 0;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--store" -> store = Path.of(args[i + 1]);
                case "--query" -> kind = args[i + 1];
                case "--callers" -> callers = Integer.parseInt(args[i + 1]);
                case "--scan-threads" -> scanThreads = Integer.parseInt(args[i + 1]);
                case "--queries" -> queries = Integer.parseInt(args[i + 1]);
                case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
                case "--per-request" -> perRequest = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + "; see the class comment");
            }
        }
        try (Store s = Store.open(store); QueryEngine engine = new QueryEngine(s, scanThreads)) {
            if (perRequest > 0) {
                final String[] bodies = HttpWorkload.bodies(kind);
                final RequestTime[] times = perRequest(engine, bodies, perRequest);
                final RequestTime[] byTime = times.clone();
                Arrays.sort(byTime, (a, b) -> Double.compare(b.medianMs(), a.medianMs()));
                System.out.printf(Locale.ROOT, "%s: %d bodies x %d runs, mean of medians %.3f ms; slowest:%n", kind, bodies.length, perRequest,
                    Arrays.stream(times).mapToDouble(RequestTime::medianMs).average().orElse(0));
                for (int i = 0; i < Math.min(20, byTime.length); i++) {
                    final RequestTime t = byTime[i];
                    System.out.printf(Locale.ROOT, "  #%d %.3f ms matched %d scanned %d  %s%n", t.index(), t.medianMs(), t.rowsMatched(), t.rowsScanned(),
                        bodies[t.index()]);
                }
                return;
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
                System.out.printf(Locale.ROOT, "%s, %d caller(s), round %d: %.0f q/s; p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f max %.3f ms%n", kind,
                    callers, round, m / wall, all[m / 2], all[m * 9 / 10], all[m * 99 / 100], all[m * 999 / 1000], all[m - 1]);
            }
        }
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
