package io.tradestore.core.ingest;

import io.tradestore.core.StoreException;

/**
 * A failed load. The message is {@code FILE:LINE:COLUMN: reason} when a place in the input is to blame. The table
 * is at its last commit: before the load, or at the last {@code commitEvery} batch when intermediate commits were
 * asked for ({@link #rowsCommitted()} says how many rows of this load that is).
 */
public final class LoadException extends StoreException {
    private static final long serialVersionUID = 1L;

    private final String file;
    private final long line;
    private final long column;
    private final long rowsCommitted;

    /**
     * @param message       the message, naming the place to blame.
     * @param file          the input file, or null.
     * @param line          the 1-based line (a row for a Parquet file), or 0.
     * @param column        the 1-based column, or 0.
     * @param rowsCommitted rows of the load committed before the failure.
     */
    public LoadException(final String message, final String file, final long line, final long column,
        final long rowsCommitted) {
        super(message);
        this.file = file;
        this.line = line;
        this.column = column;
        this.rowsCommitted = rowsCommitted;
    }

    /** @return the input file to blame, or null. */
    public String file() {
        return file;
    }

    /** @return the 1-based line, or 0 when no line is to blame. */
    public long line() {
        return line;
    }

    /** @return the 1-based byte column in that line, or 0. */
    public long column() {
        return column;
    }

    /** @return rows of this load committed before the failure (only with commit-every; otherwise 0). */
    public long rowsCommitted() {
        return rowsCommitted;
    }
}
