package io.tradestore.query;

/**
 * A column of a query result.
 *
 * @param name the output name (the aggregate's name, the group key's name or alias, or the column name).
 * @param type the output type: {@code i64 f64 decimal(s) timestamp symbol char} (as in schemas; symbol values are
 *             strings).
 */
public record ResultColumn(String name, String type) {
}
