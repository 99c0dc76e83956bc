package io.tradestore.query.exec.filter;

/**
 * The order in which one worker applies the arguments of an AND, learnt from the rows each let through (as DuckDB's
 * adaptive filters do): the argument that keeps the fewest rows goes first, so the others read fewer. Each argument
 * refines the rows the previous ones kept, so any order gives the same rows; only the work differs. Owned by one
 * worker.
 */
final class AdaptiveOrder {
    /** Batches between re-orderings. */
    private static final int PERIOD = 8;
    final int[] order;
    private final long[] seen;
    private final long[] kept;
    private int batches;

    AdaptiveOrder(final int args) {
        order = new int[args];
        for (int i = 0; i < args; i++) {
            order[i] = i;
        }
        seen = new long[args];
        kept = new long[args];
    }

    /** Records that argument {@code arg} kept {@code k} of {@code m} rows. */
    void observed(final int arg, final int m, final int k) {
        seen[arg] += m;
        kept[arg] += k;
    }

    /** Counts a batch and every {@link #PERIOD} batches sorts the arguments by the share of rows they kept. */
    void batchDone() {
        if (++batches % PERIOD != 0) {
            return;
        }
        // while the first argument keeps no row, no order reads less: the arguments it leaves unreached would only be
        // measured by putting them first (price = one value ahead of an OR that keeps half the rows)
        final boolean firstKeepsNone = seen[order[0]] > 0 && kept[order[0]] == 0;
        // insertion sort: an AND has a handful of arguments
        for (int i = 1; i < order.length && !firstKeepsNone; i++) {
            final int x = order[i];
            int j = i - 1;
            while (j >= 0 && keepsFewer(x, order[j])) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = x;
        }
        // halve the counts, so that the order follows the data as it changes along the table; a count of one stays
        // one: an argument measured once and then left unreached (behind one that keeps nearly nothing) must not turn
        // unmeasured again and go first for a period every few periods
        for (int i = 0; i < seen.length; i++) {
            seen[i] -= seen[i] >>> 1;
            kept[i] -= kept[i] >>> 1;
        }
    }

    /** An argument no row reached yet counts as keeping none: it goes first once, and is measured. */
    private boolean keepsFewer(final int a, final int b) {
        if (seen[a] == 0 || seen[b] == 0) {
            return seen[a] == 0 && seen[b] != 0;
        }
        return kept[a] * seen[b] < kept[b] * seen[a];
    }
}
