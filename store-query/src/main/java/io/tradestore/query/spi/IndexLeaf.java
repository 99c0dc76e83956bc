package io.tradestore.query.spi;

/**
 * An eq/in/ne leaf an index may answer.
 *
 * @param column  the column.
 * @param values  sorted raw values (symbol codes, integers).
 * @param negated NOT IN (nulls excluded).
 * @param node    the filter leaf.
 */
public record IndexLeaf(int column, long[] values, boolean negated, Object node) {
}
