package io.tradestore.server.http;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.util.ByteProcessor;

import io.tradestore.core.StoreException;
import io.tradestore.core.memory.MappedFile;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.JsonBodyCheck;
import io.tradestore.query.QueryCancel;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryException;
import io.tradestore.query.QueryResult;
import io.tradestore.query.sql.SqlException;
import io.tradestore.query.sql.SqlPos;
import io.tradestore.server.admission.AdmittedQuery;
import io.tradestore.server.admission.QueryWorkers;

/**
 * Admits queries and runs them on the worker pool: at most threads running plus queue waiting (beyond: 503 at once),
 * each answered 504 by its connection's timer past its deadline, and cancelled and answered 503 by the stop once its
 * grace is over. Everything here that reaches into the query module's internals (the body check, the index summary
 * metrics) sits in this one class.
 */
final class QueryAdmission implements QueryWorkers {
    static final String STOPPING_MESSAGE =
        "the server is stopping; retry against another server or after it restarts";
    /** A client's name for its query, {@code queryId}: what {@code DELETE /v1/queries/{id}} cancels. */
    private static final String QUERY_ID_PATTERN = "[A-Za-z0-9_-]{1,64}";
    /**
     * Goes on over JSON's whitespace (RFC 8259: space, tab, line feed, carriage return): a body of only that is
     * empty.
     */
    private static final ByteProcessor JSON_WHITESPACE = b -> b == ' ' || b == '\t' || b == '\n' || b == '\r';
    /**
     * Query worker stack: 16 MiB rather than the default 1 MiB, so a deeply nested query (bounded by the parser's
     * nesting limit) is parsed where it runs as it would be on a main thread.
     */
    private static final long WORKER_STACK_LENGTH = 16L << 20;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(QueryServer.class);
    /** After the grace, how long cancelled queries may take to stop: they see the cancel at their next batch. */
    private static final long WORKER_STOP_WAIT_MS = 5_000;
    /** After the grace, how long answers already made may take to reach their sockets. */
    static final long FLUSH_WAIT_MS = 1_000;

    private final QueryService queries;
    private final ServerConfig config;
    private final ThreadPoolExecutor workers;
    private final ServerMetrics metrics;
    private final AnswerWriter answers;
    private final AtomicInteger activeQueries = new AtomicInteger();
    /** Queries admitted and not finished: running plus waiting; at most threads + queue. */
    private final AtomicInteger admitted = new AtomicInteger();
    /** Queries admitted and not finished: the stop cancels and answers them once its grace is over. */
    private final Set<QueryTask> inFlight = ConcurrentHashMap.newKeySet();
    /** Queries of other front ends (PostgreSQL) admitted and not finished, stopped with the HTTP ones. */
    private final Set<AdmittedQuery> othersInFlight = ConcurrentHashMap.newKeySet();
    /** Set once the stop's grace is over: queued queries are answered 503 instead of run. */
    private volatile boolean cancelling;

    /**
     * @param queries           what answers queries.
     * @param engine            the engine behind them, for its summary metrics; or null.
     * @param config            limits and timeouts.
     * @param pipelinedRequests requests read ahead of the one in flight, over all connections (a metric).
     */
    QueryAdmission(final QueryService queries, final QueryEngine engine, final ServerConfig config,
        final AtomicInteger pipelinedRequests) {
        this.queries = queries;
        this.config = config;
        // admission is bounded by `admitted`, so the workers' own queue never holds more than threads + queue tasks
        this.workers = new ThreadPoolExecutor(config.threads(), config.threads(), 0, TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(), daemonThreads("tradestore-query-", WORKER_STACK_LENGTH),
            new ThreadPoolExecutor.AbortPolicy());
        this.metrics = new ServerMetrics(() -> Math.max(0, admitted.get() - activeQueries.get()), activeQueries::get,
            pipelinedRequests::get, MappedFile::mappedBytes, engine == null ? null : engine::summaryBytes,
            engine == null ? null : engine::summaryBuilds, engine == null ? null : engine::summaryEvictions);
        this.answers = new AnswerWriter(config, metrics);
    }

    ServerMetrics metrics() {
        return metrics;
    }

    AnswerWriter answers() {
        return answers;
    }

