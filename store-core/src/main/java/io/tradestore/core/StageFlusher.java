package io.tradestore.core;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.tradestore.core.segment.Segment;
import io.tradestore.core.segment.StagingArea;

/**
 * A writer's second thread for its staging area: copies a full staging window into the segment files (write(2)) and
 * widens the zone maps from it ({@link Segment#writeStaged}), while the writer fills its other window. One window in
 * flight at most. Its data files are claimed one at a time by compare-and-set, by this thread and by the writer: when
 * the writer needs the window back ({@link #await}) before this thread is done (or before it was even scheduled on a
 * busy machine), it copies the files still unclaimed itself instead of waiting idle.
 *
 * <pre>
 *   writer: task fields, done = 0, claim = 0 (volatile), unpark
 *   both:   f = claim; CAS claim f -> f+1; writeStaged(file f); done++    (the last one unparks the writer)
 *   writer: await = claim and copy what is left, then wait for done == files
 * </pre>
 */
final class StageFlusher {
    /**
     * How long the thread waits awake for the next window before it parks ({@code tradestore.append.stageSpinNanos}).
     */
    private static final long SPIN_NANOS = Long.getLong("tradestore.append.stageSpinNanos", 100_000L);
    /**
     * How long the writer waits awake for the window in flight before it parks ({@code
     * tradestore.append.waitSpinNanos}).
     */
    private static final long WAIT_SPIN_NANOS = Long.getLong("tradestore.append.waitSpinNanos", 50_000L);
    private final Thread thread;
    private final int files;
    /** The next data file of the window in flight to copy; {@code >= files} when there is nothing to claim. */
    private final AtomicInteger claim;
    /** Files of the window in flight copied (or failed). */
    private final AtomicInteger done = new AtomicInteger();
    private volatile boolean stopped;
    /** The first failure of the window in flight; read and cleared by the writer in await. */
    private volatile Throwable failure;
    // written by the writer before it resets claim, read by claimers after a successful claim
    private Segment segment;
    private StagingArea area;
    private int areaRow0;
    private int from;
    private int to;
    private Thread waiter;

    StageFlusher(final String name, final int files) {
        this.files = files;
        this.claim = new AtomicInteger(files);
        this.done.set(files);
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Hands rows {@code [from, to)} of a segment, staged in {@code area} from segment row {@code areaRow0}, over. */
    void submit(final Segment s, final StagingArea a, final int row0, final int fromRow, final int toRow) {
        assert done.get() == files : "a staging window is already in flight";
        segment = s;
        area = a;
        areaRow0 = row0;
        from = fromRow;
        to = toRow;
        waiter = Thread.currentThread();
        done.set(0);
        claim.set(0);
        LockSupport.unpark(thread);
    }

    /** Copies the window's unclaimed files on this thread, waits until every file is in, and rethrows a failure. */
    void await() {
        copyClaimed();
        waitDone();
        final Throwable f = failure;
        if (f != null) {
            failure = null;
            throw f instanceof StoreException ? (StoreException) f
                : new StoreException("cannot copy staged rows into the segment files: " + f, f);
        }
    }

    /** Waits for the window in flight, then ends the thread. */
    void stop() {
        waitDone();
        stopped = true;
        LockSupport.unpark(thread);
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join(1000);
            } catch (final InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until every file of the window in flight is copied (or failed). */
    private void waitDone() {
        // awake first, then parked: a window is usually done within the spin, and parking costs a wake-up
        final long end = System.nanoTime() + WAIT_SPIN_NANOS;
        while (done.get() < files && System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
        while (done.get() < files) {
            // timed: close() may come from another thread than the one the flusher unparks
            LockSupport.parkNanos(this, 100_000L);
        }
    }

    /**
     * Claims and copies files of the window in flight until none is left to claim.
     *
     * @return whether this call copied any.
     */
    private boolean copyClaimed() {
        boolean any = false;
        while (true) {
            final int f = claim.get();
            if (f >= files) {
                return any;
            }
            if (!claim.compareAndSet(f, f + 1)) {
                continue;
            }
            any = true;
            try {
                segment.writeStaged(area, areaRow0, from, to, f);
            } catch (final Throwable t) {
                if (failure == null) {
                    failure = t;
                }
            }
            if (done.incrementAndGet() == files) {
                LockSupport.unpark(waiter);
            }
        }
    }

    private void run() {
        while (!stopped) {
            if (!copyClaimed() && !spinForWork()) {
                LockSupport.park(this);
            }
        }
    }

    /**
     * Waits awake up to {@link #SPIN_NANOS} for the next window: a writer appending flat out hands one over every few
     * hundred microseconds, and while this thread is still waking up the writer copies the window's files itself or
     * waits for them.
     *
     * @return whether a window came.
     */
    private boolean spinForWork() {
        final long end = System.nanoTime() + SPIN_NANOS;
        while (claim.get() >= files) {
            if (stopped || System.nanoTime() - end > 0) {
                return false;
            }
            Thread.onSpinWait();
        }
        return true;
    }
}
