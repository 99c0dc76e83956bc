package io.tradestore.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.tradestore.core.memory.NativeMemory;

/**
 * The memory-bandwidth floor of this machine: a large off-heap array of longs summed in a tight loop, on one thread
 * and on several, best of a few passes. A scan cannot read its bytes faster than this.
 */
public final class MemoryBandwidth {
    private static volatile long sink;

    private MemoryBandwidth() {
    }

    /**
     * Measures.
     *
     * @param bytes   array size (well beyond the caches: 1 GiB or more).
     * @param threads threads summing disjoint halves, thirds, ...
     * @param passes  passes; the best counts.
     * @return bytes per second.
     */
    public static double measure(final long bytes, final int threads, final int passes) {
        final long length = bytes & ~63L;
        final long base = NativeMemory.allocate(length);
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (long a = base; a < base + length; a += 8) {
                NativeMemory.putLong(a, a);
            }
            double best = 0;
            for (int p = 0; p < passes + 1; p++) {
                final long t0 = System.nanoTime();
                final List<Future<Long>> parts = new ArrayList<>();
                final long slice = length / threads & ~63L;
                for (int t = 0; t < threads; t++) {
                    final long from = base + t * slice;
                    final long to = t == threads - 1 ? base + length : from + slice;
                    parts.add(pool.submit(() -> sum(from, to)));
                }
                long s = 0;
                for (final Future<Long> f : parts) {
                    s += f.get();
                }
                final long ns = System.nanoTime() - t0;
                sink += s;
                if (p > 0) {
                    best = Math.max(best, length * 1e9 / ns);
                }
            }
            return best;
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (final ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } finally {
            pool.shutdown();
            NativeMemory.free(base, length);
        }
    }

    private static long sum(final long from, final long to) {
        long s0 = 0;
        long s1 = 0;
        long s2 = 0;
        long s3 = 0;
        for (long a = from; a < to; a += 32) {
            s0 += NativeMemory.getLong(a);
            s1 += NativeMemory.getLong(a + 8);
            s2 += NativeMemory.getLong(a + 16);
            s3 += NativeMemory.getLong(a + 24);
        }
        return s0 + s1 + s2 + s3;
    }
}
