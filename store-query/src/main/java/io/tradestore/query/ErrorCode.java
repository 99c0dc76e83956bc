package io.tradestore.query;

/** The named failures of a query, with the HTTP status each maps to. */
public enum ErrorCode {
    /** The body is not JSON. */
    MALFORMED_JSON(400),
    /** The SQL text does not parse (a syntax error, with its line and column). */
    MALFORMED_SQL(400),
    /** The JSON is not a valid query (wrong field, type or operator). */
    INVALID_QUERY(400),
    /** A column the table does not have. */
    UNKNOWN_COLUMN(400),
    /** A table the store does not have. */
    UNKNOWN_TABLE(404),
    /** More groups than {@code options.maxGroups}. */
    TOO_MANY_GROUPS(400),
    /** A streamed ordered scan with more rows than one answer holds to sort. */
    TOO_MANY_ROWS(400),
    /** The server's queue is full; retry later. */
    OVERLOADED(503),
    /** The query ran longer than {@code options.timeoutMs}. */
    TIMEOUT(504),
    /** A bug: reported with an id that is also in the server log. */
    INTERNAL(500);

    private final int httpStatus;

    ErrorCode(final int httpStatus) {
        this.httpStatus = httpStatus;
    }

    /** @return the HTTP status for this code. */
    public int httpStatus() {
        return httpStatus;
    }
}
