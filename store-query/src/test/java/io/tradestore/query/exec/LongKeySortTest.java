package io.tradestore.query.exec;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.function.LongFunction;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sorting rows through long keys of their first order column gives the comparator's order exactly: longs over the
 * whole range, doubles of both signs with -0.0 beside 0.0, decimals of one scale, ties broken by the rest of the
 * order, ascending and descending; and a column the keys cannot stand for (nulls, NaN, two scales) is sorted by the
 * comparator.
 */
class LongKeySortTest {
    @ParameterizedTest
    @CsvSource({"long,false", "long,true", "double,false", "double,true", "decimal,false", "decimal,true",
        "null,false", "nan,true", "scales,false"})
    void shouldOrderAsTheComparator(final String kind, final boolean desc) {
        final SplittableRandom r = new SplittableRandom(kind.hashCode() * 31L + (desc ? 1 : 0));
        final int n = 5_000;
        final LongFunction<Object> value = switch (kind) {
            case "long" -> x -> r.nextInt(4) == 0 ? x : r.nextInt(3) == 0 ? Long.MIN_VALUE + x : Long.MAX_VALUE - x;
            case "double" -> x -> r.nextInt(10) == 0 ? (r.nextBoolean() ? -0.0 : 0.0) : (x - 50) * 1.5e-3;
            case "decimal", "null", "nan", "scales" -> x -> BigDecimal.valueOf(x * 7 - 300, 4);
            default -> throw new IllegalArgumentException(kind);
        };
        final Object[][] rows = new Object[n][];
        for (int i = 0; i < n; i++) {
            final long x = r.nextInt(100); // ties: about 50 rows a value
            Object v = value.apply(x);
            if (kind.equals("null") && i == n / 2) {
                v = null;
            } else if (kind.equals("nan")) {
                v = i == 7 ? Double.NaN : (double) x;
            } else if (kind.equals("scales") && i == 9) {
                v = BigDecimal.valueOf(x, 2);
            }
            rows[i] = new Object[] {v, (long) i};
        }
        final Comparator<Object[]> order = (a, b) -> {
            final int c = compareNullsLast(a[0], b[0], desc);
            return c != 0 ? c : Long.compare((Long) a[1], (Long) b[1]);
        };
        final Object[][] expected = rows.clone();
        Arrays.sort(expected, order);
        final boolean keyed = LongKeySort.keys(rows, x -> x[0], desc) != null;
        assertThat(keyed).as("keys for %s", kind).isEqualTo(!Arrays.asList("null", "nan", "scales").contains(kind));
        LongKeySort.sort(rows, x -> x[0], desc, order);
        assertThat(Arrays.asList(rows)).containsExactly(expected);
    }

    /** As the answer's order compares a column: nulls and NaN last either way, -0.0 equal to 0.0. */
    private static int compareNullsLast(final Object a, final Object b, final boolean desc) {
        final boolean an = a == null || a instanceof Double && ((Double) a).isNaN();
        final boolean bn = b == null || b instanceof Double && ((Double) b).isNaN();
        if (an || bn) {
            return an == bn ? 0 : an ? 1 : -1;
        }
        final int c;
        if (a instanceof Double) {
            final double x = (Double) a;
            final double y = (Double) b;
            c = x < y ? -1 : x > y ? 1 : 0;
        } else if (a instanceof Long) {
            c = Long.compare((Long) a, (Long) b);
        } else {
            c = ((BigDecimal) a).compareTo((BigDecimal) b);
        }
        return desc ? -c : c;
    }
}
