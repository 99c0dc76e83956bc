package io.tradestore.query.exec.agg;

import java.util.Arrays;
import java.util.SplittableRandom;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Buckets over the range of values seen, widened either way as values arrive (and as other buckets are added): every
 * rank answers the top of the bucket holding the rank-th smallest value, as counts from bucket 0 would, and the
 * counts handed to a histogram land where HdrHistogram puts the values.
 */
class IntBucketsTest {
    @Test
    void shouldAnswerEveryRankWhateverOrderTheMagnitudesArriveIn() {
        final SplittableRandom r = new SplittableRandom(20_261_130L);
        for (int round = 0; round < 40; round++) {
            final int n = r.nextInt(1, 3000);
            final long[] values = new long[n];
            // prices, then values far below and above them, so that the counts widen down and up
            for (int i = 0; i < n; i++) {
                values[i] = switch (r.nextInt(round % 4 + 1)) {
                    case 0 -> r.nextLong(100_000_000L, 1_000_000_000L);
                    case 1 -> r.nextLong(0, 5000);
                    case 2 -> r.nextLong(1L << 40, 1L << 50);
                    default -> r.nextLong(0, Long.MAX_VALUE);
                };
            }
            final IntBuckets one = new IntBuckets(values[0]);
            final IntBuckets left = new IntBuckets(values[0]);
            final IntBuckets right = new IntBuckets(values[n - 1]);
            for (int i = 0; i < n; i++) {
                one.record(values[i]);
                (i < n / 2 ? left : right).record(values[i]);
            }
            left.addAll(right);
            final Histogram h = new Histogram(PercentileAcc.DIGITS);
            one.addTo(h);
            final long[] sorted = values.clone();
            Arrays.sort(sorted);
            assertThat(one.total).isEqualTo(n);
            assertThat(left.total).isEqualTo(n);
            assertThat(h.getTotalCount()).isEqualTo(n);
            for (int rank = 1; rank <= n; rank++) {
                final long want = IntBuckets.highest(IntBuckets.index(sorted[rank - 1]));
                assertThat(one.valueAtRank(rank)).as("round %d rank %d", round, rank).isEqualTo(want);
                assertThat(left.valueAtRank(rank)).as("merged, round %d rank %d", round, rank).isEqualTo(want);
            }
            assertThat(h.getMaxValue()).isEqualTo(h.highestEquivalentValue(sorted[n - 1]));
            assertThat(h.getMinValue()).isEqualTo(h.lowestEquivalentValue(sorted[0]));
        }
    }

    @Test
    void shouldHoldAGroupOfPricesInFourPowersOfTwo() {
        final IntBuckets b = new IntBuckets(319_550_000L);
        for (long v = 100_000_000L; v < 1_000_000_000L; v += 997) {
            b.record(v);
        }
        assertThat(b.bytes()).isLessThanOrEqualTo(8L * 6 * 1024);
    }
}
