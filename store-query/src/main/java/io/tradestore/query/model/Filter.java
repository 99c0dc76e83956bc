package io.tradestore.query.model;

import java.util.Arrays;
import java.util.List;

/**
 * A row filter: {@code eq ne in range and or not}. Values are kept as given (String, Long, BigInteger, BigDecimal) and
 * typed against the column when the query is planned.
 */
public sealed interface Filter permits Filter.Eq, Filter.Ne, Filter.In, Filter.Range, Filter.And, Filter.Or,
    Filter.Not {

    /** @param col column. @param value the value. */
    record Eq(String col, Object value) implements Filter {
    }

    /** @param col column. @param value the value. */
    record Ne(String col, Object value) implements Filter {
    }

    /** @param col column. @param values the set. */
    record In(String col, List<Object> values) implements Filter {
        /** Copies the list. */
        public In {
            values = List.copyOf(values);
        }
    }

    /**
     * A range; unset bounds are null.
     *
     * @param col column.
     * @param gt  exclusive lower bound.
     * @param gte inclusive lower bound.
     * @param lt  exclusive upper bound.
     * @param lte inclusive upper bound.
     */
    record Range(String col, Object gt, Object gte, Object lt, Object lte) implements Filter {
    }

    /** @param args conjuncts. */
    record And(List<Filter> args) implements Filter {
        /** Copies the list. */
        public And {
            args = List.copyOf(args);
        }
    }

    /** @param args disjuncts. */
    record Or(List<Filter> args) implements Filter {
        /** Copies the list. */
        public Or {
            args = List.copyOf(args);
        }
    }

    /** @param arg the negated filter (SQL three-valued logic: nulls never pass). */
    record Not(Filter arg) implements Filter {
    }

    /** @param col column. @param value value. @return {@code col = value}. */
    static Filter eq(final String col, final Object value) {
        return new Eq(col, value);
    }

    /** @param col column. @param value value. @return {@code col <> value}. */
    static Filter ne(final String col, final Object value) {
        return new Ne(col, value);
    }

    /** @param col column. @param values values. @return {@code col IN (values)}. */
    static Filter in(final String col, final Object... values) {
        return new In(col, Arrays.asList(values));
    }

    /** @param col column. @param from inclusive. @param to exclusive. @return {@code col >= from AND col < to}. */
    static Filter between(final String col, final Object from, final Object to) {
        return new Range(col, null, from, to, null);
    }

    /** @param col column. @param value bound. @return {@code col > value}. */
    static Filter gt(final String col, final Object value) {
        return new Range(col, value, null, null, null);
    }

    /** @param col column. @param value bound. @return {@code col >= value}. */
    static Filter gte(final String col, final Object value) {
        return new Range(col, null, value, null, null);
    }

    /** @param col column. @param value bound. @return {@code col < value}. */
    static Filter lt(final String col, final Object value) {
        return new Range(col, null, null, value, null);
    }

    /** @param col column. @param value bound. @return {@code col <= value}. */
    static Filter lte(final String col, final Object value) {
        return new Range(col, null, null, null, value);
    }

    /** @param args conjuncts. @return their AND. */
    static Filter and(final Filter... args) {
        return new And(Arrays.asList(args));
    }

    /** @param args disjuncts. @return their OR. */
    static Filter or(final Filter... args) {
        return new Or(Arrays.asList(args));
    }

    /** @param arg a filter. @return its negation. */
    static Filter not(final Filter arg) {
        return new Not(arg);
    }
}
