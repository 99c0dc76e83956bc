package io.tradestore.query.exec.agg;

import java.util.Arrays;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Ranks of f64 magnitudes from log-linear buckets: within 2^-11 of the exact value over the whole normal range. */
class MagnitudeBucketsTest {
    @Test
    void shouldAnswerEveryRankWithinItsRelativeErrorOverSixHundredDecades() {
        final SplittableRandom r = new SplittableRandom(2026);
        for (final int n : new int[] {1, 7, 1_000, 50_000}) {
            final double[] v = new double[n];
            final MagnitudeBuckets a = new MagnitudeBuckets();
            final MagnitudeBuckets b = new MagnitudeBuckets();
            for (int i = 0; i < n; i++) {
                v[i] = r.nextInt(20) == 0 ? 0.0 : r.nextDouble(1, 10) * Math.pow(10, r.nextInt(-300, 300));
                (i % 3 == 0 ? a : b).record(v[i]);
            }
            a.addAll(b); // as workers' partials merge
            assertThat(a.total()).isEqualTo(n);
            Arrays.sort(v);
            for (int k = 1; k <= n; k += Math.max(1, n / 997)) {
                final double exact = v[k - 1];
                final double got = a.valueAtRank(k);
                if (exact == 0.0) {
                    assertThat(got).as("rank %d of %d", k, n).isZero();
                } else {
                    assertThat(got / exact).as("rank %d of %d: %s for %s", k, n, got, exact)
                        .isCloseTo(1.0, within(0x1p-11));
                }
            }
        }
    }

    /**
     * Rows of counts while the budget lasts, the hash table past it: the same bucket can be counted in both (a merge of
     * a worker's rows into a set out of budget, a row allocated after the table took its first values), and every rank
     * must still come from the right bucket.
     */
    @Test
    void shouldAnswerEveryRankWithBucketsSplitBetweenRowsAndTheTable() {
        final SplittableRandom r = new SplittableRandom(2027);
        final int n = 60_000;
        final double[] v = new double[n];
        final MagnitudeBuckets rowsThenTable = new MagnitudeBuckets();
        final MagnitudeBuckets tableOnly = new MagnitudeBuckets();
        final MagnitudeBuckets rowsOnly = new MagnitudeBuckets();
        long spent = 0;
        for (int i = 0; i < n; i++) {
            // prices squared and the like: a few dozen exponents, values repeating within them
            v[i] = r.nextInt(50) == 0 ? 0.0 : Math.scalb(1 + r.nextInt(3000) / 3000.0, r.nextInt(-20, 20));
            switch (i % 3) {
                case 0 -> spent += rowsThenTable.record(v[i], 6 * MagnitudeBuckets.ROW_BYTES - spent);
                case 1 -> assertThat(tableOnly.record(v[i], 0)).isZero();
                default -> rowsOnly.record(v[i]);
            }
        }
        assertThat(spent).as("six rows, then the table").isEqualTo(6 * MagnitudeBuckets.ROW_BYTES);
        // the table's buckets into a set with rows, and rows into a set with a budget for two more
        rowsOnly.addAll(tableOnly);
        assertThat(rowsThenTable.addAll(rowsOnly, 2 * MagnitudeBuckets.ROW_BYTES))
            .isEqualTo(2 * MagnitudeBuckets.ROW_BYTES);
        assertThat(rowsThenTable.total()).isEqualTo(n);
        Arrays.sort(v);
        for (int k = 1; k <= n; k += 37) {
            final double exact = v[k - 1];
            final double got = rowsThenTable.valueAtRank(k);
            if (exact == 0.0) {
                assertThat(got).as("rank %d", k).isZero();
            } else {
                assertThat(got / exact).as("rank %d: %s for %s", k, got, exact).isCloseTo(1.0, within(0x1p-11));
            }
        }
        assertThat(rowsThenTable.valueAtRank(n) / v[n - 1]).isCloseTo(1.0, within(0x1p-11));
    }

    @Test
    void shouldKeepInfinityAndTheExtremesInOrder() {
        final MagnitudeBuckets m = new MagnitudeBuckets();
        for (final double d : new double[] {Double.POSITIVE_INFINITY, Double.MAX_VALUE, Double.MIN_NORMAL, 1.0, 0.0}) {
            m.record(d);
        }
        assertThat(m.valueAtRank(1)).isZero();
        assertThat(m.valueAtRank(2) / Double.MIN_NORMAL).isCloseTo(1.0, within(0x1p-11));
        assertThat(m.valueAtRank(3)).isCloseTo(1.0, within(0x1p-11));
        assertThat(m.valueAtRank(4) / Double.MAX_VALUE).isCloseTo(1.0, within(0x1p-11));
        assertThat(m.valueAtRank(5)).isEqualTo(Double.POSITIVE_INFINITY);
    }
}
