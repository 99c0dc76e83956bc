package io.tradestore.query.exec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.function.LongSupplier;

import io.tradestore.core.TableSnapshot;
import io.tradestore.query.QueryCancel;
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

    /** Row ids per batch of a streamed scan. */
    static final int STREAM_BATCH = 4096;

    /**
     * Runs a query into a stream: an unsorted scan in batches as it reads (no scan limit applies), any other query as
     * one batch. The first {@code skip} rows of the answer are left out; the query's limit, if any, counts them (as a
     * model query translated from SQL's LIMIT and OFFSET does).
     *
     * @param query      the query.
     * @param skip       rows of the answer left out first (an SQL OFFSET).
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
    public static void stream(final Query query, final long skip, final TableSnapshot snap,
        final ExecutorService pool, final int threads, final SegmentSelector selector, final long startNanos,
        final LongSupplier clock, final QueryCancel cancel, final RowStream out) {
        final Query unlimited = new Query(query.table(), query.time(), query.filter(), query.columns(),
            query.groupBy(), query.aggs(), query.having(), query.orderBy(), null, null, query.options());
        final Plan plan = Binder.bind(unlimited, snap, startNanos);
        if (!plan.scan || !query.orderBy().isEmpty()) {
            final QueryResult whole = run(query, snap, pool, threads, selector, startNanos, 0, -1, clock, cancel);
            try {
                out.rows(skip == 0 ? whole : new Result(whole.columns(), skipped(whole, skip), whole.truncated(),
                    whole.stats(), plan.epochNanos));
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
            return;
        }
        plan.clock = clock;
        plan.cancel = cancel;
        // an SQL OFFSET (skip) is counted in the model's limit; a JSON offset is not
        final long limit = query.limit() == null ? Long.MAX_VALUE : Math.max(0, query.limit() - skip);
        final QueryStats[] none = {new QueryStats(0, 0, 0, 0, 0, 0, 0, 0)};
        final boolean[] sent = {false};
        final QueryStats stats = StreamedScan.run(plan, selector, (ids, n) -> {
            try {
                out.rows(new Result(plan.columns, ResultRows.scanRows(plan, Arrays.copyOf(ids, n)), false, none[0],
                    plan.epochNanos));
                sent[0] = true;
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
        }, STREAM_BATCH, skip + query.skip(), limit, startNanos);
        if (!sent[0]) {
            try {
                out.rows(new Result(plan.columns, List.of(), false, stats, plan.epochNanos)); // the columns, no rows
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static List<Object[]> skipped(final QueryResult r, final long skip) {
        final List<Object[]> rows = new ArrayList<>();
        for (int i = (int) Math.min(skip, r.rowCount()); i < r.rowCount(); i++) {
            final Object[] row = new Object[r.columns().size()];
            for (int c = 0; c < row.length; c++) {
                row[c] = r.value(i, c);
            }
            rows.add(row);
        }
        return rows;
    }
}
