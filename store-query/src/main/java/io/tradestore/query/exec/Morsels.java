package io.tradestore.query.exec;

import java.util.ArrayList;
import java.util.List;

import io.tradestore.core.TableSnapshot;
import io.tradestore.query.plan.Plan;
import io.tradestore.query.spi.Selection;
import io.tradestore.query.spi.Summary;

/** The units the workers of a query take: a run of whole zone-map blocks of one kept segment each. */
final class Morsels {
    /** log2 of how many morsels of a selected segment fit in a scanned one's. */
    static final int SELECTED_MORSEL_SHIFT = 2;
    /** Least morsels per thread a scan is cut into when its kept blocks allow. */
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
     * @param plan          the plan.
     * @param keep          the segments not pruned, in order.
     * @param selections    per segment, its index selection or null (scanned).
     * @param summaries     per segment, the summaries its selection folds, or null.
     * @param threads       the threads that take morsels (1: not parallel).
     * @param scannedBlocks blocks of the scanned segments the zone maps keep.
     * @return the morsels, in row order.
     */
    static Morsels cut(final Plan plan, final List<Integer> keep, final Selection[] selections,
        final Summary[][] summaries, final int threads, final long scannedBlocks) {
        final TableSnapshot snap = plan.snap;
        final int blockRows = plan.schema.blockRows();
        final int full = Math.max(1, plan.morselRows / blockRows);
        final boolean parallel = threads > 1;
        // fewer than MORSELS_PER_THREAD morsels a thread: the kept blocks of a narrow filter often lie together (a
        // range of trade ids, a day), and morsels of the full size would leave most of them to one thread
        final int perMorsel = !parallel ? full
            : (int) Math.max(1, Math.min(full, scannedBlocks / ((long) threads * MORSELS_PER_THREAD)));
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
}
