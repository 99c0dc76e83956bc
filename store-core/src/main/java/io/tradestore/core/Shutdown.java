package io.tradestore.core;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/** Stopping background threads that may still read mapped memory. */
public final class Shutdown {
    private Shutdown() {
    }

    /**
     * Shuts the executor down and waits until its tasks have ended, however long and whether or not this thread is
     * interrupted meanwhile (the interrupt is kept for the caller): a task still reading a mapping must end before the
     * caller unmaps it.
     *
     * @param executor the executor.
     */
    public static void awaitTasks(final ExecutorService executor) {
        executor.shutdown();
        boolean interrupted = false;
        while (true) {
            try {
                if (executor.awaitTermination(1, TimeUnit.SECONDS)) {
                    break;
                }
            } catch (final InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
