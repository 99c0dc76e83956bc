package io.tradestore.query.exec;

import io.tradestore.query.plan.Plan;

/**
 * Which measure each aggregate of a plan folds from value or bucket summaries, and which aggregates share one: each
 * distinct measure is asked of the index once per segment.
 */
final class SummaryMeasures {
    private SummaryMeasures() {
    }

    /**
     * @param plan a plan run with an index selector.
     * @return per aggregate its summary measure, or null when a global aggregate cannot fold all of them from
     *         summaries.
     */
    static int[][] of(final Plan plan) {
        if (plan.scan || plan.keyMode != Plan.GLOBAL) {
            return null;
        }
        final int[][] out = new int[plan.accs.size()][];
        for (int i = 0; i < out.length; i++) {
            out[i] = plan.accs.get(i).get().summaryMeasure();
            if (out[i] == null) {
                return null;
            }
        }
        return withRowCounts(out);
    }

    /**
     * @param measures per aggregate its measure ({@code {-1, -1}}: row counts only).
     * @return them with each row count taking the first measured aggregate's measure: any measured summary has the rows
     *     (one build instead of two).
     */
    static int[][] withRowCounts(final int[][] measures) {
        int measured = -1;
        for (int i = 0; i < measures.length && measured < 0; i++) {
            measured = measures[i][0] >= 0 ? i : -1;
        }
        final int[][] out = new int[measures.length][];
        for (int i = 0; i < out.length; i++) {
            out[i] = measures[i][0] < 0 && measured >= 0 ? measures[measured] : measures[i];
        }
        return out;
    }

    /** @return per aggregate the first aggregate with the same measure (itself when none comes before it). */
    static int[] firstOfMeasure(final int[][] m) {
        final int[] first = new int[m.length];
        for (int i = 0; i < m.length; i++) {
            int j = 0;
            while (j < i && !(m[j][0] == m[i][0] && m[j][1] == m[i][1])) {
                j++;
            }
            first[i] = j;
        }
        return first;
    }
}
