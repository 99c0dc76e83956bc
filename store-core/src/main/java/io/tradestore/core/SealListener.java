package io.tradestore.core;

/**
 * Told when a commit makes segments wholly committed: their rows never change again, so derived files may be built
 * (see {@link TableWriter#onSeal}).
 */
@FunctionalInterface
public interface SealListener {
    /**
     * Called on the writer's thread right after the commit that published the last rows of segments
     * {@code [from, to)}; a reader's snapshot taken now holds them. Must return quickly and must not throw (the
     * commit is done): long work belongs on another thread.
     *
     * @param from the first segment now wholly committed.
     * @param to   the end (exclusive).
     */
    void sealed(int from, int to);

    /**
     * Called on the writer's thread right after retention dropped the segments below {@code first} (see
     * {@link TableWriter#dropOlderThan}): a listener's reader lets go of them.
     *
     * @param first the first segment kept.
     */
    default void dropped(final int first) {
    }

    /**
     * Called when the writer closes, first, while every segment file is still mapped (a store or table closing
     * closes its writer before its readers): work on the segments must end here.
     */
    default void writerClosing() {
    }
}
