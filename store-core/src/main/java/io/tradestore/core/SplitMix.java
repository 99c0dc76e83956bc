package io.tradestore.core;

/**
 * The mixing step of the on-disk checksums ({@code _txn} slots, zone-map entries): splitmix64's finaliser, which makes
 * every output bit depend on every input bit, folded over the checksummed longs from {@link #SEED}. Not cryptographic:
 * it catches damage (flipped bits, torn or misplaced writes), not forgery.
 */
public final class SplitMix {
    /** The starting value a checksum's first long is mixed into (2^64 / golden ratio, splitmix64's increment). */
    public static final long SEED = 0x9E3779B97F4A7C15L;

    private SplitMix() {
    }

    /**
     * Mixes one long: {@code z' = ((z * 0xbf58476d1ce4e5b9) ^ ((z * 0xbf58476d1ce4e5b9) >>> 31)) * 0x94d049bb133111eb},
     * then {@code z' ^ (z' >>> 29)}.
     *
     * @param v the value, usually the checksum so far xor the next long.
     * @return the mixed value.
     */
    public static long mix(final long v) {
        long z = v * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 31)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 29);
    }
}
