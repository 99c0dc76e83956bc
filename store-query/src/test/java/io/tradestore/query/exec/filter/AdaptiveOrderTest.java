package io.tradestore.query.exec.filter;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AdaptiveOrderTest {
    /** One batch as LogicFilter runs it: each argument in order on the rows the ones before kept. */
    private static void batch(final AdaptiveOrder ord, final double[] keepShare) {
        int rows = 4096;
        for (final int arg : ord.order) {
            if (rows == 0) {
                break;
            }
            final int kept = (int) Math.round(rows * keepShare[arg]);
            ord.observed(arg, rows, kept);
            rows = kept;
        }
        ord.batchDone();
    }

    @Test
    void shouldPutTheArgumentThatKeepsFewestRowsFirst() {
        final AdaptiveOrder ord = new AdaptiveOrder(3);
        final double[] share = {0.5, 0.01, 1.0};
        for (int b = 0; b < 8; b++) {
            batch(ord, share);
        }
        assertThat(ord.order).containsExactly(1, 0, 2);
    }

    /**
     * A first argument that keeps no row leaves the others unmeasured; moving them ahead to measure them would make
     * every row of those batches pay for them, so the order stays, however long the counts age.
     */
    @Test
    void shouldKeepAFirstArgumentThatKeepsNoRowFirst() {
        final AdaptiveOrder ord = new AdaptiveOrder(3);
        final double[] share = {0.0, 0.5, 1.0};
        for (int b = 0; b < 8 * 40; b++) {
            batch(ord, share);
            assertThat(ord.order[0]).as("after batch %d", b).isZero();
        }
    }

    /** Unmeasured arguments still get their turn once the first one lets rows through. */
    @Test
    void shouldMeasureTheOthersOnceTheFirstKeepsRows() {
        final AdaptiveOrder ord = new AdaptiveOrder(2);
        for (int b = 0; b < 8; b++) {
            batch(ord, new double[] {0.0, 0.001});
        }
        assertThat(ord.order).containsExactly(0, 1);
        for (int b = 0; b < 64; b++) {
            batch(ord, new double[] {0.9, 0.001});
        }
        assertThat(ord.order).containsExactly(1, 0);
    }

    /**
     * A first argument that lets a row through now and then leaves the others measured on a row or two at a time.
     * Aging the counts must not make them unmeasured again: each would go first for a whole period every few periods
     * (on 10M trades, price = one value with two other conjuncts read a third of its batches that way).
     */
    @Test
    void shouldNotPutAnArgumentMeasuredOnceFirstAgain() {
        final AdaptiveOrder ord = new AdaptiveOrder(3);
        int otherFirst = 0;
        for (int b = 0; b < 8 * 400; b++) {
            otherFirst += ord.order[0] == 0 ? 0 : 1;
            int rows = 4096;
            for (final int arg : ord.order) {
                if (rows == 0) {
                    break;
                }
                // the first keeps one row in every 20th batch, the second half its rows (none of one), the third all
                final int kept = arg == 0 ? (b % 20 == 0 ? 1 : 0) : arg == 1 ? rows / 2 : rows;
                ord.observed(arg, rows, kept);
                rows = kept;
            }
            ord.batchDone();
        }
        // the unmeasured third goes first once, for one period (184 batches when counts could age back to zero)
        assertThat(otherFirst).isLessThanOrEqualTo(2 * 8);
    }
}
