package io.tradestore.query.exec.group;

import io.tradestore.core.schema.Column;

/**
 * A bound group key: a column, or a time bucket of a timestamp column. In packed mode its code is
 * {@code 0} for null, else {@code value - lo + 1} (buckets: {@code floor(ts / width) - lo + 1}, calendar buckets
 * {@code floor(month / months) - lo + 1} with months counted from January 1970), and the packed key is the sum of
 * {@code code * mult} over keys (a mixed-radix number).
 */
public final class KeySpec {
    public final int slot;
    public final Column col;
    public final long bucketNs;
    /** Months per bucket of a calendar bucket ({@code P1M}, {@code P1Y}: {@link #bucketNs} is 0), else 0. */
    final int bucketMonths;
    final String name;
    public final String type;
    public long lo;
    public long radix;
    public long mult;
    /**
     * A one-byte key of a dense, direct plan whose code is the raw byte {@code v & 0xFF} (radix 256): no null select
     * and no range check per row, since every byte is a valid code. Its null is the code {@code nullBits & 0xFF}.
     */
    public boolean rawByte;

    public KeySpec(final int slot, final Column col, final long bucketNs, final int bucketMonths, final String name) {
        this.slot = slot;
        this.col = col;
        this.bucketNs = bucketNs;
        this.bucketMonths = bucketMonths;
        this.name = name;
        this.type = bucket() ? "timestamp" : col.typeName();
    }

    /** @return whether this key is a time bucket, of fixed width or of calendar months. */
    public boolean bucket() {
        return bucketNs > 0 || bucketMonths > 0;
    }

    /** @param v a normalised value. @return the key value (bucket index for buckets), Long.MIN_VALUE for null. */
    public long keyValue(final long v) {
        if (v == Long.MIN_VALUE) {
            return Long.MIN_VALUE;
        }
        if (bucketMonths > 0) {
            return Math.floorDiv(CalendarMonths.of(v), bucketMonths);
        }
        return bucketNs > 0 ? Math.floorDiv(v, bucketNs) : v;
    }

    /** @param code a packed code of this key. @return the raw output value (Long.MIN_VALUE: null). */
    long decode(final long code) {
        if (rawByte) {
            return code == (col.type().nullBits() & 0xFF) ? Long.MIN_VALUE : (byte) code;
        }
        return code == 0 ? Long.MIN_VALUE : outputRaw(lo + code - 1);
    }

    /**
     * @param s a segment.
     * @return whether its zone map proves every non-null value of this key within the packed range, so that per-row
     *     range checks can be left out (the zone maps are trusted exactly as far as block pruning trusts them).
     */
    public boolean provenIn(final io.tradestore.core.segment.Segment s) {
        if (rawByte) {
            return true;
        }
        if (bucket()) {
            return false;
        }
        final long min = s.zoneMin(-1, col.index());
        final long max = s.zoneMax(-1, col.index());
        return min > max || min >= lo && max <= lo + radix - 2;
    }

    /**
     * @param keyValue from {@link #keyValue}.
     * @return the raw output value: for buckets the bucket's start, or the smallest timestamp (Long.MIN_VALUE + 1) for
     *             a bucket starting before it (the first bucket of the range starts at Long.MIN_VALUE, the null marker,
     *             for widths dividing 2^63, and below the range of a long for the others: it would wrap around to a
     *             far-future timestamp).
     */
    long outputRaw(final long keyValue) {
        if (bucketMonths > 0 && keyValue != Long.MIN_VALUE) {
            return CalendarMonths.start(keyValue * bucketMonths);
        }
        if (keyValue == Long.MIN_VALUE || bucketNs <= 0) {
            return keyValue;
        }
        // -(MAX / width) = ceil((MIN + 1) / width): the first bucket whose start is a timestamp
        return keyValue < -(Long.MAX_VALUE / bucketNs) ? Long.MIN_VALUE + 1 : keyValue * bucketNs;
    }
}
