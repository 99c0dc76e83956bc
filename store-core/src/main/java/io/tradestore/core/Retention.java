package io.tradestore.core;

/**
 * What a retention drop ({@link TableWriter#dropOlderThan}) did.
 *
 * @param segments segments dropped.
 * @param rows     rows dropped.
 * @param firstRow the table's first row now (rows below it are gone).
 */
public record Retention(int segments, long rows, long firstRow) {
}
