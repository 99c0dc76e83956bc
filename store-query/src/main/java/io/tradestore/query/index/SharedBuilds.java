package io.tradestore.query.index;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;
import io.tradestore.query.spi.Deadline;

/**
 * Builds that queries share (an index or a summary of a segment): one build per key runs at a time, on the thread of
 * the query that asked first and under that query's deadline. A query asking meanwhile waits for that build under its
 * own deadline, so it gives up at its own {@code timeoutMs}, not at the end of a build another query started. A build
 * that ended with nothing (null: no room in the budget, timestamps out of order, keys outside the slots) answers its
 * waiters with nothing too, so no waiter makes the same pass again; one stopped by its query's deadline leaves the next
 * waiter to build. Nothing is built while a map's lock is held: {@code ConcurrentHashMap.compute} would hold its bin's
 * lock for the whole pass over a segment, blocking other computes and writes to keys of that bin too. An interrupted
 * waiter stops as a cancelled query does (TIMEOUT, "the query was interrupted", as the executor says it).
 *
 * @param <K> the key.
 */
final class SharedBuilds<K> {
    /** How often a waiting query checks its deadline. */
    private static final long WAIT_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private final ConcurrentHashMap<K, Running> running = new ConcurrentHashMap<>();

    /** A build in progress: ended when its latch opens. */
    private static final class Running extends CountDownLatch {
        /** Set before the latch opens: the build returned null, which answers its waiters too. */
        private volatile boolean nothing;

        Running() {
            super(1);
        }
    }

    /**
     * Builds a value the caller found no cached one of, or waits for another query's build of it.
     *
     * @param key      what is built.
     * @param deadline the asking query's.
     * @param lookup   the cached value when it answers, else null (asked by the builder once it holds the key, and by a
     *                 waiter after the build it waited for: another query may have built it in between).
     * @param build    builds, caches and returns the value (or returns null: nothing answers, nothing is cached).
     * @param <V>      the value.
     * @return what lookup or build returned; null when the build waited for returned null.
     * @throws RuntimeException what the deadline's check or the build threw (nothing is cached then).
     */
    <V> V get(final K key, final Deadline deadline, final Supplier<V> lookup, final Supplier<V> build) {
        while (true) {
            final Running mine = new Running();
            final Running other = running.putIfAbsent(key, mine);
            if (other == null) {
                try {
                    final V again = lookup.get();
                    final V v = again != null ? again : build.get();
                    mine.nothing = v == null;
                    return v;
                } finally {
                    running.remove(key, mine);
                    mine.countDown();
                }
            }
            waitFor(nanos -> other.await(nanos, TimeUnit.NANOSECONDS), deadline); // another query's build
            final V found = lookup.get();
            if (found != null || other.nothing) {
                return found;
            }
        }
    }

    /**
     * Takes a lock that a build holds (an open segment's index adds its chunks under one), checking the deadline every
     * {@link #WAIT_CHECK_NANOS} while another query holds it, unless what the caller needs is done meanwhile.
     *
     * @param lock     the lock.
     * @param deadline the asking query's.
     * @param enough   whether the caller needs the lock no more (another query's build published what it needs).
     * @return whether the lock is held now (false: {@code enough} said so first).
     */
    static boolean lock(final ReentrantLock lock, final Deadline deadline, final BooleanSupplier enough) {
        if (lock.tryLock()) {
            return true;
        }
        final boolean[] held = new boolean[1];
        waitFor(nanos -> enough.getAsBoolean() || (held[0] = lock.tryLock(nanos, TimeUnit.NANOSECONDS)), deadline);
        return held[0];
    }

    /** A wait that ends when it returns true, or gives up after a time. */
    @FunctionalInterface
    private interface TimedWait {
        boolean within(long nanos) throws InterruptedException;
    }

    /** Waits until {@code wait} succeeds, checking the deadline every {@link #WAIT_CHECK_NANOS}. */
    private static void waitFor(final TimedWait wait, final Deadline deadline) {
        while (true) {
            deadline.check();
            try {
                if (wait.within(WAIT_CHECK_NANOS)) {
                    return;
                }
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new QueryException(ErrorCode.TIMEOUT, "the query was interrupted", "");
            }
        }
    }
}
