package io.tradestore.query.model;

/**
 * One sort key, by output name.
 *
 * @param col  output column name.
 * @param desc descending.
 */
public record OrderKey(String col, boolean desc) {
}
