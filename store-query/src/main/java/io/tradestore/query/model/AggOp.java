package io.tradestore.query.model;

/**
 * The aggregate operators of the query language by their JSON names ({@link Agg#op()}): the one list that the parser,
 * the model's checks and the binder use, and that their error messages name.
 */
public enum AggOp {
    /** {@code count(*)}, or of the rows where a column (or product) is not null. */
    COUNT("count"),
    /** Exact sum of integer and decimal values; f64 otherwise. */
    SUM("sum"),
    /** Smallest value. */
    MIN("min"),
    /** Largest value. */
    MAX("max"),
    /** Mean. */
    AVG("avg"),
    /** The value at the smallest timestamp. */
    FIRST("first"),
    /** The value at the largest timestamp. */
    LAST("last"),
    /** sum(price*quantity)/sum(quantity). */
    VWAP("vwap"),
    /** Approximate percentile {@code p}. */
    PERCENTILE("percentile"),
    /** Exact count of distinct values. */
    COUNT_DISTINCT("countDistinct");

    /** The JSON names in this order, separated by spaces, as error messages list them. */
    public static final String NAMES = names();

    private static final AggOp[] VALUES = values();

    private final String jsonName;

    AggOp(final String jsonName) {
        this.jsonName = jsonName;
    }

    /** @return the name in JSON queries and in {@link Agg#op()}. */
    public String jsonName() {
        return jsonName;
    }

    /** @param jsonName a name from a query, or null. @return its operator, or null when there is none of that name. */
    public static AggOp of(final String jsonName) {
        for (final AggOp op : VALUES) {
            if (op.jsonName.equals(jsonName)) {
                return op;
            }
        }
        return null;
    }

    private static String names() {
        final StringBuilder b = new StringBuilder();
        for (final AggOp op : values()) {
            b.append(b.length() == 0 ? "" : " ").append(op.jsonName);
        }
        return b.toString();
    }
}
