package io.tradestore.query.sql;

import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;

/** A SQL query that cannot be answered: a code, a message naming the construct, and its place in the SQL text. */
public final class SqlException extends QueryException {
    private static final long serialVersionUID = 1L;
    private final int line;
    private final int column;

    /**
     * Creates the exception.
     *
     * @param code    the error code.
     * @param message what was wrong and what is allowed.
     * @param pos     where in the SQL text.
     */
    public SqlException(final ErrorCode code, final String message, final SqlPos pos) {
        this(code, message, pos, null);
    }

    private SqlException(final ErrorCode code, final String message, final SqlPos pos, final Throwable cause) {
        super(code, message, "", cause);
        this.line = pos.line();
        this.column = pos.column();
    }

    /**
     * @param cause a failure of the translated query, with its JSON path.
     * @param pos   the place in the SQL text that the path came from.
     * @return the same code and message at that place.
     */
    static SqlException of(final QueryException cause, final SqlPos pos) {
        return new SqlException(cause.code(), cause.getMessage(), pos, cause);
    }

    /** @return the line in the SQL text, from 1. */
    public int line() {
        return line;
    }

    /** @return the column in the SQL text, from 1. */
    public int column() {
        return column;
    }
}
