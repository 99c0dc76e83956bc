package io.tradestore.query.exec.agg;

import java.util.Arrays;
import java.util.SplittableRandom;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LongSelectTest {
    @ParameterizedTest
    @ValueSource(strings = {"random", "sorted", "reversed", "equal", "two", "extremes", "organ", "outlier"})
    void shouldSelectEveryRankAsSortingWould(final String kind) {
        final SplittableRandom r = new SplittableRandom(kind.hashCode());
        for (final int n : new int[] {1, 2, 3, 16, 17, 18, 100, 1001, 4095, 4096, 5000, 70_001}) {
            final long[] values = new long[n + 3];
            for (int i = 0; i < n; i++) {
                values[i] = switch (kind) {
                    case "random" -> r.nextLong();
                    case "sorted" -> i;
                    case "reversed" -> n - i;
                    case "equal" -> 7;
                    case "two" -> r.nextBoolean() ? -1 : 1;
                    case "extremes" -> r.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE - r.nextInt(3);
                    // one value far below the rest: the rank's slice holds every other value, searched again
                    case "outlier" -> i == n / 2 ? Long.MIN_VALUE + 1 : 1L << 40 | r.nextInt(100_000);
                    default -> Math.min(i, n - i);
                };
            }
            values[n] = Long.MIN_VALUE; // past n: must not be read
            final long[] sorted = Arrays.copyOf(values, n);
            Arrays.sort(sorted);
            for (int k = 0; k < n; k += Math.max(1, n / 37)) {
                final long[] work = values.clone();
                assertThat(LongSelect.select(work, n, k)).as("%s n=%d k=%d", kind, n, k).isEqualTo(sorted[k]);
                final long[] after = Arrays.copyOf(work, n);
                Arrays.sort(after);
                assertThat(after).as("the same values, reordered").isEqualTo(sorted);
                assertThat(work[n]).isEqualTo(Long.MIN_VALUE);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 5})
    void shouldRefuseARankOutsideTheRange(final int k) {
        assertThatThrownBy(() -> LongSelect.select(new long[5], 5, k)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("k=" + k);
    }

    @ParameterizedTest
    @ValueSource(doubles = {-Double.MAX_VALUE, -1.5, -Double.MIN_VALUE, -0.0, 0.0, Double.MIN_VALUE, 2.25,
        Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY})
    void shouldKeepTheOrderOfDoublesAsLongs(final double d) {
        assertThat(PercentileAcc.unsortable(PercentileAcc.sortable(d))).isEqualTo(d == 0.0 ? 0.0 : d);
        for (final double o : new double[] {-3.0, -0.5, 0.0, 1e-300, 4.0, 1e300}) {
            assertThat(Long.compare(PercentileAcc.sortable(d), PercentileAcc.sortable(o)))
                .as("%s vs %s", d, o).isEqualTo(Double.compare(d == 0.0 ? 0.0 : d, o));
        }
    }
}
