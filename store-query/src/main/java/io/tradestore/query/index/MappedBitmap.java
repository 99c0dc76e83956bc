package io.tradestore.query.index;

import java.nio.ByteBuffer;

import org.roaringbitmap.BatchIterator;
import org.roaringbitmap.buffer.ImmutableRoaringBitmap;

/**
 * A bitmap read in place from an index file that also keeps its serialized bytes, so that it can be iterated by
 * {@link PortableBitmapIterator} (no object per container) instead of Roaring's own iterator.
 */
final class MappedBitmap extends ImmutableRoaringBitmap {
    private final ByteBuffer serialized;

    MappedBitmap(final ByteBuffer serialized) {
        super(serialized);
        this.serialized = serialized;
    }

    /** @param b any bitmap. @return an iterator over it that allocates nothing per container when it is mapped. */
    static BatchIterator iterator(final ImmutableRoaringBitmap b) {
        return b instanceof MappedBitmap ? new PortableBitmapIterator(((MappedBitmap) b).serialized)
            : b.getBatchIterator();
    }
}
