package io.tradestore.query;

import io.tradestore.query.parse.Utf8JsonCheck;

/**
 * Checks a query body's bytes as they pass, before the query is admitted, with the same errors the parser gives: the
 * body must be well-formed UTF-8 with no NUL among its first four bytes. A front end (the HTTP server) checks a body in
 * place with one, without copying it.
 *
 * <p>One check per body: pass every byte to {@link #accept(byte)} (its shape is Netty's {@code ByteProcessor}), then
 * ask {@link #problem()}. Not thread-safe.
 */
public final class JsonBodyCheck {
    private final Utf8JsonCheck check = new Utf8JsonCheck();

    /**
     * Reads the next byte of the body.
     *
     * @param value the byte.
     * @return false once the bytes are not UTF-8, whatever follows (more bytes change nothing then).
     */
    public boolean accept(final byte value) {
        return check.accept(value);
    }

    /**
     * @return the error of all the bytes passed, taken as the whole body: MALFORMED_JSON at path "" when they are not
     *         UTF-8 or hold a NUL among the first four; null when neither.
     */
    public QueryException problem() {
        return check.problem();
    }
}
