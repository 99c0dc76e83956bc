package io.tradestore.core.ingest;

import java.util.ArrayList;
import java.util.List;

import io.tradestore.core.schema.Schema;

/**
 * One chunk's parsed rows, column by column in native memory at the table's widths (so the appender copies them
 * with memcpy), plus the chunk's local symbol tables, its rejects and where parsing stopped. Reused from chunk to
 * chunk; owned by the loader, freed exactly once by {@link #close()}.
 */
final class ChunkBuffer implements AutoCloseable {
    /** A row that failed: line relative to the chunk's first line, 1-based byte column, reason. */
    record Reject(int relativeLine, long column, String message) {
    }

    final Schema schema;
    final int[] widths;
    /** The columns' native addresses (the same array as {@link #memory}'s). */
    final long[] columns;
    final LocalSymbols[] symbols;
    private final NativeColumns memory;
    int rows;

    // what was parsed: file offsets (of the decompressed stream for gzip) and lines
    CsvInput input;
    long startOffset;
    long endOffset;
    int linesConsumed;
    boolean incomplete;
    /** Parsing stopped early at {@link #endOffset} because the chunk had many rejects; the rest is parsed next. */
    boolean truncated;
    final List<Reject> rejects = new ArrayList<>();
    /** The first bad row when the load fails on errors (parsing stopped there), or null. */
    Reject error;
    long parseNanos;

    ChunkBuffer(final Schema schema, final int initialRows) {
        this.schema = schema;
        this.symbols = LocalSymbols.perColumn(schema);
        this.memory = new NativeColumns(schema, Math.max(16, initialRows));
        this.widths = memory.widths;
        this.columns = memory.columns;
    }

    /** @return rows there is room for. */
    int capacity() {
        return memory.capacity();
    }

    /** Doubles the row capacity, keeping the rows parsed so far. */
    void grow() {
        memory.grow(rows);
    }

    void reset(final CsvInput in, final long start) {
        this.input = in;
        this.startOffset = start;
        this.endOffset = start;
        this.rows = 0;
        this.linesConsumed = 0;
        this.incomplete = false;
        this.truncated = false;
        this.rejects.clear();
        this.error = null;
        for (final LocalSymbols s : symbols) {
            if (s != null) {
                s.clear();
            }
        }
    }

    @Override
    public void close() {
        memory.close();
    }
}
