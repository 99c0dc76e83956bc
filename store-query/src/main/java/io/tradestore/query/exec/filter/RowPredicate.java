package io.tradestore.query.exec.filter;

import java.math.BigDecimal;

/** A {@code having} filter over output rows (few, so evaluated on result objects); nulls never pass, as in SQL. */
public abstract class RowPredicate {
    public abstract boolean test(Object[] row);

    /** Compares two non-null result values of the same output column: numbers exactly, strings by code point. */
    public static int compare(final Object a, final Object b) {
        if (a instanceof String || b instanceof String) {
            return a.toString().compareTo(b.toString());
        }
        if (a instanceof Long && b instanceof Long) {
            return Long.compare((Long) a, (Long) b);
        }
        return decimal(a).compareTo(decimal(b));
    }

    static BigDecimal decimal(final Object o) {
        if (o instanceof BigDecimal) {
            return (BigDecimal) o;
        }
        if (o instanceof Long) {
            return BigDecimal.valueOf((Long) o);
        }
        final double d = ((Number) o).doubleValue();
        if (Double.isInfinite(d)) {
            return d > 0 ? BigDecimal.valueOf(Long.MAX_VALUE).pow(40) : BigDecimal.valueOf(Long.MAX_VALUE).pow(40)
                .negate();
        }
        return new BigDecimal(d);
    }

    /** A comparison leaf: {@code lo <(=) v <(=) hi}, or membership, possibly negated. */
    public static final class Leaf extends RowPredicate {
        private final int index;
        private final Object lo;
        private final boolean loInclusive;
        private final Object hi;
        private final boolean hiInclusive;
        private final Object[] set;
        private final boolean negated;

        public Leaf(final int index, final Object lo, final boolean loInclusive, final Object hi,
            final boolean hiInclusive,
            final Object[] set,
             final boolean negated) {
            this.index = index;
            this.lo = lo;
            this.loInclusive = loInclusive;
            this.hi = hi;
            this.hiInclusive = hiInclusive;
            this.set = set;
            this.negated = negated;
        }

        @Override
        public boolean test(final Object[] row) {
            final Object v = row[index];
            if (v == null || v instanceof Double && ((Double) v).isNaN()) {
                return false;
            }
            boolean r;
            if (set != null) {
                r = false;
                for (final Object s : set) {
                    if (compare(v, s) == 0) {
                        r = true;
                        break;
                    }
                }
            } else {
                r = true;
                if (lo != null) {
                    final int c = compare(v, lo);
                    r = c > 0 || loInclusive && c == 0;
                }
                if (r && hi != null) {
                    final int c = compare(v, hi);
                    r = c < 0 || hiInclusive && c == 0;
                }
            }
            return r != negated;
        }
    }

    /** AND or OR. */
    public static final class Logic extends RowPredicate {
        private final boolean and;
        private final RowPredicate[] args;

        public Logic(final boolean and, final RowPredicate[] args) {
            this.and = and;
            this.args = args;
        }

        @Override
        public boolean test(final Object[] row) {
            for (final RowPredicate a : args) {
                if (a.test(row) != and) {
                    return !and;
                }
            }
            return and;
        }
    }
}
