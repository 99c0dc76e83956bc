package io.tradestore.query;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import io.tradestore.core.Store;
import io.tradestore.core.StoreException;
import io.tradestore.core.TableCheck;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.exec.QueryRunner;
import io.tradestore.query.index.BitmapIndexes;
import io.tradestore.query.model.Options;
import io.tradestore.query.model.Query;
import io.tradestore.query.parse.QueryParser;
import io.tradestore.query.plan.Binder;
import io.tradestore.query.sql.SqlException;
import io.tradestore.query.sql.SqlParameters;
import io.tradestore.query.sql.SqlQuery;
import io.tradestore.query.sql.SqlTranslator;

/**
 * Runs queries against the tables of a store on a pool of worker threads sized to the cores. Each query reads the
 * latest commit at the moment it starts. Thread-safe: many queries may run at once.
 *
 * <pre>{@code
 * try (QueryEngine engine = new QueryEngine(store)) {
 *     QueryResult r = engine.execute(Query.builder("trades").groupBy("side")
 *         .agg(Agg.sum("notional", "price*quantity")).build());
 * }
 * }</pre>
 */
public final class QueryEngine implements AutoCloseable {
    private final Store store;
    private final int threads;
    private final ExecutorService pool;
    private final BitmapIndexes indexes = new BitmapIndexes();
    private final TableReaders readers;
    private volatile boolean useIndexes = true;
    private volatile int morselRows;
    private volatile long smallQueryRows = -1;
    private volatile long maxGroupsLimit = Long.MAX_VALUE;
    /** The clock of queries' start and deadline ({@link System#nanoTime()}; tests move their own). */
    private volatile LongSupplier clock = System::nanoTime;
    private boolean closed;
    /** The queries running now (guarded by this engine's monitor). */
    private final Set<QueryCancel> running = Collections.newSetFromMap(new IdentityHashMap<>());

    /**
     * Creates an engine with one worker per available core.
     *
     * @param store the store whose tables are queried.
     */
    public QueryEngine(final Store store) {
        this(store, Runtime.getRuntime().availableProcessors());
    }

