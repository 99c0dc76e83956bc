package io.tradestore.query.exec;

import io.tradestore.core.schema.Column;

/**
 * A bound group key: a column, or a time bucket of a timestamp column. In packed mode its code is
 * {@code 0} for null, else {@code value - lo + 1} (buckets: {@code floor(ts / width) - lo + 1}), and the packed key is
 * the sum of {@code code * mult} over keys (a mixed-radix number).
 */
final class KeySpec {
    final int slot;
    final Column col;
    final long bucketNs;
    final String name;
    final String type;
    long lo;
    long radix;
    long mult;

    KeySpec(final int slot, final Column col, final long bucketNs, final String name) {
        this.slot = slot;
        this.col = col;
        this.bucketNs = bucketNs;
        this.name = name;
        this.type = bucketNs > 0 ? "timestamp" : col.typeName();
    }

    /** @param v a normalised value. @return the key value (bucket index for buckets), Long.MIN_VALUE for null. */
    long keyValue(final long v) {
        if (v == Long.MIN_VALUE) {
            return Long.MIN_VALUE;
        }
        return bucketNs > 0 ? Math.floorDiv(v, bucketNs) : v;
    }

    /** @param keyValue from {@link #keyValue}. @return the raw output value (bucket start for buckets). */
    long outputRaw(final long keyValue) {
        if (keyValue == Long.MIN_VALUE) {
            return Long.MIN_VALUE;
        }
        return bucketNs > 0 ? keyValue * bucketNs : keyValue;
    }
}
