package io.tradestore.query;

import io.tradestore.query.plan.Literals;

/** The engine's reading of timestamp text, for the front ends that take timestamps from their own protocols. */
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
}
