package io.tradestore.query.exec;

import java.util.Iterator;
import java.util.List;

import io.tradestore.core.TableSnapshot;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.filter.FilterNode;
import io.tradestore.query.exec.filter.IntRangeFilter;
import io.tradestore.query.exec.filter.SortedRanges;
import io.tradestore.query.exec.group.GroupState;
import io.tradestore.query.plan.ConjunctProofs;
import io.tradestore.query.plan.Plan;
import io.tradestore.query.spi.Buckets;
import io.tradestore.query.spi.IndexLeaf;
import io.tradestore.query.spi.SegmentSelector;
import io.tradestore.query.spi.SummaryPart;

/**
 * The part of a query grouped by a time bucket of whole minutes that bucket summaries answer: whole sealed segments
 * folded from per-minute cells before the executor reads the rest.
 */
final class BucketFolds {
    private final Executor ex;
    private final Plan plan;
    private final SegmentSelector selector;

    /** @param ex the query's executor (its plan, selector, deadline and counters). */
    BucketFolds(final Executor ex) {
        this.ex = ex;
        this.plan = ex.plan;
        this.selector = ex.selector;
    }

    /** @return the non-negated eq/in index leaf of a conjunct, or null. */
    private IndexLeaf leafOf(final FilterNode conjunct) {
        for (final IndexLeaf l : ConjunctProofs.indexLeaves(plan)) {
            if (l.node() == conjunct && !l.negated()) {
                return l;
            }
        }
        return null;
    }

    /**
     * Folds the segments a query grouped by a time bucket of whole minutes can take from bucket summaries: sealed, read
     * through one eq/in leaf's index with no other conjunct than time ranges. The whole minutes of the range fold; a
     * segment with rows in a minute the range cuts (a range of whole minutes cuts none) keeps those rows to read, the
     * rows of its folded minutes skipped ({@link Executor#skip}); the other folded segments leave {@code keep}.
     *
     * @param keep the segments not pruned; the wholly folded ones are removed.
     * @return the folded groups, or null when none was folded.
     */
    GroupState fold(final List<Integer> keep) {
        if (selector == null || plan.scan || !plan.bucketRuns || plan.keys[0].bucketNs % Buckets.MINUTE_NS != 0
            || plan.filter == null) {
            return null;
        }
        final int[][] asked = new int[plan.accs.size()][];
        for (int i = 0; i < asked.length; i++) {
            asked[i] = plan.accs.get(i).get().bucketMeasure();
            if (asked[i] == null) {
                return null;
            }
        }
        final int[][] measures = SummaryMeasures.withRowCounts(asked);
        final int[] first = SummaryMeasures.firstOfMeasure(measures);
        final int ts = plan.schema.timestampIndex();
        long lo = Long.MIN_VALUE;
        long hi = Long.MAX_VALUE;
        FilterNode other = null;
        for (final FilterNode f : plan.conjuncts) {
            if (ConjunctProofs.isTimeRange(plan, f)) {
                lo = Math.max(lo, ((IntRangeFilter) f).lo);
                hi = Math.min(hi, ((IntRangeFilter) f).hi);
            } else if (other == null) {
                other = f;
            } else {
                return null;
            }
        }
        final IndexLeaf leaf = other == null || lo > hi ? null : leafOf(other);
        if (leaf == null) {
            return null;
        }
        final TableSnapshot snap = plan.snap;
        final long loMinute = Math.floorDiv(lo, Buckets.MINUTE_NS);
        final long hiMinute = Math.floorDiv(hi, Buckets.MINUTE_NS);
        final long perBucket = plan.keys[0].bucketNs / Buckets.MINUTE_NS;
        GroupState folded = null;
        final SummaryPart tmp = new SummaryPart();
        for (final Iterator<Integer> it = keep.iterator(); it.hasNext();) {
            final int si = it.next();
            final Segment s = snap.segment(si);
            final boolean cutLo = cuts(s, ts, lo);
            final boolean cutHi = hi != Long.MAX_VALUE && cuts(s, ts, hi + 1);
            final long foldLo = cutLo ? loMinute + 1 : loMinute;
            final long foldHi = cutHi ? hiMinute - 1 : hiMinute;
            if (!snap.segmentSealed(si) || foldLo > foldHi) {
                continue;
            }
            ex.checkDeadline(); // a first query builds the summaries (one pass over the segment per measure)
            final Buckets[] views = buckets(snap, si, leaf, measures, first);
            if (views == null) {
                continue;
            }
            if (folded == null) {
                folded = new GroupState(plan);
            }
            final long n = folded.foldBuckets(views, foldLo, foldHi, perBucket, (long) si << snap.segmentShift(), tmp);
            ex.rowsMatched.addAndGet(n);
            ex.rowsSummarized.addAndGet(n);
            if (cutLo || cutHi) {
                // the summary exists, so the segment's timestamps are in order: its folded minutes are one run of rows
                final int rows = snap.segmentRowCount(si);
                final long base = s.columnBase(ts);
                final long stride = s.columnStride(ts);
                ex.skip(si, cutLo ? SortedRanges.firstAtLeast(base, stride, Long.BYTES, 0, rows,
                    foldLo * Buckets.MINUTE_NS) : 0, cutHi ? SortedRanges.firstAtLeast(base, stride, Long.BYTES, 0,
                    rows, (foldHi + 1) * Buckets.MINUTE_NS) : rows);
            } else {
                ex.indexedSegments.incrementAndGet(); // read through the index, as the row path counts a segment
                it.remove();
            }
        }
        if (folded != null) {
            folded.finish();
        }
        return folded;
    }

    /** @return whether the segment has rows in the minute that {@code edge} cuts (none when it starts a minute). */
    private static boolean cuts(final Segment s, final int ts, final long edge) {
        if (edge == Long.MIN_VALUE || Math.floorMod(edge, Buckets.MINUTE_NS) == 0) {
            return false;
        }
        final long minuteStart = edge - Math.floorMod(edge, Buckets.MINUTE_NS);
        // rows in [minuteStart, minuteStart + MINUTE_NS): the bounds are compared without forming the (overflowing) end
        final long min = s.zoneMin(-1, ts);
        return s.zoneMax(-1, ts) >= minuteStart && (min < minuteStart || min - minuteStart < Buckets.MINUTE_NS);
    }

    /**
     * @param m     per aggregate its measure ({@link SummaryMeasures#withRowCounts}).
     * @param first per aggregate the first with the same measure.
     * @return each aggregate's bucket summary of the leaf's rows in a sealed segment, or null when any is missing. Each
     * distinct measure is asked for once, and every one is asked, so that each counts one ask per query
     * (BitmapIndexes.bucketSummaryAfter).
     */
    private Buckets[] buckets(final TableSnapshot snap, final int si, final IndexLeaf leaf, final int[][] m,
                              final int[] first) {
        final Buckets[] out = new Buckets[m.length];
        boolean all = true;
        for (int i = 0; i < m.length; i++) {
            out[i] = first[i] < i ? out[first[i]] : selector.buckets(snap, si, leaf, m[i][0], m[i][1], ex.deadline);
            all &= out[i] != null;
        }
        return all ? out : null;
    }
}
