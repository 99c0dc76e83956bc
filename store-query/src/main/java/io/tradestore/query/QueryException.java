package io.tradestore.query;

import io.tradestore.core.StoreException;

/** A query that cannot be answered: a named code, a message that says what is allowed, and the JSON path at fault. */
public class QueryException extends StoreException {
    private static final long serialVersionUID = 1L;
    private final ErrorCode code;
    private final String path;

    /**
     * Creates the exception.
     *
     * @param code    the error code.
     * @param message what was wrong and what is allowed.
     * @param path    JSON pointer of the offending part ({@code /filter/args/0/col}), or "" for the whole query.
     */
    public QueryException(final ErrorCode code, final String message, final String path) {
        super(message);
        this.code = code;
        this.path = path == null ? "" : path;
    }

    /**
     * Creates the exception with a cause (for INTERNAL errors). A {@link StoreException} cause (not a QueryException)
     * marks a problem of the stored data or files, whose message names the file and may be shown to users (see
     * {@link #storeProblem()}); any other cause is a bug, for logs only.
     *
     * @param code    the error code.
     * @param message the message.
     * @param path    the JSON pointer.
     * @param cause   the underlying failure.
     */
    public QueryException(final ErrorCode code, final String message, final String path, final Throwable cause) {
        super(message, cause);
        this.code = code;
        this.path = path == null ? "" : path;
    }

    /**
     * @param path  the JSON pointer of an integer field.
     * @param min   its smallest value.
     * @param max   its largest value.
     * @param value what was given.
     * @return INVALID_QUERY saying the field's range, as the model's constructors and the JSON parser say it.
     */
    public static QueryException outOfRange(final String path, final long min, final long max, final Object value) {
        return new QueryException(ErrorCode.INVALID_QUERY, "must be an integer between " + min + " and " + max + ", not " + value, path);
    }

    /**
     * @return whether this INTERNAL error reports a problem of the stored data or files (a table that does not open,
     *         damaged data), whose message a server may show, rather than a bug.
     */
    public boolean storeProblem() {
        return getCause() instanceof StoreException && !(getCause() instanceof QueryException);
    }

    /** @return the error code. */
    public ErrorCode code() {
        return code;
    }

    /** @return the JSON pointer of the offending part, "" for the whole query. */
    public String path() {
        return path;
    }
}
