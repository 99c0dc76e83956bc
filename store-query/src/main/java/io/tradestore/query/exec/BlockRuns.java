package io.tradestore.query.exec;

import java.util.Arrays;
import java.util.List;

import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.filter.FilterNode;
import io.tradestore.query.exec.filter.SortedRanges;
import io.tradestore.query.plan.ConjunctProofs;
import io.tradestore.query.plan.Plan;

/**
 * What a plan's conjuncts keep of a segment's blocks, from the zone maps and sorted searches alone: whether summaries
 * of all rows could fold some of it, and the run of a block on which every conjunct holds.
 */
final class BlockRuns {
    /**
     * A run of rows inside a block this long holds a whole part of a sealed segment's summary of all rows (parts of
     * 4,096 rows), so that building the summaries for it is worth it.
     */
    private static final int FOLD_RUN_ROWS = 1 << 13;

    private BlockRuns() {
    }

    /**
     * @return whether there is no filter, or the zone maps prove every conjunct for some whole block of the segment, or
     *     with a sorted search for a run of {@link #FOLD_RUN_ROWS} (a time range inside a block).
     */
    static boolean provesABlock(final Plan plan, final int si, final int rows) {
        if (plan.filter == null) {
            return true;
        }
        final Segment s = plan.snap.segment(si);
        final int blockRows = plan.schema.blockRows();
        final SortedRanges sorted = new SortedRanges(Arrays.asList(plan.conjuncts));
        for (int b = 0; (long) b * blockRows < rows; b++) {
            final long run = plan.filter.mayMatch(s, b) ? exactRun(plan, sorted, s, b, rows) : -1;
            final int length = (int) run - (int) (run >>> 32);
            if (run >= 0 && (length == blockRows || length >= FOLD_RUN_ROWS)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param sorted the plan's conjuncts' sorted search (reused from block to block).
     * @return the run of block b on which every conjunct holds, as {@code from << 32 | to}, when the zone maps prove
     *     every conjunct there but ranges on columns sorted in the block, which a binary search narrows
     *     ({@link SortedRanges}: a time range's ends); else -1.
     */
    static long exactRun(final Plan plan, final SortedRanges sorted, final Segment s, final int b, final int rows) {
        final List<FilterNode> conjuncts = Arrays.asList(plan.conjuncts);
        final long every = conjuncts.size() >= Long.SIZE ? -1L : (1L << conjuncts.size()) - 1;
        final int blockRows = plan.schema.blockRows();
        final int bs = b * blockRows;
        final long proven = sorted.narrow(s, b, bs, Math.min(rows, bs + blockRows), blockRows, rows,
            ConjunctProofs.proven(plan, conjuncts, s, b, rows));
        return proven == every ? (long) sorted.from << 32 | sorted.to : -1;
    }

    /**
     * @return rows {@code [from, to)} of segment s less the rows of its first and last blocks that a range on a column
     *     sorted in them excludes (a time range's ends), as {@code from << 32 | to}.
     */
    static long sortedRun(final Plan plan, final Segment s, final int from, final int to, final int rows) {
        if (plan.conjuncts.length == 0 || from >= to) {
            return (long) from << 32 | to;
        }
        final int blockRows = plan.schema.blockRows();
        final SortedRanges sorted = new SortedRanges(Arrays.asList(plan.conjuncts));
        final int b0 = from / blockRows;
        final int end0 = Math.min(to, (b0 + 1) * blockRows);
        sorted.narrow(s, b0, from, end0, blockRows, rows, 0);
        final int f = sorted.from < sorted.to ? sorted.from : end0;
        final int b1 = (to - 1) / blockRows;
        final int start1 = Math.max(f, b1 * blockRows);
        if (start1 >= to) {
            return (long) f << 32 | f;
        }
        sorted.narrow(s, b1, start1, to, blockRows, rows, 0);
        final int t = sorted.from < sorted.to ? sorted.to : start1;
        return (long) f << 32 | Math.max(f, t);
    }

    /** @return the rows of the segment's blocks the filter's zone maps keep. */
    static long keptRows(final Plan plan, final int si, final int rows) {
        final Segment s = plan.snap.segment(si);
        final int blockRows = plan.schema.blockRows();
        long n = 0;
        for (int b = 0; (long) b * blockRows < rows; b++) {
            if (plan.filter == null || plan.filter.mayMatch(s, b)) {
                n += Math.min(blockRows, rows - (long) b * blockRows);
            }
        }
        return n;
    }
}
