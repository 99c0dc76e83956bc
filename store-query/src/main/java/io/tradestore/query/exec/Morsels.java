package io.tradestore.query.exec;

import java.util.ArrayList;
import java.util.List;

import io.tradestore.core.TableSnapshot;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.plan.Plan;
import io.tradestore.query.spi.Selection;
import io.tradestore.query.spi.Summary;

/** The units the workers of a query take: a run of whole zone-map blocks of one kept segment each. */
final class Morsels {
    /** log2 of how many morsels of a selected segment fit in a scanned one's. */
    static final int SELECTED_MORSEL_SHIFT = 2;
    /** Least morsels per thread a scan is cut into when its kept blocks allow (see {@link #scanBlocks}). */
    static final int MORSELS_PER_THREAD = 4;

    /** Per morsel: its segment, first block, and the block after its last. */
    final int[] segment;
    final int[] fromBlock;
    final int[] toBlock;

    private Morsels(final List<int[]> out) {
        segment = new int[out.size()];
        fromBlock = new int[out.size()];
        toBlock = new int[out.size()];
        for (int i = 0; i < out.size(); i++) {
            segment[i] = out.get(i)[0];
            fromBlock[i] = out.get(i)[1];
            toBlock[i] = out.get(i)[2];
        }
    }

    /**
     * @param plan       the plan.
     * @param keep       the segments not pruned, in order.
     * @param selections per segment, its index selection or null (scanned).
     * @param summaries  per segment, the summaries its selection folds, or null.
     * @param parallel   whether more than one thread takes morsels.
     * @param threads    the threads that may.
     * @return the morsels, in row order.
     */
    static Morsels cut(final Plan plan, final List<Integer> keep, final Selection[] selections,
        final Summary[][] summaries, final boolean parallel, final int threads) {
        final TableSnapshot snap = plan.snap;
        final int blockRows = plan.schema.blockRows();
        final int full = Math.max(1, plan.morselRows / blockRows);
        final int perMorsel = scanBlocks(plan, keep, selections, parallel, threads);
        final List<int[]> out = new ArrayList<>();
        for (final int si : keep) {
            final int blocks = (snap.segmentRowCount(si) + blockRows - 1) / blockRows;
            // on one thread a segment read through an index selection is one unit: one pass of one bitmap iterator
            // beats a fresh iterator advanced to each morsel; split, workers share the segment's random reads
            // a segment whose parts fold from summaries is one unit too: a part cut by a morsel edge would be read row
            // by row; split, a segment read through a selection takes a quarter of the blocks per morsel: its rows are
            // random reads, so a morsel of a scan's size is long work (query 6), and the worker that takes the last
            // one keeps the other waiting that long (or longer when its vCPU is descheduled meanwhile)
            final int step = selections[si] != null && (!parallel || summaries[si] != null) ? Math.max(1, blocks)
                : selections[si] != null ? Math.max(1, full >> SELECTED_MORSEL_SHIFT) : perMorsel;
            for (int b = 0; b < blocks; b += step) {
                out.add(new int[] {si, b, Math.min(blocks, b + step)});
            }
        }
        return new Morsels(out);
    }

    /**
     * @return blocks per morsel of a scanned segment: {@link Plan#morselRows}, or fewer when the zone maps keep so few
     *     blocks that the threads would get fewer than {@link #MORSELS_PER_THREAD} morsels each. The kept blocks of a
     *     narrow filter often lie together (a range of trade ids, a day), and one morsel holding most of them left one
     *     thread with most of the query.
     */
    static int scanBlocks(final Plan plan, final List<Integer> keep, final Selection[] selections,
        final boolean parallel, final int threads) {
        final int blockRows = plan.schema.blockRows();
        final int perMorsel = Math.max(1, plan.morselRows / blockRows);
        if (!parallel) {
            return perMorsel;
        }
        final long enough = (long) perMorsel * threads * MORSELS_PER_THREAD;
        long kept = 0;
        for (final int si : keep) {
            if (selections[si] != null) {
                continue;
            }
            final int rows = plan.snap.segmentRowCount(si);
            if (plan.filter == null) {
                kept += (rows + blockRows - 1) / blockRows;
            } else {
                final Segment s = plan.snap.segment(si);
                for (int b = 0; (long) b * blockRows < rows && kept < enough; b++) {
                    kept += plan.filter.mayMatch(s, b) ? 1 : 0;
                }
            }
            if (kept >= enough) {
                return perMorsel;
            }
        }
        return (int) Math.max(1, Math.min(perMorsel, kept / ((long) threads * MORSELS_PER_THREAD)));
    }
}
