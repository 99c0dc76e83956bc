package io.tradestore.query.exec;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;


import io.tradestore.query.QueryResult;
import io.tradestore.query.QueryStats;
import io.tradestore.query.ResultColumn;
import io.tradestore.query.ResultJson;

/** A materialised answer (groups or scan rows; never proportional to the rows scanned), streamed to JSON on request. */
public final class Result implements QueryResult {
    private static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'")
        .withZone(ZoneOffset.UTC);
    private final List<ResultColumn> columns;
    private final List<Object[]> rows;
    private final boolean truncated;
    private final QueryStats stats;
    private final boolean defaultEpochNanos;

    Result(final List<ResultColumn> columns, final List<Object[]> rows, final boolean truncated, final QueryStats stats,
           final boolean defaultEpochNanos) {
        this.columns = List.copyOf(columns);
        this.rows = rows;
        this.truncated = truncated;
        this.stats = stats;
        this.defaultEpochNanos = defaultEpochNanos;
    }

    @Override
    public List<ResultColumn> columns() {
        return columns;
    }

    @Override
    public int rowCount() {
        return rows.size();
    }

    @Override
    public Object value(final int row, final int column) {
        if (row < 0 || row >= rows.size() || column < 0 || column >= columns.size()) {
            throw new IndexOutOfBoundsException("row=" + row + " rowCount=" + rows.size() + " column=" + column
                + " columnCount="
                + columns.size());
        }
        return rows.get(row)[column];
    }

    @Override
    public boolean truncated() {
        return truncated;
    }

    /**
     * @param first the stats of the query that chose the groups this narrowed query answered.
     * @return this answer, said to be cut at its limit (as the whole one was), with the rows both queries scanned and
     *     the pruning and matched rows of the first, whose filter is the query's own.
     */
    Result narrowedCopy(final QueryStats first) {
        return new Result(columns, rows, true, new QueryStats(stats.elapsedMicros(),
            first.rowsScanned() + stats.rowsScanned(), first.rowsMatched(), first.segmentsScanned(),
            first.segmentsSkipped(), first.blocksSkipped(), first.indexedSegments(), first.rowsSummarized()),
            defaultEpochNanos);
    }

    @Override
    public QueryStats stats() {
        return stats;
    }

    /** @return whether the query asked for epoch-nanosecond timestamps ({@code options.epochNanos}). */
    public boolean epochNanosRequested() {
        return defaultEpochNanos;
    }

    /** @param nanos epoch nanoseconds. @return ISO-8601 UTC with nine fraction digits. */
    public static String iso(final long nanos) {
        return ISO.format(
            Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L)));
    }

    @Override
    public void writeJson(final OutputStream out, final boolean epochNanos) throws IOException {
        ResultJson.write(this, out, epochNanos || defaultEpochNanos);
    }
}
