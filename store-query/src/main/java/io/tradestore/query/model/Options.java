package io.tradestore.query.model;

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
}
