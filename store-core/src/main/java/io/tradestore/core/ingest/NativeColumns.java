package io.tradestore.core.ingest;

import io.tradestore.core.memory.NativeMemory;

/**
 * Rows parsed ahead of a table's writer, column by column in native memory at the columns' widths, so that they reach
 * the segments by whole-column copies. Grows by doubling; freed exactly once by {@link #close()}. The arrays are the
 * buffer's own: {@link #columns} keeps its identity when it grows (its elements move).
 */
public final class NativeColumns implements AutoCloseable {
    /** Bytes per value of each column. */
    public final int[] widths;
    /** Native address of each column's row 0. */
    public final long[] columns;
    private int capacity;

    /**
     * @param widths      bytes per value of each column.
     * @param initialRows rows room is made for now.
     */
    public NativeColumns(final int[] widths, final int initialRows) {
        this.widths = widths.clone();
        this.columns = new long[widths.length];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = NativeMemory.allocate((long) this.widths[i] * initialRows);
        }
        this.capacity = initialRows;
    }

    /** @return rows there is room for. */
    public int capacity() {
        return capacity;
    }

    /**
     * Doubles the room, keeping the first rows.
     *
     * @param keep rows whose values move along.
     */
    public void grow(final int keep) {
        final int bigger = capacity * 2;
        for (int i = 0; i < columns.length; i++) {
            final long a = NativeMemory.allocate((long) widths[i] * bigger);
            NativeMemory.copy(columns[i], a, (long) widths[i] * keep);
            NativeMemory.free(columns[i], (long) widths[i] * capacity);
            columns[i] = a;
        }
        capacity = bigger;
    }

    @Override
    public void close() {
        if (capacity == 0) {
            return;
        }
        for (int i = 0; i < columns.length; i++) {
            NativeMemory.free(columns[i], (long) widths[i] * capacity);
            columns[i] = 0;
        }
        capacity = 0;
    }
}
