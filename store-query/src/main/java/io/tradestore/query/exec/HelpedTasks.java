package io.tradestore.query.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import io.tradestore.query.exec.agg.Tasks;

/**
 * Tasks run by the calling thread and by helpers from the query pool, each taking the next task until none is left.
 * The calling thread never waits for a helper that has not started (one still queued behind other queries is
 * withdrawn), so a busy pool only slows the work down and never blocks it; it waits only for tasks a helper took.
 */
final class HelpedTasks implements Tasks {
    private static final int NEW = 0;
    private static final int RUNNING = 1;
    private static final int DONE = 2;
    private final ExecutorService pool;
    private final int helpers;

    /** @param pool the query pool. @param helpers pool threads to ask for, besides the calling one. */
    HelpedTasks(final ExecutorService pool, final int helpers) {
        this.pool = pool;
        this.helpers = helpers;
    }

    @Override
    public int workers() {
        return helpers + 1;
    }

    @Override
    public void run(final int count, final Body body) {
        final AtomicInteger next = new AtomicInteger();
        final AtomicIntegerArray states = new AtomicIntegerArray(helpers + 1);
        final List<Future<?>> futures = new ArrayList<>();
        for (int h = 1; h <= helpers && h < count; h++) {
            final int worker = h;
            try {
                futures.add(pool.submit(() -> {
                    if (states.compareAndSet(worker, NEW, RUNNING)) {
                        try {
                            take(next, count, worker, body);
                        } finally {
                            states.set(worker, DONE);
                        }
                    }
                }));
            } catch (final RejectedExecutionException e) {
                break; // the pool is shutting down: the calling thread runs what is left
            }
        }
        RuntimeException failure = null;
        try {
            take(next, count, 0, body);
        } catch (final RuntimeException e) {
            failure = e; // still wait for the tasks helpers took: they may share the caller's state
        }
        boolean interrupted = false;
        for (int h = 1; h <= futures.size(); h++) {
            if (states.compareAndSet(h, NEW, DONE)) {
                futures.get(h - 1).cancel(false);
                continue;
            }
            while (true) {
                try {
                    futures.get(h - 1).get();
                    break;
                } catch (final InterruptedException e) {
                    interrupted = true; // the helper's tasks are finite: wait for them, and keep the interrupt
                } catch (final ExecutionException e) {
                    final Throwable cause = e.getCause();
                    if (failure == null) {
                        failure = cause instanceof RuntimeException ? (RuntimeException) cause
                            : new IllegalStateException(cause);
                    }
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static void take(final AtomicInteger next, final int count, final int worker, final Body body) {
        try {
            for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                body.run(worker, i);
            }
        } catch (final RuntimeException | Error e) {
            next.set(count); // no other thread starts a task after a failure
            throw e;
        }
    }
}
