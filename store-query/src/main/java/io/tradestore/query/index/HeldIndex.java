package io.tradestore.query.index;

/**
 * A sealed segment's index whose file could not be written (a read-only store, a full disk), kept on the heap under the
 * summaries' budget so that it is evicted when idle as they are.
 */
final class HeldIndex extends CachedSummary {
    private final SegmentIndex index;
    private final long bytes;

    /** @param index the index, over a heap buffer. @param bytes that buffer's size. */
    HeldIndex(final SegmentIndex index, final long bytes) {
        this.index = index;
        this.bytes = bytes;
    }

    /** @return the index. */
    SegmentIndex index() {
        return index;
    }

    @Override
    long bytes() {
        return bytes;
    }
}
