package io.tradestore.query;

import io.tradestore.query.exec.Result;
import io.tradestore.query.plan.Literals;

/** The engine's timestamp text, read and written, for the front ends that speak their own protocols. */
public final class Timestamps {
    private Timestamps() {
    }

    /**
     * Reads {@code YYYY-MM-DDTHH:MM:SS[.fraction]Z} without allocating, as query literals are read.
     *
     * @param text a timestamp text.
     * @return its epoch nanoseconds, or Long.MIN_VALUE for any other form or an invalid or out-of-range value.
     */
    public static long utcNanos(final String text) {
        return Literals.utc(text);
    }

    /**
     * Reads a timestamp as a query's {@code time} range reads it: ISO-8601 with {@code Z} or an offset, or a date
     * (its midnight UTC).
     *
     * @param text a timestamp text.
     * @return its epoch nanoseconds.
     * @throws QueryException INVALID_QUERY, saying what is wrong with it.
     */
    public static long nanos(final String text) {
        return Literals.timestamp(text, "");
    }

    /**
     * @param nanos epoch nanoseconds.
     * @return them as the JSON answer writes them: {@code 2026-11-17T10:00:00.000441000Z}.
     */
    public static String iso(final long nanos) {
        return Result.iso(nanos);
    }
}
