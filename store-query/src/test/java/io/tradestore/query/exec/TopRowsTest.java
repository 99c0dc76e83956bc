package io.tradestore.query.exec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** The bounded heap that picks a query's first {@code limit} groups matches a full sort, ties and all. */
class TopRowsTest {
    @ParameterizedTest
    @CsvSource({"0,10", "1,10", "10,10", "10,9", "10,41", "3,1000", "10,10000"})
    void shouldPickTheSameRowsAsAFullSort(final int k, final int n) {
        final SplittableRandom rnd = new SplittableRandom(k * 31L + n);
        final List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            // a unique key, a value with ties
            rows.add(new Object[] {(long) i, (long) rnd.nextInt(Math.max(1, n / 3))});
        }
        // value descending, then key ascending: a total order, as the engine's (keys break ties)
        final Comparator<Object[]> order = Comparator.<Object[]>comparingLong(r -> -(Long) r[1])
            .thenComparingLong(r -> (Long) r[0]);
        final Object[][] top = ResultRows.smallest(rows, k, order).toArray(new Object[0][]);
        Arrays.sort(top, order);
        final Object[][] all = rows.toArray(new Object[0][]);
        Arrays.sort(all, order);
        assertThat(top).isEqualTo(Arrays.copyOf(all, Math.min(k, n)));
    }
}
