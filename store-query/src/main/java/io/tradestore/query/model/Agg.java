package io.tradestore.query.model;

/**
 * An aggregate.
 *
 * @param name output name.
 * @param op   the JSON name of an {@link AggOp}: {@code count sum min max avg first last vwap percentile
 *             countDistinct}.
 * @param col  a column, a product {@code a*b}, or null (count; vwap uses price and quantity).
 * @param p    the percentile (0..100) of {@code percentile}, otherwise null.
 */
public record Agg(String name, String op, String col, Double p) {
    /** @param name output. @return {@code count(*)}. */
    public static Agg count(final String name) {
        return new Agg(name, AggOp.COUNT.jsonName(), null, null);
    }

    /** @param name output. @param col column or product. @return {@code sum(col)}. */
    public static Agg sum(final String name, final String col) {
        return new Agg(name, AggOp.SUM.jsonName(), col, null);
    }

    /** @param name output. @param col column. @return {@code min(col)}. */
    public static Agg min(final String name, final String col) {
        return new Agg(name, AggOp.MIN.jsonName(), col, null);
    }

    /** @param name output. @param col column. @return {@code max(col)}. */
    public static Agg max(final String name, final String col) {
        return new Agg(name, AggOp.MAX.jsonName(), col, null);
    }

    /** @param name output. @param col column or product. @return {@code avg(col)}. */
    public static Agg avg(final String name, final String col) {
        return new Agg(name, AggOp.AVG.jsonName(), col, null);
    }

    /** @param name output. @param col column. @return the value at the smallest timestamp. */
    public static Agg first(final String name, final String col) {
        return new Agg(name, AggOp.FIRST.jsonName(), col, null);
    }

    /** @param name output. @param col column. @return the value at the largest timestamp. */
    public static Agg last(final String name, final String col) {
        return new Agg(name, AggOp.LAST.jsonName(), col, null);
    }

    /** @param name output. @return sum(price*quantity)/sum(quantity). */
    public static Agg vwap(final String name) {
        return new Agg(name, AggOp.VWAP.jsonName(), null, null);
    }

    /** @param name output. @param col column. @param p percentile 0..100. @return approximate percentile. */
    public static Agg percentile(final String name, final String col, final double p) {
        return new Agg(name, AggOp.PERCENTILE.jsonName(), col, p);
    }

    /** @param name output. @param col column. @return exact distinct count. */
    public static Agg countDistinct(final String name, final String col) {
        return new Agg(name, AggOp.COUNT_DISTINCT.jsonName(), col, null);
    }
}
