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
