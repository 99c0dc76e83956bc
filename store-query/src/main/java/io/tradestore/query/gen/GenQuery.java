package io.tradestore.query.gen;

import java.util.List;

/**
 * One generated query in both languages, with what is needed to compare the answers.
 *
 * @param id       replay id ({@code seed/table/index}).
 * @param json     the tradestore query.
 * @param sql      the DuckDB query (ordered by the query's orderBy, without its limit: the limit is applied by the
 *                 comparison, which tolerates ties at the cut).
 * @param scan     whether this is a scan (no aggregates).
 * @param outputs  the output columns in order.
 * @param keyCount how many leading outputs are group keys (an aggregate query's rows are matched by them).
 * @param orderBy  output indexes the rows are ordered by (empty: no order is asserted).
 * @param limit    the limit, or -1.
 * @param offset   rows of the ordered answer left out before the limit's (0: none; only with a limit).
 * @param filter   the row filter (with the time range folded in), or null; evaluated in Java by the translation test.
 */
public record GenQuery(String id, String json, String sql, boolean scan, List<Output> outputs, int keyCount,
    List<Integer> orderBy,
                 int limit, int offset, Pred filter) {

    /** How an output column is checked against DuckDB. */
    public enum Check {
        /** Equal as numbers (any Java number type) or strings; null equals null. */
        EXACT,
        /** Doubles within a relative 1e-9. */
        RELATIVE,
        /** Average: SQL gives the exact sum and the count. */
        AVG,
        /** VWAP: SQL gives sum(price*quantity) and sum(quantity) over rows where both are present. */
        VWAP,
        /**
         * Percentile: SQL gives the sorted non-null values; the engine may be off by one rank and its stated precision.
         */
        PERCENTILE,
        /**
         * Percentile: SQL gives the nearest rank itself ({@code quantile_disc}); the engine must be within its stated
         * precision of it.
         */
        PERCENTILE_VALUE
    }

    /**
     * An output column.
     *
     * @param name       output name in the engine's result.
     * @param check      how to compare.
     * @param sqlColumns how many SQL result columns feed it (1, or 2 for AVG and VWAP).
     * @param percentile p of a percentile, else 0.
     * @param decimalScale the scale an exact decimal answer must carry, or -1 when not checked.
     */
    public record Output(String name, Check check, int sqlColumns, double percentile, int decimalScale) {
    }

    /**
     * @return the DuckDB query with the query's limit and offset, as a DuckDB user would run it (timed; the
     *     comparison runs {@link #sql} and applies them itself).
     */
    public String limitedSql() {
        return limit >= 0 ? sql + " LIMIT " + limit + (offset > 0 ? " OFFSET " + offset : "") : sql;
    }

    /** @return the text printed for a mismatch: the replay id, the JSON and the SQL. */
    public String describe() {
        return "query " + id + "\n  json: " + json + "\n  sql:  " + sql
            + (limit >= 0 ? "  -- then LIMIT " + limit + (offset > 0 ? " OFFSET " + offset : "") : "");
    }
}
