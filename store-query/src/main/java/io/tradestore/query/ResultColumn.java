package io.tradestore.query;

/**
 * A column of a query result.
 *
 * @param name          the output name (the aggregate's name, the group key's name or alias, or the column name).
 * @param type          the output type: {@code i8 i16 i32 i64 f64 decimal(s) timestamp symbol char} (as in schemas;
 *                      symbol and char values are strings).
 * @param approximate   whether values are approximate (percentiles).
 * @param relativeError the largest relative error of an approximate value, 0 when exact.
 */
public record ResultColumn(String name, String type, boolean approximate, double relativeError) {
    /**
     * An exact column.
     *
     * @param name the output name.
     * @param type the output type.
     */
    public ResultColumn(final String name, final String type) {
        this(name, type, false, 0.0);
    }
}
