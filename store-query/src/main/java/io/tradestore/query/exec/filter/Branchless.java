package io.tradestore.query.exec.filter;

/**
 * Comparisons that yield 0 or 1 as a long without a branch. C2 compiles {@code cond ? 1 : 0} over a data-dependent
 * comparison into a jump, and a filter passing rows at random then mispredicts on many of them.
 */
final class Branchless {
    private Branchless() {
    }

    /** @return 1 when {@code x <= d} as unsigned 64-bit numbers, else 0 (Hacker's Delight, 2-12). */
    static long atMostUnsigned(final long x, final long d) {
        return 1L - (((~d & x) | (~(d ^ x) & (d - x))) >>> 63);
    }

    /** @return 1 when {@code lo <= v <= lo + span} for a non-negative unsigned span, else 0. */
    static long inSpan(final long v, final long lo, final long span) {
        return atMostUnsigned(v - lo, span);
    }

    /** @return 1 when {@code x != 0}, else 0. */
    static long nonZero(final long x) {
        return (x | -x) >>> 63;
    }
}
