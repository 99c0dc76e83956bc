package io.tradestore.server.admission;

/** A query a front end hands to the shared workers: run once on a worker, or stopped by the server's stop. */
public interface AdmittedQuery extends Runnable {
    /**
     * Runs the query on a worker and answers its client; never throws.
     */
    @Override
    void run();

    /**
     * The server's stop is past its grace: cancel the query, queued or running, and tell its client (may be called
     * from another thread while {@link #run()} runs, or instead of it).
     */
    void stopNow();
}
