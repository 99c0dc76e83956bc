package io.tradestore.query.index;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.roaringbitmap.buffer.ImmutableRoaringBitmap;

/** One column's bitmap index of one sealed segment, mapped read-only; bitmaps are read in place. */
public final class SegmentIndex implements ValueRows {
    /** Marker for a column that is not worth indexing in a segment. */
    static final SegmentIndex NONE = new SegmentIndex(null, 0, 0, 0);
    private final ByteBuffer buffer;
    private final int rowCount;
    private final int slotCount;
    private final long min;

    SegmentIndex(final ByteBuffer buffer, final int rowCount, final int slotCount, final long min) {
        this.buffer = buffer == null ? null : buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        this.rowCount = rowCount;
        this.slotCount = slotCount;
        this.min = min;
    }

    /** @return slots: slot 0 holds the nulls, slot k the value {@code min() + k - 1}. */
    int slotCount() {
        return slotCount;
    }

    /** @return the value of slot 1. */
    long min() {
        return min;
    }

    /** @return rows covered. */
    public int rowCount() {
        return rowCount;
    }

    @Override
    public ImmutableRoaringBitmap nulls() {
        return slot(0);
    }

    @Override
    public ImmutableRoaringBitmap rows(final long value) {
        final long k = value - min;
        if (k < 0 || k >= slotCount - 1) {
            return slot(-1);
        }
        return slot((int) k + 1);
    }

    /** @return the slot's serialized bitmap, or null when it is empty. */
    private ByteBuffer serialized(final int s) {
        final long base = BitmapIndexDescriptor.dataOffset(slotCount);
        final long from = buffer.getLong(BitmapIndexDescriptor.OFFSETS_OFFSET + s * 8);
        final long to = buffer.getLong(BitmapIndexDescriptor.OFFSETS_OFFSET + (s + 1) * 8);
        if (to == from) {
            return null;
        }
        final ByteBuffer slice = buffer.duplicate();
        slice.position((int) (base + from)).limit((int) (base + to));
        return slice.slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * A view of a slot's bytes, made per call: a cached view per slot kept a few objects alive per (segment, value)
     * queried.
     */
    private ImmutableRoaringBitmap slot(final int s) {
        if (s < 0) {
            return EMPTY;
        }
        final ByteBuffer serialized = serialized(s);
        return serialized == null ? EMPTY : new MappedBitmap(serialized);
    }

    private static final ImmutableRoaringBitmap EMPTY = new org.roaringbitmap.buffer.MutableRoaringBitmap();
}
