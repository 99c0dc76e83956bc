package io.tradestore.core.segment;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

/**
 * Who prepares which chunk of a writer's segment: the writer's background thread faults chunks in ahead of the writer
 * (and null-fills them for a row-by-row writer), and the writer takes a chunk that is still free itself, so both cores
 * fault fresh pages in while rows are appended. Each chunk is claimed exactly once, by compare-and-set:
 *
 * <pre>
 *   FREE --background faults it in--> READY, or CLAIMED --null fill--> NULLED (every row null)
 *   FREE --writer------> WRITER (the writer faults it in and writes it)
 *   READY/NULLED --writer enters the chunk--> WRITER       the writer waits while a chunk is CLAIMED
 * </pre>
 */
final class SegmentChunks {
    private static final int FREE = 0;
    private static final int CLAIMED = 1;
    private static final int READY = 2;
    private static final int NULLED = 3;
    private static final int WRITER = 4;
    private final int chunkRows;
    private final int chunkCount;
    /** Per chunk: FREE, CLAIMED, READY, NULLED or WRITER (see the class comment); empty for a reader's segment. */
    private final AtomicIntegerArray state;
    private volatile boolean stopped;

    /** A null fill of rows [from, to) of the segment. */
    @FunctionalInterface
    interface NullFill {
        void fill(int from, int to);
    }

    SegmentChunks(final int chunkRows, final int segmentRows, final boolean writable) {
        this.chunkRows = chunkRows;
        this.chunkCount = segmentRows / chunkRows;
        this.state = new AtomicIntegerArray(writable ? chunkCount : 0);
    }

    /** @return rows per chunk. */
    int chunkRows() {
        return chunkRows;
    }

    /** Stops {@link #prepare}: a run in another thread returns after its current chunk. */
    void stop() {
        stopped = true;
    }

    /**
     * Background side: faults every free chunk in, in row order, then claims it and, when {@code nullFill} says so at
     * that moment, fills it with null sentinels; returns at the end of the segment or when stopped. Chunks the writer
     * has taken are skipped.
     */
    void prepare(final BooleanSupplier nullFill, final IntConsumer populate, final NullFill fill) {
        for (int c = 0; c < state.length() && !stopped; c++) {
            if (state.get(c) != FREE) {
                continue;
            }
            // Fault the chunk in before claiming it (faulting never changes content, so it may race the writer): the
            // writer only ever waits for the short null fill below, not for the page faults.
            populate.accept(c);
            if (!nullFill.getAsBoolean()) {
                state.compareAndSet(c, FREE, READY);
            } else if (state.compareAndSet(c, FREE, CLAIMED)) {
                boolean nulled = false;
                try {
                    fill.fill(c * chunkRows, (c + 1) * chunkRows);
                    nulled = true;
                } finally {
                    state.set(c, nulled ? NULLED : READY);
                }
            }
        }
    }

    /**
     * Writer side, at the first row of a chunk it is about to write: takes the chunk. A free chunk is faulted in here,
     * on the writer's thread (one madvise call per file instead of one trap per page; pages the background thread has
     * faulted in already cost nothing); a chunk the background thread is null-filling is waited for (one pass of
     * stores over 3.2 MB), so that its null fill never races the writer's rows.
     *
     * @return whether every row of the chunk holds null sentinels (the background filled it and the writer never wrote
     *     into it before).
     */
    boolean claim(final int rowInSegment, final IntConsumer populate) {
        final int c = rowInSegment / chunkRows;
        while (true) {
            final int s = state.get(c);
            if (s == FREE) {
                if (state.compareAndSet(c, FREE, WRITER)) {
                    populate.accept(c);
                    return false;
                }
            } else if (s == CLAIMED) {
                Thread.yield();
            } else {
                if (s != WRITER) {
                    state.set(c, WRITER);
                }
                return s == NULLED;
            }
        }
    }

    /** Hands the chunks below {@code row} (and the one holding it) to the writer without faulting them. */
    void claimBelow(final int row) {
        final int end = Math.min(chunkCount, (row + chunkRows - 1) / chunkRows);
        for (int c = 0; c < end && c < state.length(); c++) {
            state.set(c, WRITER);
        }
    }

    /**
     * Hands every chunk from the one holding {@code row} on to the writer without faulting them, after waiting for a
     * null fill in progress: the background thread touches none of their pages afterwards.
     */
    void takeFrom(final int row) {
        for (int c = row / chunkRows; c < state.length(); c++) {
            while (true) {
                final int s = state.get(c);
                if (s == CLAIMED) {
                    Thread.yield();
                } else if (s == WRITER || state.compareAndSet(c, s, WRITER)) {
                    break;
                }
            }
        }
    }
}