    /**
     * Creates an engine.
     *
     * @param store   the store whose tables are queried.
     * @param threads worker threads per query (the calling thread is one of them).
     */
    public QueryEngine(final Store store, final int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads=" + threads + " must be at least 1");
        }
        this.store = store;
        this.readers = new TableReaders(store, indexes);
        this.threads = threads;
        final AtomicInteger n = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(Math.max(1, threads - 1), r -> {
            final Thread t = new Thread(r, "tradestore-query-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Parses a JSON query into the model without running it.
     *
     * @param json the query text (docs/query-language.md).
     * @return the model.
     * @throws QueryException MALFORMED_JSON or INVALID_QUERY with the JSON path.
     */
    public static Query parse(final String json) {
        return QueryParser.parse(json);
    }

    /**
     * Parses and runs a JSON query.
     *
     * @param json the query text (docs/query-language.md).
     * @return the result.
     * @throws QueryException with a code, a message and a JSON path when the query is bad, too big or too slow.
     */
    public QueryResult execute(final String json) {
        final long start = clock.getAsLong();
        return execute(QueryParser.parse(json), start, null);
    }

    /**
     * Parses and runs a JSON query that a server answers within {@code timeoutMs}: the engine cancels it (TIMEOUT) at
     * that limit unless its own {@code options.timeoutMs} is shorter, so a query the server has already answered 504
     * does not keep running.
     *
     * @param json      the query text.
     * @param timeoutMs the longest it may run.
     * @return the result.
     * @throws QueryException with a code, a message and a JSON path when the query is bad, too big or too slow.
     */
    public QueryResult execute(final String json, final long timeoutMs) {
        return execute(json, timeoutMs, null);
    }

    /**
     * Parses and runs a JSON query as {@link #execute(String, long)} does, which another thread may stop.
     *
     * @param json      the query text.
     * @param timeoutMs the longest it may run.
     * @param cancel    stops the query when cancelled (it fails with the cancel's code and message), or null.
     * @return the result.
     * @throws QueryException with a code, a message and a JSON path when the query is bad, too big, too slow or
     *                        cancelled.
     */
    public QueryResult execute(final String json, final long timeoutMs, final QueryCancel cancel) {
        final long start = clock.getAsLong();
        return execute(QueryParser.parse(json), timeoutMs, start, cancel);
    }

    /**
     * Parses and runs a JSON query read from its bytes (an HTTP body: no copy into a String first) that a server
     * answers within {@code timeoutMs}, as {@link #execute(String, long)} does.
     *
     * @param utf8Json  the query text in UTF-8, read to its end and closed (see {@link
     *                  QueryParser#parse(InputStream)}).
     * @param timeoutMs the longest it may run.
     * @return the result.
     * @throws QueryException with a code, a message and a JSON path when the query is bad, too big or too slow.
     */
    public QueryResult execute(final InputStream utf8Json, final long timeoutMs) {
        return execute(utf8Json, timeoutMs, null);
    }

    /**
     * Parses and runs a JSON query read from its bytes as {@link #execute(InputStream, long)} does, which another
     * thread may stop.
     *
     * @param utf8Json  the query text in UTF-8, read to its end and closed.
     * @param timeoutMs the longest it may run.
     * @param cancel    stops the query when cancelled (it fails with the cancel's code and message), or null.
     * @return the result.
     * @throws QueryException with a code, a message and a JSON path when the query is bad, too big, too slow or
     *                        cancelled.
     */
    public QueryResult execute(final InputStream utf8Json, final long timeoutMs, final QueryCancel cancel) {
        final long start = clock.getAsLong();
        return execute(QueryParser.parse(utf8Json), timeoutMs, start, cancel);
    }

    private QueryResult execute(final Query q, final long timeoutMs, final long start, final QueryCancel cancel) {
        final Query b = bounded(q, timeoutMs);
        if (b == q) {
            return execute(q, start, cancel);
        }
        try {
            return execute(b, start, cancel);
        } catch (final QueryException e) {
            if (e.code() == ErrorCode.TIMEOUT && "/options/timeoutMs".equals(e.path())) {
                // the limit is the caller's (a server's), not an options.timeoutMs the query's author wrote
                throw new QueryException(ErrorCode.TIMEOUT,
                    "the query did not finish within the server's limit of " + timeoutMs
                    + " ms; narrow the time range or filter", "");
            }
            throw e;
        }
    }

    /**
     * Runs a JSON query into a stream ({@link RowStream}): an unsorted scan goes out in batches while it reads, with no
     * scan limit (a {@code limit} still cuts it), never held whole; any other answer as one batch.
     *
     * @param utf8Json  the query.
     * @param timeoutMs the longest it may run.
     * @param cancel    stops the query when cancelled, or null.
     * @param out       where the rows go; when it throws, the query stops.
     * @throws QueryException as {@link #execute(String)}.
     * @throws UncheckedIOException when {@code out} failed.
     */
    public void stream(final InputStream utf8Json, final long timeoutMs, final QueryCancel cancel,
        final RowStream out) {
        final long start = clock.getAsLong();
        stream(bounded(QueryParser.parse(utf8Json), timeoutMs), start, timeoutMs, cancel, out);
    }

    /**
     * As {@link #stream(InputStream, long, QueryCancel, RowStream)}, for the query's text.
     *
     * @param json      the query.
     * @param timeoutMs the longest it may run.
     * @param cancel    stops the query when cancelled, or null.
     * @param out       where the rows go.
     */
    public void stream(final String json, final long timeoutMs, final QueryCancel cancel, final RowStream out) {
        final long start = clock.getAsLong();
        stream(bounded(parse(json), timeoutMs), start, timeoutMs, cancel, out);
    }

    /**
     * Runs SQL into a stream, as {@link #stream(InputStream, long, QueryCancel, RowStream)} runs JSON: each batch
     * shaped as the SQL asks, OFFSET's rows left out where the rows are ordered.
     *
     * @param sql       the SQL text.
     * @param timeoutMs the longest it may run.
     * @param cancel    stops the query when cancelled, or null.
     * @param out       where the rows go.
     * @throws QueryException as {@link #executeSql(String)}, and {@link ErrorCode#TOO_MANY_ROWS} for an ordered scan
     *     without LIMIT that matches more rows than one answer holds.
     */
    public void streamSql(final String sql, final long timeoutMs, final QueryCancel cancel, final RowStream out) {
        streamSql(sql, SqlParameters.NONE, timeoutMs, cancel, out);
    }

    /**
     * As {@link #streamSql(String, long, QueryCancel, RowStream)}, with {@code $n} placeholders bound to values.
     *
     * @param sql        the SQL text.
     * @param parameters the placeholders' values.
     * @param timeoutMs  the longest it may run.
     * @param cancel     stops the query when cancelled, or null.
     * @param out        where the rows go.
     * @throws QueryException as {@link #streamSql(String, long, QueryCancel, RowStream)}.
     */
    public void streamSql(final String sql, final SqlParameters parameters, final long timeoutMs,
        final QueryCancel cancel, final RowStream out) {
        final long start = clock.getAsLong();
        final SqlQuery q = translateSql(sql, parameters);
        try {
            stream(bounded(q.query(), timeoutMs), start, timeoutMs, cancel, batch -> out.rows(q.shape(batch)));
        } catch (final QueryException e) {
            throw q.locate(e);
        }
    }

    private void stream(final Query query, final long start, final long timeoutMs,
        final QueryCancel cancel, final RowStream out) {
        final QueryCancel own = cancel != null ? cancel : new QueryCancel();
        begin(own);
        try (TableReaders.Lease lease = readers.lend(query.table())) {
            QueryRunner.stream(query, lease.snapshot(), pool, threads, useIndexes ? indexes : null, start, clock,
                own, out);
        } catch (final QueryException e) {
            if (e.code() == ErrorCode.TIMEOUT && "/options/timeoutMs".equals(e.path())) {
                throw new QueryException(ErrorCode.TIMEOUT, "the query did not finish within the server's limit of "
                    + timeoutMs + " ms; narrow the time range or filter", "");
            }
            throw e;
        } catch (final UncheckedIOException e) {
            throw e;
        } catch (final StoreException e) {
            throw QueryException.storeProblem("store error while running the query: " + e.getMessage(), e);
        } catch (final RuntimeException e) {
            throw internal(e);
        } finally {
            end(own);
        }
    }

    /** @return the query with the caller's time limit, unless its own options ask for less. */
    private static Query bounded(final Query q, final long timeoutMs) {
        final Options o = q.options();
        if (o.timeoutMs() != null && o.timeoutMs() <= timeoutMs) {
            return q;
        }
        return q.withOptions(new Options(timeoutMs, o.maxGroups(), o.epochNanos()));
    }

    /**
     * Translates SQL text into the query model without running it (docs/sql.md).
     *
     * @param sql the SQL text: one {@code SELECT} from one table.
     * @return the model query and how its answer becomes the SQL answer.
     * @throws QueryException a {@link SqlException} with the line and column at fault, or UNKNOWN_TABLE.
     */
    public SqlQuery translateSql(final String sql) {
        return translateSql(sql, SqlParameters.NONE);
    }

    /**
     * Translates SQL text with {@code $n} placeholders, bound to values: the text is parsed once and its parse
     * cached by the text, so each execution of a prepared statement costs a translation, never a parse.
     *
     * @param sql        the SQL text.
     * @param parameters the placeholders' values, or {@link SqlParameters#describing()}.
     * @return the model query and how its answer becomes the SQL answer.
     * @throws QueryException as {@link #translateSql(String)}.
     */
    public SqlQuery translateSql(final String sql, final SqlParameters parameters) {
        return SqlTranslator.translate(sql, this::schema, parameters);
    }

    /**
     * The columns a SQL statement answers with, found by translating and planning it on the latest commit without
     * running it: what a PostgreSQL client asks before it executes a prepared statement.
     *
     * @param sql        the SQL text.
     * @param parameters the placeholders' values, or {@link SqlParameters#describing()} before they are known.
     * @return the answer's columns, as {@link QueryResult#columns()} will give them.
     * @throws QueryException as {@link #executeSql(String)} would for the same text.
     */
    public List<ResultColumn> describeSql(final String sql, final SqlParameters parameters) {
        final SqlQuery q = translateSql(sql, parameters);
        try (TableReaders.Lease lease = readers.lend(q.query().table())) {
            final List<ResultColumn> planned = Binder.bind(q.query(), lease.snapshot(), clock.getAsLong()).columns;
            return q.shape(new NoRows(planned)).columns();
        } catch (final QueryException e) {
            throw q.locate(e);
        }
    }

    /**
     * Translates and runs SQL text: the same model, planner and engine as a JSON query.
     *
     * @param sql the SQL text (docs/sql.md).
     * @return the answer, shaped as the SQL asks (its columns, names and OFFSET).
     * @throws QueryException a {@link SqlException} with the line and column at fault when the query is bad; the
     *                        code of a JSON query otherwise (TIMEOUT, OVERLOADED, INTERNAL).
     */
    public QueryResult executeSql(final String sql) {
        return executeSql(sql, Long.MAX_VALUE, null);
    }

    /**
     * Translates and runs SQL text that a server answers within {@code timeoutMs}, as {@link #execute(String, long,
     * QueryCancel)} runs JSON.
     *
     * @param sql       the SQL text.
     * @param timeoutMs the longest it may run.
     * @param cancel    stops the query when cancelled, or null.
     * @return the answer.
     * @throws QueryException as {@link #executeSql(String)}.
     */
    public QueryResult executeSql(final String sql, final long timeoutMs, final QueryCancel cancel) {
        return executeSql(sql, SqlParameters.NONE, timeoutMs, cancel);
    }

    /**
     * Translates and runs SQL text with {@code $n} placeholders bound to values ({@link #translateSql(String,
     * SqlParameters)}).
     *
     * @param sql        the SQL text.
     * @param parameters the placeholders' values.
     * @param timeoutMs  the longest it may run.
     * @param cancel     stops the query when cancelled, or null.
     * @return the answer.
     * @throws QueryException as {@link #executeSql(String)}.
     */
    public QueryResult executeSql(final String sql, final SqlParameters parameters, final long timeoutMs,
        final QueryCancel cancel) {
        final long start = clock.getAsLong();
        final SqlQuery q = translateSql(sql, parameters);
        try {
            return q.shape(execute(q.query(), timeoutMs, start, cancel));
        } catch (final QueryException e) {
            throw q.locate(e);
        }
    }

    /**
     * Runs a query built with {@link Query#builder(String)}.
     *
     * @param query the query.
     * @return the result.
     * @throws QueryException with a code, a message and a JSON path when the query is bad, too big or too slow.
     */
    public QueryResult execute(final Query query) {
        return execute(query, (QueryCancel) null);
    }

    /**
     * Runs a query built with {@link Query#builder(String)}, which another thread may stop.
     *
     * @param query  the query.
     * @param cancel stops the query when cancelled (it fails with the cancel's code and message), or null.
     * @return the result.
     * @throws QueryException with a code, a message and a JSON path when the query is bad, too big, too slow or
     *                        cancelled.
     */
    public QueryResult execute(final Query query, final QueryCancel cancel) {
        return execute(query, clock.getAsLong(), cancel);
    }

    private QueryResult execute(final Query query, final long start, final QueryCancel cancel) {
        final Long asked = query.options().maxGroups();
        if (asked != null && asked > maxGroupsLimit) {
            throw new QueryException(ErrorCode.INVALID_QUERY,
                "maxGroups=" + asked + " is above this engine's limit of " + maxGroupsLimit
                + " groups (a server sets it with --max-groups); ask for fewer or narrow the group-by",
                "/options/maxGroups");
        }
        final QueryCancel own = cancel != null ? cancel : new QueryCancel();
        begin(own);
        try {
            return run(query, start, own);
        } finally {
            end(own);
        }
    }

    /**
     * Counts a query as running, so that {@link #close()} cancels it and waits for it before unmapping what it reads.
     */
    private synchronized void begin(final QueryCancel cancel) {
        if (closed) {
            throw new QueryException(ErrorCode.OVERLOADED, "the query engine is closed", "");
        }
        running.add(cancel);
    }

    private synchronized void end(final QueryCancel cancel) {
        running.remove(cancel);
        if (running.isEmpty()) {
            notifyAll();
        }
    }

    private QueryResult run(final Query query, final long start, final QueryCancel cancel) {
        try (TableReaders.Lease lease = readers.lend(query.table())) {
            return run(query, lease.snapshot(), start, cancel);
        }
    }

    private QueryResult run(final Query query, final TableSnapshot snap, final long start, final QueryCancel cancel) {
        try {
            return QueryRunner.run(query, snap, pool, threads, useIndexes ? indexes : null, start, morselRows,
                smallQueryRows, clock, cancel);
        } catch (final QueryException e) {
            throw e;
        } catch (final StoreException e) {
            // the store said what is wrong and where (a segment that cannot be read, an index file that fails its
            // checks once written)
            throw QueryException.storeProblem("store error while running the query: " + e.getMessage(), e);
        } catch (final RuntimeException | StackOverflowError | InternalError e) {
            // a file cut short under the engine makes a read of its mapping fault, which the JVM throws as an
            // InternalError (a worker's wrapped) naming no file; the files' lengths, asked of the file system without
            // reading a mapping, name it. First: the pass over the data below would fault on the same file
            final List<String> cut = new TableCheck(snap.schema().name(), 1).fileLengths(snap).problems();
            if (!cut.isEmpty()) {
                throw QueryException.storeProblem("damaged data in " + cut.get(0), e);
            }
            // the kernels trust symbol codes and zone maps: a value outside them (an index out of bounds, a group key
            // outside its range) means damaged files, not a bad query; a pass over the table on this failure path tells
            // which. Not for an Error (a worker's is wrapped): a pass while memory or stack runs short would only make
            // it worse
            if (e instanceof RuntimeException && !(e.getCause() instanceof Error)) {
                final List<String> damage = new TableCheck(snap.schema().name(), 1).all(snap).problems();
                if (!damage.isEmpty()) {
                    throw QueryException.storeProblem("damaged data in " + damage.get(0)
                        + "; `tradestore check` lists every problem", e);
                }
            }
            throw internal(e);
        }
    }

    private static QueryException internal(final Throwable e) {
        return new QueryException(ErrorCode.INTERNAL,
            "internal error while running the query (" + e.getClass().getSimpleName() + ": "
            + e.getMessage() + ")", "", e);
    }

    /**
     * Takes a snapshot of a table's latest commit, valid until this engine closes or {@link #forgetTable} forgets the
     * table (its segments stay mapped until then, even those retention drops: for tests and tools, not for a
     * long-lived caller).
     *
     * @param table the table name.
     * @return the snapshot.
     * @throws QueryException UNKNOWN_TABLE, or INTERNAL when the table's files cannot be read (missing, damaged).
     */
    public TableSnapshot snapshot(final String table) {
        try (TableReaders.Lease lease = readers.lend(table)) {
            return lease.pin();
        }
    }

    /** @return a table's schema, from a snapshot lent for the moment. */
    private Schema schema(final String table) {
        try (TableReaders.Lease lease = readers.lend(table)) {
            return lease.snapshot().schema();
        }
    }

    /**
     * Forgets a table that was dropped: queries that started before finish on their snapshot, later ones find the table
     * unknown (or, created again, afresh), and the reader is closed when the last of the earlier ones ends.
     *
     * @param table the table name.
     */
    public void forgetTable(final String table) {
        readers.forget(table);
    }

    /**
     * Reads a table's latest commit now (when this engine has it open), so that segments retention dropped are unmapped
     * at once when no query spans them, not at the table's next query.
     *
     * @param table the table name.
     */
    public void refreshTable(final String table) {
        readers.refresh(table);
    }

    /** @return segments retention dropped that this engine still maps for queries in flight. */
    public int retiredSegments() {
        return readers.retiredSegments();
    }

    /**
     * Turns bitmap indexes on or off (benchmarks compare both; results are the same).
     *
     * @param enabled whether eq/in/ne on sealed segments may use bitmap indexes.
     */
    public void useIndexes(final boolean enabled) {
        this.useIndexes = enabled;
    }

    /**
     * Sets the rows per work unit handed to a worker (tests make it small to cut segments; the default is 1,048,576).
     *
     * @param rows rows per morsel, rounded to whole zone-map blocks; 0 restores the default.
     */
    public void morselRows(final int rows) {
        this.morselRows = Math.max(0, rows);
    }

    /**
     * Sets how small a query stays on the calling thread alone: at most this many candidate rows (after zone maps and
     * bitmap indexes) are not worth a second worker (the default is 262,144). Tests set 0 so that every query on an
     * engine of two or more threads is split between workers and their partial results merged.
     *
     * @param rows the most candidate rows a query runs on one thread; negative restores the default.
     */
    public void smallQueryRows(final long rows) {
        this.smallQueryRows = rows < 0 ? -1 : rows;
    }

    /**
     * Caps what a query may ask for in {@code options.maxGroups}: a server sets it so that no query can ask for more
     * groups than its heap holds (an OutOfMemoryError there would hit every query running beside it).
     *
     * @param groups the most groups a query may ask for (queries without the option keep the default of 1,000,000).
     */
    public void maxGroupsLimit(final long groups) {
        if (groups < 1) {
            throw new IllegalArgumentException("maxGroupsLimit=" + groups + " must be at least 1");
        }
        this.maxGroupsLimit = groups;
    }

    /** @param nanos the clock of queries' start and deadline, instead of {@link System#nanoTime()} (tests). */
    void clock(final LongSupplier nanos) {
        this.clock = nanos;
    }

    /** @return the bitmap indexes this engine builds and loads. */
    public BitmapIndexes indexes() {
        return indexes;
    }

    /** @return heap bytes the value and bucket summaries, and the held bitmap indexes, hold now (for metrics). */
    public long summaryBytes() {
        return indexes.summaryBytes();
    }

    /** @return value and per-minute bucket summaries built by this engine's indexes (for metrics). */
    public long summaryBuilds() {
        return indexes.summaryBuilds() + indexes.bucketSummaryBuilds();
    }

    /** @return summaries evicted to make room for others (for metrics). */
    public long summaryEvictions() {
        return indexes.summaryEvictions();
    }

    /** @return worker threads per query. */
    public int threads() {
        return threads;
    }

    /**
     * Cancels the queries still running (they fail with OVERLOADED at their next batch), waits until none runs, then
     * closes the readers and stops the workers: memory a query reads is never unmapped under it. Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            for (final QueryCancel c : running) {
                c.cancel(ErrorCode.OVERLOADED, "the query engine is closing; the query was cancelled");
            }
            boolean interrupted = false;
            while (!running.isEmpty()) {
                try {
                    wait();
                } catch (final InterruptedException e) {
                    interrupted = true; // unmapping under a running query would crash the JVM: wait on
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            readers.close();
        }
        pool.shutdownNow();
    }

    /** The answer of a statement only described: its columns, no rows. */
    private record NoRows(List<ResultColumn> columns) implements QueryResult {
        @Override
        public int rowCount() {
            return 0;
        }

        @Override
        public Object value(final int row, final int column) {
            throw new IndexOutOfBoundsException("row=" + row + " rowCount=0");
        }

        @Override
        public boolean truncated() {
            return false;
        }

        @Override
        public QueryStats stats() {
            return new QueryStats(0, 0, 0, 0, 0, 0, 0, 0);
        }

        @Override
        public void writeJson(final OutputStream out, final boolean epochNanos) throws IOException {
            ResultJson.write(this, out, epochNanos);
        }
    }
}
