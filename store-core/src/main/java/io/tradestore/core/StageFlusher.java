package io.tradestore.core;

import java.util.concurrent.locks.LockSupport;

import io.tradestore.core.segment.Segment;
import io.tradestore.core.segment.StagingArea;

/**
 * A writer's second thread for its staging area: copies one full staging window at a time into the segment files
 * (write(2)) and widens the zone maps from it ({@link Segment#writeStaged}), while the writer fills its other window.
 * One window in flight at most; the writer hands one over with {@link #submit} and waits for it with {@link #await}
 * before it reuses that window, publishes a commit, rolls back or closes.
 *
 * <pre>
 *   writer: fields, busy = true (volatile), unpark  --->  flusher: writeStaged, failure, busy = false, unpark writer
 * </pre>
 */
final class StageFlusher {
    private final Thread thread;
    private volatile boolean busy;
    private volatile boolean stopped;
    /** Set by the flusher before it clears busy; read and cleared by the writer in await. */
    private volatile Throwable failure;
    // written by the writer before it sets busy, read by the flusher after it sees busy
    private Segment segment;
    private StagingArea area;
    private int areaRow0;
    private int from;
    private int to;
    private Thread waiter;

    StageFlusher(final String name) {
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Hands rows {@code [from, to)} of a segment, staged in {@code area} from segment row {@code areaRow0}, over. */
    void submit(final Segment s, final StagingArea a, final int row0, final int fromRow, final int toRow) {
        assert !busy : "a staging window is already in flight";
        segment = s;
        area = a;
        areaRow0 = row0;
        from = fromRow;
        to = toRow;
        waiter = Thread.currentThread();
        busy = true;
        LockSupport.unpark(thread);
    }

    /** Waits until the window in flight (if any) is in the files; rethrows its failure. */
    void await() {
        while (busy) {
            // timed: close() may come from another thread than the one the flusher unparks
            LockSupport.parkNanos(this, 1_000_000L);
        }
        final Throwable f = failure;
        if (f != null) {
            failure = null;
            throw f instanceof StoreException ? (StoreException) f
                : new StoreException("cannot copy staged rows into the segment files: " + f, f);
        }
    }

    /** Waits for the window in flight, then ends the thread. */
    void stop() {
        while (busy) {
            // timed: close() may come from another thread than the one the flusher unparks
            LockSupport.parkNanos(this, 1_000_000L);
        }
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

    private void run() {
        while (!stopped) {
            if (!busy) {
                LockSupport.park(this);
                continue;
            }
            try {
                segment.writeStaged(area, areaRow0, from, to);
            } catch (final Throwable t) {
                failure = t;
            }
            busy = false;
            LockSupport.unpark(waiter);
        }
    }
}
