package io.tradestore.core.ingest;

/** The powers of ten a long holds and those a double holds exactly, for the parsers of CSV and of line protocol. */
public final class TenPowers {
    /** How many powers of ten a long holds: 10^0 to 10^18. */
    public static final int LONG_COUNT = 19;
    /** How many powers of ten a double holds exactly: 10^0 to 10^22. */
    public static final int EXACT_DOUBLE_COUNT = 23;

    static final long[] LONGS = {
        1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L, 1_000_000_000L,
        10_000_000_000L, 100_000_000_000L, 1_000_000_000_000L, 10_000_000_000_000L, 100_000_000_000_000L,
        1_000_000_000_000_000L, 10_000_000_000_000_000L, 100_000_000_000_000_000L, 1_000_000_000_000_000_000L,
    };
    static final double[] DOUBLES = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    };

    private TenPowers() {
    }

    /**
     * @param n 0 to 18.
     * @return 10^n.
     */
    public static long of(final int n) {
        return LONGS[n];
    }

    /**
     * @param n 0 to 22.
     * @return 10^n as a double, exactly.
     */
    public static double exactDouble(final int n) {
        return DOUBLES[n];
    }
}
