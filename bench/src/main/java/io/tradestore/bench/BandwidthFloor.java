package io.tradestore.bench;

import java.io.PrintStream;
import java.util.Locale;

import io.tradestore.bench.LayoutsBenchmark.Options;
import io.tradestore.bench.LayoutsBenchmark.Report;
import io.tradestore.core.memory.NativeMemory;

/**
 * The memory-bandwidth floor of the layouts step: an off-heap buffer allocated (and first-touched) once per run,
 * summed by one and two threads before every variant's scans.
 */
final class BandwidthFloor implements AutoCloseable {
    final long bytes;
    final long address;

    BandwidthFloor(final Options o, final Report report) {
        bytes = (long) o.floorMib << 20;
        final long t0 = System.nanoTime();
        address = NativeMemory.allocate(bytes);
        report.firstTouchGBps = bytes / (double) (System.nanoTime() - t0);
        for (long i = 0; i < bytes / 8; i += 512) {
            NativeMemory.putLong(address + i * 8, i);
        }
    }

    /**
     * Measures 1- and 2-thread bandwidth; the report keeps the best seen in the run (contention only lowers it).
     */
    double[] measure(final Options o, final Report report, final PrintStream out, final String when) {
        long sink = 0;
        double one = 0;
        double two = 0;
        for (int rep = 0; rep < o.reps + 1; rep++) {
            long t = System.nanoTime();
            sink += sumLongs(address, bytes / 8);
            one = Math.max(one, bytes / (double) (System.nanoTime() - t));
            t = System.nanoTime();
            sink += sumLongsTwoThreads(address, bytes / 8);
            two = Math.max(two, bytes / (double) (System.nanoTime() - t));
        }
        report.floor1GBps = Double.isNaN(report.floor1GBps) ? one : Math.max(report.floor1GBps, one);
        report.floor2GBps = Double.isNaN(report.floor2GBps) ? two : Math.max(report.floor2GBps, two);
        out.printf(Locale.ROOT,
            "floor %s: sum of %d MiB off-heap longs: 1 thread %.1f GB/s, 2 threads %.1f GB/s (sink %d)%n", when,
            o.floorMib, one, two, sink & 1);
        return new double[] {one, two};
    }

    @Override
    public void close() {
        NativeMemory.free(address, bytes);
    }

    static long sumLongs(final long address, final long count) {
        long s0 = 0;
        long s1 = 0;
        long s2 = 0;
        long s3 = 0;
        final long end = address + (count & ~3L) * 8;
        for (long p = address; p < end; p += 32) {
            s0 += NativeMemory.getLong(p);
            s1 += NativeMemory.getLong(p + 8);
            s2 += NativeMemory.getLong(p + 16);
            s3 += NativeMemory.getLong(p + 24);
        }
        return s0 + s1 + s2 + s3;
    }

    private static long sumLongsTwoThreads(final long address, final long count) {
        final long half = (count / 2) & ~3L;
        final long[] other = new long[1];
        final Thread t = new Thread(() -> other[0] = sumLongs(address + half * 8, count - half));
        t.start();
        final long mine = sumLongs(address, half);
        try {
            t.join();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return mine + other[0];
    }
}
