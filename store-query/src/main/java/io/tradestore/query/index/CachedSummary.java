package io.tradestore.query.index;

/**
 * A summary {@link BitmapIndexes} keeps under its memory budget (value and bucket summaries, and indexes it could not
 * write: {@link HeldIndex}): its heap size, and when a query last used it, so that the least recently used idle ones
 * make room for new ones.
 */
abstract class CachedSummary {
    /** When a query last used it (on {@link BitmapIndexes}' clock, which touches it when it caches it). */
    private volatile long lastUsed;

    /** @param now the time of a use. */
    final void touch(final long now) {
        lastUsed = now;
    }

    /** @return when a query last used it. */
    final long lastUsed() {
        return lastUsed;
    }

    /** @return heap bytes held. */
    abstract long bytes();
}
