package io.tradestore.query.model;

import io.tradestore.query.QueryException;

/**
 * Query options; null means the default.
 *
 * @param timeoutMs  cancel after this many milliseconds (TIMEOUT).
 * @param maxGroups  fail with TOO_MANY_GROUPS above this many groups.
 * @param epochNanos timestamps in JSON output as integer epoch nanos.
 */
public record Options(Long timeoutMs, Long maxGroups, Boolean epochNanos) {
    /** No options. */
    public static final Options NONE = new Options(null, null, null);

    /**
     * Checks the limits (the same for JSON and for queries built in Java).
     *
     * @throws QueryException INVALID_QUERY at {@code /options/timeoutMs} or {@code /options/maxGroups} below 1.
     */
    public Options {
        if (timeoutMs != null && timeoutMs < 1) {
            throw QueryException.outOfRange("/options/timeoutMs", 1, Long.MAX_VALUE, timeoutMs);
        }
        if (maxGroups != null && maxGroups < 1) {
            throw QueryException.outOfRange("/options/maxGroups", 1, Long.MAX_VALUE, maxGroups);
        }
    }
}
