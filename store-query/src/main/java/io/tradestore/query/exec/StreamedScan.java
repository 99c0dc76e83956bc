package io.tradestore.query.exec;

import java.util.List;

import io.tradestore.query.QueryStats;
import io.tradestore.query.plan.Plan;
import io.tradestore.query.spi.SegmentSelector;

/**
 * An unsorted scan streamed on the calling thread: the executor's pruning, index selections and morsels, read in row
 * order, each matching row going to a sink in batches instead of into a bounded heap. So a scan of any length is never
 * held whole, and its rows come out in the order a whole scan returns them.
 */
final class StreamedScan {
    private StreamedScan() {
    }

    /**
     * @param plan       a scan's plan (no order keys).
     * @param selector   bitmap-index selection for sealed segments, or null.
     * @param sink       receives the row ids.
     * @param batch      row ids per call of the sink.
     * @param skip       matching rows left out first.
     * @param limit      rows sent at most.
     * @param startNanos when the query started, by the plan's clock.
     * @return what the scan did.
     */
    static QueryStats run(final Plan plan, final SegmentSelector selector, final ScanState.ScanSink sink,
        final int batch, final long skip, final long limit, final long startNanos) {
        final Executor e = new Executor(plan, selector);
        final List<Integer> keep = e.candidates();
        e.selectAndEstimate(keep);
        e.morsels(keep, false, 1);
        final ScanState scan = new ScanState(plan, sink, batch, skip, limit);
        try (BatchContext c = new BatchContext(plan)) {
            for (int i = 0; i < e.morselSegment.length && !scan.done(); i++) {
                e.checkDeadline();
                e.segment(c, e.morselSegment[i], e.morselFromBlock[i], e.morselToBlock[i], null, scan);
            }
        }
        scan.flush();
        return new QueryStats((plan.clock.getAsLong() - startNanos) / 1000, e.rowsScanned.get(), scan.matched,
            e.segments.length, e.segmentsSkipped.get(), e.blocksSkipped.get(), e.indexedSegments.get(), 0);
    }
}
