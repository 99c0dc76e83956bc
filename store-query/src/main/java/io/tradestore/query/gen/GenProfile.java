package io.tradestore.query.gen;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How the grammar fits one table: which columns play which part, how far queries may go, and how the DuckDB side is
 * typed. The grammar itself (what a filter, a key, an aggregate, a having, an order and a limit may be, and with what
 * odds) stays in {@link QueryGenerator} and {@link FilterGenerator}; a profile only names columns and bounds.
 *
 * @param timestamp       the designated timestamp (time ranges, first/last order, buckets).
 * @param altTimestamp    a second timestamp column one bucket in five is taken on (the designated one for none).
 * @param keyColumns      group-key columns, repeated to weight them.
 * @param cardinalities   rough distinct values of key columns (absent: a million), for group-count estimates.
 * @param percentileColumns columns percentiles are asked of.
 * @param products        column pairs aggregates may take the product {@code a*b} of.
 * @param indexedColumns  columns the value-summary-shaped queries filter on with eq or in.
 * @param barColumns      columns the bar-shaped (minute bucket) queries filter on.
 * @param selectiveColumns two columns an eq on which keeps an unlimited scan small (drawn with even odds).
 * @param noDistinct      columns countDistinct leaves alone besides f64 ones (unique keys, where it is a count).
 * @param scanPercent     share of queries that are scans, per cent.
 * @param nudges          whether one literal in ten is nudged or absent (unknown symbols, off-by-one numbers).
 * @param maxGroups       group keys are redrawn while the estimated groups would exceed this.
 * @param timestampStepNs drawn time bounds are whole multiples of this (the data's resolution).
 * @param spanNs          the time the table spans, for bucket-count estimates.
 * @param dialect         how DuckDB's side is typed and written.
 */
public record GenProfile(String timestamp, String altTimestamp, List<String> keyColumns,
    Map<String, Long> cardinalities, List<String> percentileColumns, List<List<String>> products,
    List<String> indexedColumns, List<String> barColumns, List<String> selectiveColumns, Set<String> noDistinct,
    int scanPercent, boolean nudges, long maxGroups, long timestampStepNs, long spanNs, Dialect dialect) {

    /** How the DuckDB table is typed, and so how queries are written for it. */
    public enum Dialect {
        /**
         * The differential test's: timestamps are BIGINT epoch nanos, first/last are ordered aggregates broken by a
         * {@code rid} row-number column, percentiles come back as sorted lists checked in Java.
         */
        ORACLE,
        /**
         * As a DuckDB user writes it: TIMESTAMP columns (microseconds; outputs through {@code epoch_ns}), first/last
         * as {@code arg_min}/{@code arg_max} by the timestamp (exact only where timestamps are unique), percentiles as
         * {@code quantile_disc} (the same nearest rank; checked within the engine's stated precision).
         */
        NATIVE
    }

    /** @param column a key column. @return its rough number of distinct values. */
    public long cardinality(final String column) {
        return cardinalities.getOrDefault(column, 1_000_000L);
    }
}
