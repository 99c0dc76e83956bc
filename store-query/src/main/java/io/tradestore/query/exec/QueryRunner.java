package io.tradestore.query.exec;

import java.util.concurrent.ExecutorService;
import java.util.function.LongSupplier;

import io.tradestore.core.TableSnapshot;
import io.tradestore.query.QueryCancel;
import io.tradestore.query.QueryResult;
import io.tradestore.query.model.Query;
import io.tradestore.query.spi.SegmentSelector;
import io.tradestore.query.plan.Binder;
import io.tradestore.query.plan.Plan;

/** The engine's entry into execution: bind a query to a snapshot and run it. */
public final class QueryRunner {
    private QueryRunner() {
    }

    /**
     * @param query      the query.
     * @param snap       the snapshot to read.
     * @param pool       worker pool.
     * @param threads    workers per query (the caller counts as one).
     * @param selector   bitmap-index selection for sealed segments, or null.
     * @param startNanos when the query started, by {@code clock}.
     * @param morselRows rows per work unit (0: the default).
     * @param smallQueryRows at most this many candidate rows run on the calling thread alone (negative: the default).
     * @param clock      the clock of its deadline ({@link System#nanoTime()}; tests move their own).
     * @param cancel     stops the query from another thread, or null.
     * @return the result.
     */
    public static QueryResult run(final Query query, final TableSnapshot snap, final ExecutorService pool,
        final int threads,
                                  final SegmentSelector selector, final long startNanos, final int morselRows,
                                  final long smallQueryRows,
                                  final LongSupplier clock, final QueryCancel cancel) {
        final Plan plan = Binder.bind(query, snap, startNanos);
        if (morselRows > 0) {
            plan.morselRows = morselRows;
        }
        if (smallQueryRows >= 0) {
            plan.smallQueryRows = smallQueryRows;
        }
        plan.clock = clock;
        plan.cancel = cancel;
        return Executor.run(plan, pool, threads, selector, startNanos);
    }
}
