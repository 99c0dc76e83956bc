package io.tradestore.core;

import java.util.BitSet;
import java.util.SplittableRandom;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** Property: after any adds, the ranges are sorted, disjoint, not adjacent, and cover exactly the rows added. */
class RowRangesTest {
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void shouldHoldExactlyTheRowsAddedAsSortedDisjointRanges(final long seed) {
        final SplittableRandom random = new SplittableRandom(seed);
        final RowRanges ranges = new RowRanges();
        for (int round = 0; round < 20; round++) {
            final BitSet expected = new BitSet();
            ranges.clear();
            final int adds = random.nextInt(60);
            for (int i = 0; i < adds; i++) {
                final int first = random.nextInt(500);
                final int end = first + random.nextInt(random.nextBoolean() ? 4 : 60);
                ranges.add(first, end);
                expected.set(first, end);
                final BitSet actual = new BitSet();
                for (int k = 0; k < ranges.count(); k++) {
                    assertThat(ranges.from(k)).as("non-empty").isLessThan(ranges.to(k));
                    if (k > 0) {
                        assertThat(ranges.from(k)).as("sorted, disjoint, not adjacent").isGreaterThan(ranges.to(k - 1));
                    }
                    actual.set((int) ranges.from(k), (int) ranges.to(k));
                }
                assertThat(actual).isEqualTo(expected);
            }
        }
    }
}
