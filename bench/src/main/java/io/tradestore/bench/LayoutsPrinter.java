package io.tradestore.bench;

import java.io.PrintStream;
import java.util.DoubleSummaryStatistics;
import java.util.Locale;

import io.tradestore.bench.LayoutsBenchmark.Report;
import io.tradestore.bench.LayoutsBenchmark.Result;

import static io.tradestore.bench.LayoutsBenchmark.medianOf;
import static io.tradestore.bench.LayoutsBenchmark.msRange;

/** Prints a layouts run's report as the console table. */
final class LayoutsPrinter {
    private LayoutsPrinter() {
    }

    /**
     * Prints the floor, one table row per variant, the notional sums and the append repetitions.
     *
     * @param report the run's results.
     * @param out    where the table goes.
     */
    static void print(final Report report, final PrintStream out) {
        out.println();
        out.printf(Locale.ROOT,
            "memory-bandwidth floor: best in the run %.1f GB/s (1 thread), %.1f GB/s (2 threads); first touch of fresh"
            + " memory %.2f GB/s; \"x of floor\" uses the floor measured just before each variant's scans%n",
            report.floor1GBps,
            report.floor2GBps, report.firstTouchGBps);
        out.println(
            "| variant | build ms | build M rows/s | writer path M rows/s | writer M rows/CPU s | scan ms | "
            + "bytes/trade | bytes touched/row | scan GB/s"
            + " | x of floor | GCs (build) | GC ms (build) | heap MB |");
        out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (final Result r : report.results) {
            final double gbps = r.bytesTouchedPerRow * report.rows / r.scanMs / 1e6;
            final boolean twoThreads = r.name.contains("2 threads");
            // against the floor measured right before this variant's scans: on a shared machine both see the same load
            final double floor = r.localFloor == null ? Double.NaN : r.localFloor[twoThreads ? 1 : 0];
            final double x = r.bytesTouchedPerRow * report.rows / floor / 1e6;
            out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %.1f | %.1f | %.0f | %.1f | %.2f | %d | %d | %d |%n",
                r.name,
                Double.isNaN(r.buildMs) ? "-" : String.format(Locale.ROOT, "%.0f", r.buildMs),
                Double.isNaN(r.buildMs) ? "-" : String.format(Locale.ROOT, "%.1f", report.rows / r.buildMs / 1e3),
                Double.isNaN(r.segmentWaitMs) ? "-"
                : String.format(Locale.ROOT, "%.1f", report.rows / (r.buildMs - r.segmentWaitMs) / 1e3),
                Double.isNaN(r.buildCpuMs) ? "-" : String.format(Locale.ROOT, "%.1f", report.rows / r.buildCpuMs / 1e3),
                r.scanMs,
                r.bytesPerTrade, r.bytesTouchedPerRow, gbps, r.scanMs / x, r.gcCount, r.gcMs, r.heapUsed >> 20);
        }
        if (!report.results.isEmpty()) {
            out.printf(Locale.ROOT, "notional: buy=%s sell=%s (scale 6; every variant agrees)%n",
                report.results.get(0).buy,
                report.results.get(0).sell);
        }
        if (!report.appends.isEmpty()) {
            final double ms = medianOf(report.appends, a -> a.ms);
            final DoubleSummaryStatistics range = msRange(report.appends);
            out.printf(Locale.ROOT,
                "COLUMN append repeated %d times: median %.0f ms = %.1f M rows/s (%.1f-%.1f M rows/s)%n",
                report.appends.size(), ms, report.rows / ms / 1e3, report.rows / range.getMax() / 1e3,
                report.rows / range.getMin() / 1e3);
        }
    }
}
