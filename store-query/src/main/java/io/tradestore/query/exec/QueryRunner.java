package io.tradestore.query.exec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;
import java.util.function.LongSupplier;

import io.tradestore.core.TableSnapshot;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryCancel;
import io.tradestore.query.QueryException;
import io.tradestore.query.QueryResult;
import io.tradestore.query.QueryStats;
import io.tradestore.query.RowStream;
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
        final Function<Query, Plan> bind = q -> {
            final Plan p = Binder.bind(q, snap, startNanos);
            if (morselRows > 0) {
                p.morselRows = morselRows;
            }
            if (smallQueryRows >= 0) {
                p.smallQueryRows = smallQueryRows;
            }
            p.clock = clock;
            p.cancel = cancel;
            return p;
        };
        final Plan plan = bind.apply(query);
        final QueryResult[] first = new QueryResult[1];
        final Function<Query, QueryResult> runner = q -> {
            first[0] = Executor.run(bind.apply(q), pool, threads, selector, startNanos);
            return first[0];
        };
        Query narrowed = LeadingKeyLimit.narrow(plan, runner);
        if (narrowed == null) {
            narrowed = TopGroupsLimit.narrow(plan, runner);
        }
        if (narrowed == null) {
            return Executor.run(plan, pool, threads, selector, startNanos);
        }
        // the groups left out are past the limit: there are more than it, as there were before narrowing
        return Executor.run(bind.apply(narrowed), pool, threads, selector, startNanos).narrowedCopy(first[0].stats());
    }

    /** Row ids per batch of a streamed scan. */
    static final int STREAM_BATCH = 4096;

    /**
     * @param query a query.
     * @return whether {@link #stream} sends it in batches as it reads (an unsorted scan) rather than whole.
     */
    public static boolean streams(final Query query) {
        return query.isScan() && query.orderBy().isEmpty();
    }

    /**
     * Runs a query into a stream: an unsorted scan in batches as it reads (no scan limit applies; its offset and
     * limit, if any, cut it), any other query as one batch.
     *
     * @param query      the query.
     * @param snap       the snapshot to read.
     * @param pool       worker pool.
     * @param threads    workers per query (the caller counts as one).
     * @param selector   bitmap-index selection for sealed segments, or null.
     * @param startNanos when the query started, by {@code clock}.
     * @param clock      the clock of its deadline.
     * @param cancel     stops the query from another thread, or null.
     * @param out        where the rows go.
     * @throws UncheckedIOException when {@code out} fails: the query stops.
     */
    public static void stream(final Query query, final TableSnapshot snap,
        final ExecutorService pool, final int threads, final SegmentSelector selector, final long startNanos,
        final LongSupplier clock, final QueryCancel cancel, final RowStream out) {
        if (!streams(query)) {
            final Query whole = whole(query);
            final QueryResult r = run(whole, snap, pool, threads, selector, startNanos, 0, -1, clock, cancel);
            if (whole != query && r.truncated()) {
                throw new QueryException(ErrorCode.TOO_MANY_ROWS, "an ordered scan is sorted whole, and this one "
                    + "matches more than the " + Binder.MAX_SCAN_LIMIT + " rows it may hold: add LIMIT, narrow the "
                    + "filter or time range, or leave out ORDER BY to stream every row", "/orderBy/0");
            }
            send(out, r);
            return;
        }
        // bound without limit and offset: the whole answer's caps do not apply to a stream
        final Plan plan = Binder.bind(query.withPage(null, null), snap, startNanos);
        plan.clock = clock;
        plan.cancel = cancel;
        final QueryStats none = new QueryStats(0, 0, 0, 0, 0, 0, 0, 0);
        final boolean[] sent = {false};
        final QueryStats stats = StreamedScan.run(plan, selector, (ids, n) -> {
            send(out, new Result(plan.columns, ResultRows.scanRows(plan, Arrays.copyOf(ids, n)), false, none,
                plan.epochNanos));
            sent[0] = true;
        }, STREAM_BATCH, query.skip(), query.limit() == null ? Long.MAX_VALUE : query.limit(), startNanos);
        if (!sent[0]) {
            send(out, new Result(plan.columns, List.of(), false, stats, plan.epochNanos)); // the columns, no rows
        }
    }

    /**
     * @return the query as a stream answers it whole: an ordered scan without a limit sorts every row it matches up
     *     to the largest answer (never the first page a JSON answer defaults to), and fails past that rather than
     *     leave rows out unsaid.
     */
    private static Query whole(final Query q) {
        if (!q.isScan() || q.limit() != null) {
            return q;
        }
        return q.withPage((int) Math.max(0, Binder.MAX_SCAN_LIMIT - q.skip()), q.offset());
    }

    private static void send(final RowStream out, final QueryResult batch) {
        try {
            out.rows(batch);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
