package io.tradestore.server.pg;

import java.util.concurrent.ThreadLocalRandom;

import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;
import io.tradestore.query.sql.SqlException;

/**
 * An ErrorResponse: severity, SQLSTATE, message and, for a fault in the SQL text, its place as PostgreSQL gives it
 * (the character offset in the whole query string, from 1).
 *
 * @param severity ERROR or FATAL (the connection closes after a FATAL).
 * @param sqlState the five-character SQLSTATE.
 * @param message  what went wrong and what to do.
 * @param position 1-based character offset in the query string, or 0.
 */
record PgError(String severity, String sqlState, String message, int position) {
    static final String SYNTAX_ERROR = "42601";
    static final String UNDEFINED_COLUMN = "42703";
    static final String UNDEFINED_TABLE = "42P01";
    static final String FEATURE_NOT_SUPPORTED = "0A000";
    static final String QUERY_CANCELED = "57014";
    static final String ADMIN_SHUTDOWN = "57P01";
    static final String TOO_MANY_CONNECTIONS = "53300";
    static final String INSUFFICIENT_RESOURCES = "53000";
    static final String PROGRAM_LIMIT_EXCEEDED = "54000";
    static final String INVALID_PASSWORD = "28P01";
    static final String PROTOCOL_VIOLATION = "08P01";
    static final String CONNECTION_FAILURE = "08006";
    static final String INVALID_TEXT_REPRESENTATION = "22P02";
    static final String INVALID_BINARY_REPRESENTATION = "22P03";
    static final String NUMERIC_VALUE_OUT_OF_RANGE = "22003";
    static final String INVALID_SQL_STATEMENT_NAME = "26000";
    static final String INVALID_CURSOR_NAME = "34000";
    static final String DUPLICATE_PREPARED_STATEMENT = "42P05";
    static final String IN_FAILED_TRANSACTION = "25P02";
    static final String INTERNAL_ERROR = "XX000";
    /** What PostgreSQL says of a configuration parameter it does not have. */
    static final String UNDEFINED_OBJECT = "42704";
    /** A value a configuration parameter does not take. */
    static final String INVALID_PARAMETER_VALUE = "22023";
    /** A configuration parameter that cannot be set in a session. */
    static final String CANT_CHANGE_RUNTIME_PARAM = "55P02";
    /** The message a client's CancelRequest stops its query with, as PostgreSQL words it. */
    static final String CANCELED_BY_USER = "canceling statement due to user request";

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PgServer.class);

    /**
     * @param sqlState the SQLSTATE. @param message the message.
     * @return an ERROR without position.
     */
    static PgError of(final String sqlState, final String message) {
        return new PgError("ERROR", sqlState, message, 0);
    }

    /**
     * @param sqlState the SQLSTATE. @param message the message.
     * @return a FATAL error: the connection closes after it.
     */
    static PgError fatal(final String sqlState, final String message) {
        return new PgError("FATAL", sqlState, message, 0);
    }

    /**
     * @param e             a failure of a statement (the engine's or the catalog's).
     * @param text          the statement's text.
     * @param textOffset    where the statement starts in the query string (0 for the first).
     * @return the ErrorResponse: the code's SQLSTATE, and a SQL error's line and column as an offset.
     */
    static PgError of(final QueryException e, final String text, final int textOffset) {
        final ErrorCode code = e.code();
        final String message = e.getMessage();
        switch (code) {
            case TIMEOUT:
                return of(QUERY_CANCELED, message);
            case OVERLOADED:
                return of(INSUFFICIENT_RESOURCES, message);
            case TOO_MANY_GROUPS:
            case TOO_MANY_ROWS:
                return of(PROGRAM_LIMIT_EXCEEDED, message);
            case INTERNAL:
                return internal(e);
            default:
                break;
        }
        final String state = code == ErrorCode.UNKNOWN_COLUMN ? UNDEFINED_COLUMN
            : code == ErrorCode.UNKNOWN_TABLE ? UNDEFINED_TABLE
            : code == ErrorCode.MALFORMED_SQL || code == ErrorCode.MALFORMED_JSON ? SYNTAX_ERROR
            : FEATURE_NOT_SUPPORTED;
        final int position = e instanceof SqlException s ? offset(text, s.line(), s.column()) + textOffset + 1 : 0;
        return new PgError("ERROR", state, message, position);
    }

    /**
     * @param t a bug, or a store that cannot be read.
     * @return XX000 with an id also written to the log; a store's message is shown, a bug's stays in the log.
     */
    static PgError internal(final Throwable t) {
        final String id = Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
        LOG.error("internal error id={} endpoint=pg: {}", id, String.valueOf(t), t);
        final boolean storeProblem = t instanceof QueryException q ? q.storeProblem()
            : t instanceof io.tradestore.core.StoreException;
        return of(INTERNAL_ERROR, storeProblem ? t.getMessage() + " (error id " + id + ")"
            : "internal error " + id + "; the server log has the details");
    }

    /**
     * @param text   a text.
     * @param line   a line in it, from 1.
     * @param column a column in that line, from 1.
     * @return the 0-based character offset of that place (clamped to the text).
     */
    static int offset(final String text, final int line, final int column) {
        int at = 0;
        for (int l = 1; l < line && at < text.length(); l++) {
            final int nl = text.indexOf('\n', at);
            if (nl < 0) {
                at = text.length();
                break;
            }
            at = nl + 1;
        }
        return Math.min(text.length(), at + Math.max(0, column - 1));
    }

    /** @return the HTTP status this error's outcome would have had, for the shared metrics. */
    int httpStatus() {
        switch (sqlState) {
            case QUERY_CANCELED:
                return 504;
            case INSUFFICIENT_RESOURCES:
            case ADMIN_SHUTDOWN:
                return 503;
            case UNDEFINED_TABLE:
                return 404;
            case INTERNAL_ERROR:
                return 500;
            default:
                return 400;
        }
    }
}