    void postQuery(final Call call) {
        // the body limit (413) is applied while the body is read (BodyLimit); the body is checked here in place and
        // parsed by the worker from the request's own buffer, never copied into a byte[] or a String
        // the check QueryParser makes (strict UTF-8, no NUL among the first four bytes), made here too: a refused
        // body is not admitted
        final ByteBuf body = call.request.content();
        final JsonBodyCheck check = new JsonBodyCheck();
        body.forEachByte(check::accept);
        final QueryException refused = check.problem();
        if (refused != null) {
            answers.error(call, refused.code().httpStatus(), refused.code().name(), refused.getMessage(),
                refused.path());
            return;
        }
        final Boolean epochNanos = epochNanos(call);
        if (epochNanos != null) {
            submit(call, null, body.forEachByte(JSON_WHITESPACE) < 0 ? null : body, epochNanos, false);
        }
    }

    /**
     * A POST of SQL text (any content type; {@code text/plain} or {@code application/sql} by convention): decoded as
     * strict UTF-8 here, so that a body that is not text is refused before it is admitted.
     *
     * @param call the request.
     */
    void postSql(final Call call) {
        final String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(call.request.content().nioBuffer()).toString();
        } catch (final CharacterCodingException e) {
            answers.error(call, new SqlException(ErrorCode.MALFORMED_SQL, "the body is not UTF-8 text; send the SQL "
                + "text as the body (Content-Type: text/plain or application/sql)", SqlPos.START));
            return;
        }
        final Boolean epochNanos = epochNanos(call);
        if (epochNanos != null) {
            submit(call, text, null, epochNanos, true);
        }
    }

    /**
     * A GET with the query in {@code q}: JSON on /v1/query, SQL on /v1/sql.
     *
     * @param call the request.
     * @param sql  whether {@code q} is SQL.
     */
    void getQuery(final Call call, final boolean sql) {
        final String raw = call.rawQuery;
        if (raw != null && raw.length() > config.maxBodyLength() * 3L) {
            tooLarge(call);
            return;
        }
        final String q;
        try {
            q = parameter(raw, "q");
        } catch (final IllegalArgumentException e) {
            badPercentEncoding(call);
            return;
        }
        if (q == null) {
            if (sql) {
                answers.error(call, new SqlException(ErrorCode.MALFORMED_SQL,
                    "missing parameter q: GET /v1/sql?q=<url-encoded SQL>", SqlPos.START));
            } else {
                answers.error(call, 400, "MALFORMED_JSON",
                    "missing parameter q: GET /v1/query?q=<url-encoded JSON query>", "");
            }
            return;
        }
        if (q.length() > config.maxBodyLength()) {
            tooLarge(call);
            return;
        }
        final Boolean epochNanos = epochNanos(call);
        if (epochNanos != null) {
            submit(call, sql || !q.isBlank() ? q : null, null, epochNanos, sql);
        }
    }

    /**
     * Reads the {@code epochNanos} parameter: absent or exactly {@code false} is false, exactly {@code true} true; any
     * other value is answered 400 with the message the body's {@code options.epochNanos} gives, never taken as false.
     *
     * @param call the request.
     * @return the value, or null when the request has been answered.
     */
    private Boolean epochNanos(final Call call) {
        final String value;
        try {
            value = parameter(call.rawQuery, "epochNanos");
        } catch (final IllegalArgumentException e) {
            badPercentEncoding(call);
            return null;
        }
        if (value == null || "false".equals(value)) {
            return Boolean.FALSE;
        }
        if ("true".equals(value)) {
            return Boolean.TRUE;
        }
        answers.error(call, 400, ErrorCode.INVALID_QUERY.name(), "epochNanos must be true or false", "");
        return null;
    }

    private void badPercentEncoding(final Call call) {
        answers.error(call, 400, "MALFORMED_JSON", "the query string is not valid percent-encoding", "");
    }

    void tooLarge(final Call call) {
        answers.error(call, 413, "PAYLOAD_TOO_LARGE", "the query is larger than the server's limit of "
            + config.maxBodyLength() + " bytes", "");
    }

    /**
     * Admits a query and hands it to a worker, or answers at once.
     *
     * @param call       the request.
     * @param json       the query text of a GET, or null.
     * @param body       the query bytes of a POST (retained here for the worker, which releases them), or null.
     * @param epochNanos the {@code epochNanos} parameter.
     * @param sql        whether the text is SQL (then {@code json} holds it).
     */
    private void submit(final Call call, final String json, final ByteBuf body, final boolean epochNanos,
        final boolean sql) {
        if (sql && json.isBlank()) {
            answers.error(call, new SqlException(ErrorCode.MALFORMED_SQL, "the SQL text is empty; send a query "
                + "such as SELECT count(*) FROM trades", SqlPos.START));
            return;
        }
        if (json == null && body == null) {
            answers.error(call, 400, "MALFORMED_JSON", "the query is empty; send a JSON object such as "
                + "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}", "");
            return;
        }
        final ResultFormat format;
        try {
            format = ResultFormat.of(parameter(call.rawQuery, "format"),
                call.request.headers().get(HttpHeaderNames.ACCEPT));
        } catch (final IllegalArgumentException e) {
            answers.error(call, 400, ErrorCode.INVALID_QUERY.name(), e.getMessage(), "");
            return;
        }
        final String queryId = parameter(call.rawQuery, "queryId");
        final String badId = queryId == null ? null : badQueryId(queryId);
        if (badId != null) {
            answers.error(call, 400, ErrorCode.INVALID_QUERY.name(), "queryId must be " + badId, "");
            return;
        }
        if (answers.stopping) {
            overloaded(call);
            return;
        }
        if (admitted.incrementAndGet() > config.threads() + config.queue()) {
            admitted.decrementAndGet();
            overloaded(call);
            return;
        }
        // the request is released once routed: the worker holds its own reference to the body
        final QueryTask task = new QueryTask(call, json, body == null ? null : body.retain(), epochNanos, sql,
            format, queryId);
        inFlight.add(task);
        // on the connection's event loop, from that loop: scheduling wakes no thread (a cancel is queued lazily)
        task.timeout = call.ctx.executor().schedule(() -> answers.error(call, 504, "TIMEOUT",
            "the query did not finish within the server's limit of " + config.timeoutMs() + " ms", ""),
            Math.max(0, task.remainingNs()), TimeUnit.NANOSECONDS);
        // never on the event loop: a slow query there would hold up every connection of the loop, 503s included
        try {
            workers.execute(task);
        } catch (final RejectedExecutionException e) { // stopping
            admitted.decrementAndGet();
            inFlight.remove(task);
            task.release();
            task.timeout.cancel(false);
            overloaded(call);
        }
    }

    @Override
    public boolean submit(final AdmittedQuery query) {
        if (answers.stopping) {
            return false;
        }
        if (admitted.incrementAndGet() > config.threads() + config.queue()) {
            admitted.decrementAndGet();
            return false;
        }
        othersInFlight.add(query);
        try {
            workers.execute(() -> {
                try {
                    if (cancelling) {
                        query.stopNow(); // taken from the queue after the stop's grace: never started
                    } else {
                        activeQueries.incrementAndGet();
                        try {
                            query.run();
                        } finally {
                            activeQueries.decrementAndGet();
                        }
                    }
                } finally {
                    admitted.decrementAndGet();
                    othersInFlight.remove(query);
                }
            });
            return true;
        } catch (final RejectedExecutionException e) { // stopping
            admitted.decrementAndGet();
            othersInFlight.remove(query);
            return false;
        }
    }

    @Override
    public long timeoutMs() {
        return config.timeoutMs();
    }

    @Override
    public int admitted() {
        return admitted.get();
    }

    @Override
    public String overloadedMessage() {
        return "all " + config.threads() + " workers are busy and " + config.queue() + " queries are waiting; retry "
            + "later";
    }

    @Override
    public void statementDone(final int status, final long latencyNs, final long scanned, final long matched) {
        metrics.record(Endpoint.PG, status, latencyNs);
        if (scanned > 0 || matched > 0) {
            metrics.rows(scanned, matched);
        }
    }

    private void overloaded(final Call call) {
        call.header("Retry-After", Integer.toString(AnswerWriter.RETRY_AFTER_SECONDS));
        answers.error(call, 503, "OVERLOADED", "all " + config.threads() + " workers are busy and " + config.queue()
            + " queries are waiting; retry later", "");
    }

    /** One query on a worker; the timer may answer 504 first, in which case the result is dropped. */
    private final class QueryTask implements Runnable {
        private final Call call;
        /** The text of a GET query, or null for a POST. */
        private final String json;
        /** The body of a POST query (a reference this task owns and releases), or null for a GET. */
        private final ByteBuf postBody;
        private final boolean epochNanos;
        /** Whether {@link #json} is SQL text. */
        private final boolean sql;
        /**
         * When the server answers 504 ({@link System#nanoTime()}), measured from arrival: the client waits for
         * queueing and running alike. Compared by difference only, so a timeout near Long.MAX_VALUE nanoseconds
         * wraps harmlessly.
         */
        private final long deadlineNs;
        private volatile ScheduledFuture<?> timeout;
        /** Cancelled by the stop past its grace: the engine stops the query at its next batch. */
        private final QueryCancel cancel = new QueryCancel();
        /** How the answer is written. */
        private final ResultFormat format;
        /** The client's name for it ({@code queryId}), by which {@link #cancel(String)} finds it; or null. */
        private final String queryId;

        QueryTask(final Call call, final String json, final ByteBuf postBody, final boolean epochNanos,
            final boolean sql, final ResultFormat format, final String queryId) {
            this.queryId = queryId;
            this.call = call;
            this.format = format;
            this.sql = sql;
            this.json = json;
            this.postBody = postBody;
            this.epochNanos = epochNanos;
            this.deadlineNs = call.startNs + TimeUnit.MILLISECONDS.toNanos(config.timeoutMs());
        }

        /** @return nanoseconds left until {@link #deadlineNs} (negative past it). */
        long remainingNs() {
            return deadlineNs - System.nanoTime();
        }

        /** On a query worker (the pool has one thread per running slot), then gives back the admission and the body. */
        @Override
        public void run() {
            try {
                if (cancelling) {
                    stopNow(); // taken from the queue after the stop's grace: never started
                } else if (!call.answered.get()) { // else timed out while waiting: do not spend the worker on it
                    answer();
                }
            } finally {
                admitted.decrementAndGet();
                inFlight.remove(this);
                release();
            }
        }

        /** Past the stop's grace: the query is cancelled and its client told at once, queued or running. */
        void stopNow() {
            cancel.cancel(ErrorCode.OVERLOADED, STOPPING_MESSAGE);
            call.header("Retry-After", Integer.toString(AnswerWriter.RETRY_AFTER_SECONDS));
            answers.error(call, 503, ErrorCode.OVERLOADED.name(), STOPPING_MESSAGE, "");
        }

        void release() {
            if (postBody != null) {
                postBody.release();
            }
        }

        /**
         * Streams the answer as CSV or Arrow while the engine produces it. An error before the first chunk is answered
         * as usual (thrown to {@link #answer}); after it, or when the client goes away, the answer is cut off.
         */
        private void streamed(final long leftMs) {
            final StreamedAnswer out = new StreamedAnswer(answers, call, format.contentType(), config.timeoutMs());
            try (ResultFormat.Writer rows = format.writer(out, epochNanos)) {
                queries.stream(postBody != null ? null : json, postBody != null ? new ByteBufInputStream(postBody)
                    : null, sql, leftMs, cancel, rows);
                rows.end();
                out.close();
            } catch (final IOException e) {
                out.abort(); // the client went away or stopped reading: the query has stopped, nobody is left to tell
            } catch (final RuntimeException e) {
                out.abort();
                if (!out.started()) {
                    throw e;
                }
                LOG.warn("a streamed answer to {} was cut off by an error: {}", call.ctx.channel().remoteAddress(),
                    e.getMessage());
            }
        }

        private void answer() {
            activeQueries.incrementAndGet();
            try {
                // whole milliseconds rounded up, as before: the engine stops no earlier than the 504
                final long leftNs = remainingNs();
                final long leftMs = leftNs / 1_000_000 + (leftNs % 1_000_000 > 0 ? 1 : 0);
                if (format != ResultFormat.JSON) {
                    streamed(Math.max(1, leftMs));
                    return;
                }
                final QueryResult result = sql ? queries.executeSql(json, Math.max(1, leftMs), cancel)
                    : postBody != null ? queries.execute(new ByteBufInputStream(postBody), Math.max(1, leftMs), cancel)
                    : queries.execute(json, Math.max(1, leftMs), cancel);
                metrics.rows(result.stats().rowsScanned(), result.stats().rowsMatched());
                final ByteBufOutputStream buf = AnswerWriter.body(256 + 32 * result.rowCount());
                result.writeJson(buf, epochNanos);
                answers.send(call, 200, AnswerWriter.JSON_TYPE, buf.buffer());
            } catch (final QueryException e) {
                if (e.code().httpStatus() >= 500 && e.code() != ErrorCode.TIMEOUT
                    && e.code() != ErrorCode.OVERLOADED) {
                    answers.internal(call, e);
                } else {
                    if (e.code().httpStatus() == 503) {
                        call.header("Retry-After", Integer.toString(AnswerWriter.RETRY_AFTER_SECONDS));
                    }
                    answers.error(call, e);
                }
            } catch (final Throwable t) {
                answers.internal(call, t);
            } finally {
                activeQueries.decrementAndGet();
                final ScheduledFuture<?> t = timeout;
                if (t != null) {
                    t.cancel(false);
                }
            }
        }
    }

    /**
     * @param queryId a client's name for its query.
     * @return null when it is a query id, else what one is and what this is ("1 to 64 letters, ..., not 'x'").
     */
    static String badQueryId(final String queryId) {
        return queryId.matches(QUERY_ID_PATTERN) ? null : "1 to 64 letters, digits, '-' or '_', not '"
            + StoreException.echo(queryId) + "'";
    }

    /**
     * Cancels the queries queued or running under a client's {@code queryId} ({@code DELETE /v1/queries/{id}}): each
     * stops at its next batch of rows and is answered 504 {@code TIMEOUT}, "cancelled".
     *
     * @param queryId the id.
     * @return how many were cancelled.
     */
    int cancel(final String queryId) {
        int n = 0;
        for (final QueryTask t : List.copyOf(inFlight)) {
            if (queryId.equals(t.queryId)) {
                t.cancel.cancel(ErrorCode.TIMEOUT, "cancelled by DELETE /v1/queries/" + queryId);
                n++;
            }
        }
        return n;
    }

    /**
     * The stop's first part: new requests get 503 while queries in flight finish and their answers reach the socket
     * (up to {@code grace}); past the grace every query still queued or running is cancelled and answered 503, the
     * workers are given {@link #WORKER_STOP_WAIT_MS} to end, and the answers {@link #FLUSH_WAIT_MS} to reach their
     * sockets. The caller closes the listener and the connections after.
     *
     * @param grace how long in-flight queries may take to finish.
     */
    void drain(final Duration grace) {
        answers.stopping = true;
        workers.shutdown(); // never shutdownNow: an interrupt would close the store's file channels
        final long graceEndNs = System.nanoTime() + grace.toNanos();
        answers.awaitAnswers(graceEndNs);
        // the other front ends' queries have the same grace
        while (!othersInFlight.isEmpty() && System.nanoTime() - graceEndNs < 0) {
            try {
                Thread.sleep(5);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        cancelling = true; // before the copy below: a task the workers take from now on is answered 503, not run
        if (!inFlight.isEmpty()) {
            for (final QueryTask t : List.copyOf(inFlight)) {
                t.stopNow();
            }
        }
        for (final AdmittedQuery q : List.copyOf(othersInFlight)) {
            q.stopNow();
        }
        boolean idle;
        try {
            idle = workers.awaitTermination(WORKER_STOP_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            idle = workers.isTerminated();
        }
        if (!idle) {
            LOG.warn("stopping with {} queries still running after their cancel", activeQueries.get());
        }
        // the 503s just given, and answers to clients slow to read, get a last moment to reach their sockets
        answers.awaitAnswers(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FLUSH_WAIT_MS));
    }

    /** Ends the workers at once, for a server that never started (its listener did not bind). */
    void shutdownNow() {
        workers.shutdownNow();
    }

    static String parameter(final String rawQuery, final String name) {
        if (rawQuery == null) {
            return null;
        }
        int start = 0;
        while (start <= rawQuery.length()) {
            int end = rawQuery.indexOf('&', start);
            if (end < 0) {
                end = rawQuery.length();
            }
            final int eq = rawQuery.indexOf('=', start);
            final boolean hasValue = eq >= 0 && eq < end;
            final String key = rawQuery.substring(start, hasValue ? eq : end);
            if (key.equals(name)) {
                return hasValue ? URLDecoder.decode(rawQuery.substring(eq + 1, end), StandardCharsets.UTF_8) : "";
            }
            start = end + 1;
        }
        return null;
    }

    static ThreadFactory daemonThreads(final String prefix, final long stackLength) {
        final AtomicInteger n = new AtomicInteger();
        return r -> {
            final Thread t = new Thread(null, r, prefix + n.incrementAndGet(), stackLength);
            t.setDaemon(true);
            return t;
        };
    }
}
