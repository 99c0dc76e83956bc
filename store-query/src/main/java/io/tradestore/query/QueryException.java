package io.tradestore.query;

import io.tradestore.core.StoreException;

/** A query that cannot be answered: a named code, a message that says what is allowed, and the JSON path at fault. */
public class QueryException extends StoreException {
    private static final long serialVersionUID = 1L;
    private final ErrorCode code;
    private final String path;
    private final boolean storeProblem;

    /**
     * Creates the exception.
     *
     * @param code    the error code.
     * @param message what was wrong and what is allowed.
     * @param path    JSON pointer of the offending part ({@code /filter/args/0/col}), or "" for the whole query.
     */
    public QueryException(final ErrorCode code, final String message, final String path) {
        this(code, message, path, null, false);
    }

    /**
     * Creates the exception with a cause (for INTERNAL errors: a bug, whose cause is for logs only).
     *
     * @param code    the error code.
     * @param message the message.
     * @param path    the JSON pointer.
     * @param cause   the underlying failure.
     */
    public QueryException(final ErrorCode code, final String message, final String path, final Throwable cause) {
        this(code, message, path, cause, false);
    }

    private QueryException(final ErrorCode code, final String message, final String path, final Throwable cause,
        final boolean storeProblem) {
        super(message, cause);
        this.code = code;
        this.path = path == null ? "" : path;
        this.storeProblem = storeProblem;
    }

    /**
     * @param message what the store holds that is wrong, naming the file (a table that does not open, damaged data).
     * @param cause   the failure that showed it.
     * @return INTERNAL marked as a problem of the stored data or files, whose message a server may show.
     */
    public static QueryException storeProblem(final String message, final Throwable cause) {
        return new QueryException(ErrorCode.INTERNAL, message, "", cause, true);
    }

    /**
     * @param path  the JSON pointer of an integer field.
     * @param min   its smallest value.
     * @param max   its largest value.
     * @param value what was given.
     * @return INVALID_QUERY saying the field's range, as the model's constructors and the JSON parser say it.
     */
    public static QueryException outOfRange(final String path, final long min, final long max, final Object value) {
        return new QueryException(ErrorCode.INVALID_QUERY,
            "must be an integer between " + min + " and " + max + ", not " + value, path);
    }

    /**
     * @return whether this INTERNAL error reports a problem of the stored data or files (a table that does not open,
     *         damaged data), whose message a server may show, rather than a bug.
     */
    public boolean storeProblem() {
        return storeProblem;
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
