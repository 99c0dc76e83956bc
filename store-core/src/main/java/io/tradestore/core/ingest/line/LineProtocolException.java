package io.tradestore.core.ingest.line;

import io.tradestore.core.StoreException;

/**
 * A request of line protocol that was refused, with where: the line (1-based, counting every line of the body), the
 * byte position within it (1-based) and the table column the value was meant for, when there was one. Nothing of the
 * request has been committed.
 */
public final class LineProtocolException extends StoreException {
    private static final long serialVersionUID = 1L;
    private final long line;
    private final int position;
    private final String column;

    LineProtocolException(final String message, final long line, final int position, final String column) {
        super(message);
        this.line = line;
        this.position = position;
        this.column = column;
    }

    /** @return the line the error is on (1-based), or 0 when it concerns the request as a whole. */
    public long line() {
        return line;
    }

    /** @return the byte position within the line (1-based), or 0 when unknown. */
    public int position() {
        return position;
    }

    /** @return the table column the value was meant for, or null. */
    public String column() {
        return column;
    }
}
