package io.tradestore.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;

import io.tradestore.core.Store;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.query.QueryEngine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The eight reference queries of {@link QueryBenchmark} on an existing store, tradestore only (no DuckDB, no load):
 * a quick way to time one engine change against another on the same data. Not a unit test; run on the store the HTTP
 * benchmark made (the same generated trades as the full command's CSV):
 * {@code flock /tmp/tradestore-bench.lock java <launcher flags> -cp bench/target/tradestore-bench.jar
 * io.tradestore.bench.ReferenceQueryProbe --store /tmp/tradestore-bench-50m --queries 5,6,7 --runs 21}. Options:
 * {@code --threads N} (2), {@code --inst SYM} and {@code --client N} (the full command's picks for seed 42),
 * {@code --warmups N} (5), {@code --rounds R} (3). {@code --threads 1,2} alternates engines of 1 and 2 threads round by
 * round on the same data (an A/B in one process). {@code --settle-ms N} (0) sleeps before each warm-up and timed run,
 * and {@code --evict-mib N} (0) reads N MiB of other memory before each, so that a run starts as the full command's
 * runs do (there DuckDB's query and 20 ms of quiet precede each: the caches hold other data and the pool threads are
 * parked on idle vCPUs; back-to-back runs hide both). Prints per round, query and engine the median, min and max in
 * milliseconds, and the median CPU time of the calling thread (steadier than wall time when other processes share the
 * cores; with two workers it is the caller's share only).
 */
@Command(name = "ReferenceQueryProbe", mixinStandardHelpOptions = true,
    description =
        {"The eight reference queries of QueryBenchmark on an existing store, tradestore only: prints per round, query "
        + "and engine"
        + " the median, min and max in ms and the median CPU time of the calling thread."})
public final class ReferenceQueryProbe implements Callable<Integer> {
    /** The instrument of queries 3 and 6 on a store of generated trades: the full command's pick for seed 42. */
    static final String DEFAULT_INSTRUMENT = "SYM262";
    /** The client of query 7 on a store of generated trades: the full command's pick for seed 42. */
    static final long DEFAULT_CLIENT = 108_882L;

    @Mixin
    BenchCli.StoreOption storeOption = new BenchCli.StoreOption();

    @Option(names = "--threads", paramLabel = "N", split = ",", converter = BenchCli.Count.class,
        description = "engine threads; 1,2"
        + " alternates engines of 1 and 2 threads round by round on the same data (default: 2)")
    int[] threads = {2};

    @Option(names = "--rounds", paramLabel = "R", converter = BenchCli.Count.class,
        description = "rounds over the queries"
        + " (default: ${DEFAULT-VALUE})")
    int rounds = 3;

    @Option(names = "--runs", paramLabel = "N", converter = BenchCli.Count.class,
        description = "timed runs per query, engine and round"
        + " (default: ${DEFAULT-VALUE})")
    int runs = 21;

    @Option(names = "--warmups", paramLabel = "N", converter = BenchCli.NonNegative.class,
        description = "untimed runs first"
        + " (default: ${DEFAULT-VALUE})")
    int warmups = 5;

    @Option(names = "--settle-ms", paramLabel = "N", converter = BenchCli.NonNegative.class,
        description = "sleep before each warm-up and"
        + " timed run (default: ${DEFAULT-VALUE})")
    int settleMs;

    @Option(names = "--evict-mib", paramLabel = "N", converter = BenchCli.NonNegative.class,
        description = "read N MiB of other memory"
        + " before each warm-up and timed run (default: ${DEFAULT-VALUE})")
    int evictMib;

    @Option(names = "--inst", paramLabel = "SYM",
        description = "the instrument of queries 3 and 6 (default: ${DEFAULT-VALUE}, the full"
        + " command's pick for seed 42)")
    String inst = DEFAULT_INSTRUMENT;

    @Option(names = "--client", paramLabel = "N",
        description = "the client of query 7 (default: ${DEFAULT-VALUE}, the full command's pick"
        + " for seed 42)")
    long client = DEFAULT_CLIENT;

    @Option(names = "--queries", paramLabel = "Q", split = ",", converter = QueryNumber.class,
        description = "which of the eight queries"
        + " (default: 1,2,3,4,5,6,7,8)")
    Set<Integer> which = new TreeSet<>(List.of(1, 2, 3, 4, 5, 6, 7, 8));

    ReferenceQueryProbe() {
    }

    /** A reference query's number. */
    static final class QueryNumber extends BenchCli.IntRange {
        QueryNumber() {
            super(1, 8);
        }
    }

    /**
     * Runs the probe; exits 1 when it fails, 2 on bad usage.
     *
     * @param args see the class comment, or {@code --help}.
     */
    public static void main(final String[] args) {
        BenchCli.exit(new ReferenceQueryProbe(), args);
    }

    @Override
    public Integer call() throws Exception {
        final Quiet quiet = new Quiet(settleMs, (long) evictMib << 20);
        try (Store s = Store.open(storeOption.dir); quiet) {
            final QueryEngine[] engines = new QueryEngine[threads.length];
            for (int e = 0; e < threads.length; e++) {
                engines[e] = new QueryEngine(s, threads[e]);
            }
            try {
                for (int round = 0; round < rounds; round++) {
                    for (final QueryBenchmark.BenchQuery q : QueryBenchmark.queries(inst, client)) {
                        if (!which.contains(q.number())) {
                            continue;
                        }
                        for (int e = 0; e < engines.length; e++) {
                            time(engines[e], q, warmups, runs, round, threads[e], quiet);
                        }
                    }
                }
            } finally {
                for (final QueryEngine e : engines) {
                    e.close();
                }
            }
        }
        return 0;
    }

    private static void time(final QueryEngine engine, final QueryBenchmark.BenchQuery q, final int warmups,
        final int runs, final int round,
                             final int threads, final Quiet quiet) {
        for (int w = 0; w < warmups; w++) {
            quiet.settle();
            engine.execute(q.json());
        }
        final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        final double[] ms = new double[runs];
        final double[] cpuMs = new double[runs];
        for (int r = 0; r < runs; r++) {
            quiet.settle();
            final long c0 = mx.getCurrentThreadCpuTime();
            final long t0 = System.nanoTime();
            engine.execute(q.json());
            ms[r] = (System.nanoTime() - t0) / 1e6;
            cpuMs[r] = (mx.getCurrentThreadCpuTime() - c0) / 1e6;
        }
        Arrays.sort(ms);
        Arrays.sort(cpuMs);
        System.out.printf(Locale.ROOT,
            "round %d, query %d, %d thread(s): median %.2f ms (min %.2f, max %.2f), calling thread's CPU median %.2f "
            + "ms %s%n",
            round, q.number(), threads, ms[runs / 2], ms[0], ms[runs - 1], cpuMs[runs / 2], q.title());
    }

    /** A pause and a pass over memory that is not the store's before each run (see the class comment). */
    private static final class Quiet implements AutoCloseable {
        private final int settleMs;
        private final long evictLength;
        private final long evict;
        private long sink;

        Quiet(final int settleMs, final long evictLength) {
            this.settleMs = settleMs;
            this.evictLength = evictLength;
            this.evict = evictLength > 0 ? NativeMemory.allocate(evictLength) : 0;
            for (long a = evict; a < evict + evictLength; a += Long.BYTES) {
                NativeMemory.putLong(a, a);
            }
        }

        void settle() {
            for (long a = evict; a < evict + evictLength; a += Long.BYTES * 8) {
                sink += NativeMemory.getLong(a);
            }
            if (settleMs > 0) {
                try {
                    Thread.sleep(settleMs);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void close() {
            if (evictLength > 0) {
                NativeMemory.free(evict, evictLength);
            }
            if (sink == 42) {
                System.out.print("");
            }
        }
    }
}
