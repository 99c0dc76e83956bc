package io.tradestore.core;

/**
 * The single switch for index checks at public entry points (Agrona's {@code SHOULD_BOUNDS_CHECK}); on unless
 * {@code -Dtradestore.boundsChecks=false}, which only benchmarks should use.
 */
public final class Bounds {
    /** Whether public entry points check row numbers, column ids and dictionary codes. */
    public static final boolean SHOULD_BOUNDS_CHECK = !"false".equals(System.getProperty("tradestore.boundsChecks"));

    private Bounds() {
    }

    /**
     * Checks {@code 0 <= index < limit}.
     *
     * @param name  the name of the index, used in the message.
     * @param index the index to check.
     * @param limit the exclusive upper bound.
     * @param what  the name of the bound, used in the message.
     */
    public static void checkIndex(final String name, final long index, final long limit, final String what) {
        if (index < 0 || index >= limit) {
            throw new IndexOutOfBoundsException(name + "=" + index + " " + what + "=" + limit);
        }
    }
}
