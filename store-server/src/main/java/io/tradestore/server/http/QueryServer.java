package io.tradestore.server.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import io.tradestore.core.Store;
import io.tradestore.core.StoreException;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;
import io.tradestore.query.QueryResult;

/**
 * The HTTP/JSON front of a store, on the JDK's built-in {@code com.sun.net.httpserver} (see docs/http-api.md for why).
 *
 * <pre>
 *  selector thread ──> I/O threads (parse headers, auth, route, read body)
 *                         │  cheap endpoints (/health /metrics /v1/tables) answered here
 *                         └─ POST/GET /v1/query ──> admitted? (at most threads running + queue waiting)
 *                               no:  503 OVERLOADED + Retry-After, at once
 *                               yes: a running slot free and nobody waiting? run on this I/O thread (no hand-off)
 *                                    otherwise: wait for a slot on a query worker ──> response
 *  timer: a query not answered within timeoutMs of its arrival gets 504 TIMEOUT (whichever answers first wins)
 * </pre>
 *
 * Every query runs on the latest commit at the moment it starts (the engine takes a fresh snapshot), so rows loaded by
 * another process become visible without a restart. Error bodies are {@code {"error":{"code","message","path"}}};
 * a bug answers 500 INTERNAL with an id that is also written to the log, never a stack trace.
 */
public final class QueryServer implements AutoCloseable {
    private static final JsonFactory JSON = new JsonFactory();
    private static final String JSON_TYPE = "application/json";
    private static final String PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    private static final String QUERY_PATH = "/v1/query";
    private static final String TABLES_PATH = "/v1/tables";
    private static final String TABLE_PREFIX = "/v1/tables/";
    private static final String TABLE_NAME_PATTERN = "[a-z_][a-z0-9_]{0,62}";
    private static final int BACKLOG = 1024;
    private static final int RETRY_AFTER_SECONDS = 1;
    /**
     * Worker and I/O thread stack: 16 MiB rather than the default 1 MiB, so a deeply nested query (bounded by the
     * parser's nesting limit) is parsed where it runs as it would be on a main thread.
     */
    private static final long WORKER_STACK_LENGTH = 16L << 20;

    static {
        // The JDK server writes headers and body as separate packets; with Nagle's algorithm on, the body then waits
        // for the client's delayed ACK (up to 40 ms on Linux). Read once, when the first server is created.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final Store store;
    private final QueryService queries;
    private final ServerConfig config;
    private final PrintStream log;
    private final HttpServer http;
    private final ThreadPoolExecutor io;
    private final ThreadPoolExecutor workers;
    private final ScheduledThreadPoolExecutor timer;
    private final ServerMetrics metrics;
    private final Map<String, TableReader> readers = new ConcurrentHashMap<>();
    private final AtomicInteger activeQueries = new AtomicInteger();
    /** Queries admitted and not finished: running plus waiting; at most threads + queue. */
    private final AtomicInteger admitted = new AtomicInteger();
    /** Running slots, one per configured thread, taken by I/O threads (inline) and query workers alike. */
    private final Semaphore running;
    private final AtomicInteger openExchanges = new AtomicInteger();
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final byte[] expectedAuthorization;
    private volatile boolean stopping;

    private QueryServer(final Store store, final QueryService queries, final ServerConfig config, final PrintStream log)
        throws IOException {
        this.store = store;
        this.queries = queries;
        this.config = config;
        this.log = log;
        this.expectedAuthorization = config.token() == null ? null : ("Bearer " + config.token()).getBytes(StandardCharsets.UTF_8);
        // admission is bounded by `admitted`, so the workers' own queue never holds more than threads + queue tasks
        this.workers = new ThreadPoolExecutor(config.threads(), config.threads(), 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
            daemonThreads("tradestore-query-", WORKER_STACK_LENGTH), new ThreadPoolExecutor.AbortPolicy());
        this.running = new Semaphore(config.threads());
        // up to `threads` I/O threads may be running queries inline; two more keep reading requests and answering 503s
        final int ioThreads = config.threads() + 2;
        this.io = new ThreadPoolExecutor(ioThreads, ioThreads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
            daemonThreads("tradestore-http-", WORKER_STACK_LENGTH)); // queries may run here too
        this.timer = new ScheduledThreadPoolExecutor(1, daemonThreads("tradestore-timeout-", 0));
        this.timer.setRemoveOnCancelPolicy(true);
        this.metrics = new ServerMetrics(() -> Math.max(0, admitted.get() - activeQueries.get()), activeQueries::get, MappedFile::mappedBytes);
        this.http = HttpServer.create(new InetSocketAddress(config.bind(), config.port()), BACKLOG);
        this.http.setExecutor(io);
        this.http.createContext("/", this::handle);
    }

    /**
     * Starts serving.
     *
     * @param store   the store whose tables are served (not closed by the server).
     * @param queries what answers queries, usually {@code new QueryEngine(store)::execute}.
     * @param config  address, limits and token.
     * @param log     where the server log goes (stderr for the CLI).
     * @return the running server.
     */
    public static QueryServer start(final Store store, final QueryService queries, final ServerConfig config, final PrintStream log) {
        final QueryServer s;
        try {
            s = new QueryServer(store, queries, config, log);
        } catch (final IOException e) {
            throw new StoreException("cannot listen on " + config.bind() + ":" + config.port() + ": " + e.getMessage()
                + (config.port() != 0 ? "; is another server running there? choose another --port" : ""), e);
        }
        s.http.start();
        return s;
    }

    /** @return the address the server listens on (with the real port when 0 was asked for). */
    public InetSocketAddress address() {
        return http.getAddress();
    }

    /** @return the port the server listens on. */
    public int port() {
        return http.getAddress().getPort();
    }

    /** @return total requests answered so far. */
    public long requestCount() {
        return metrics.requestCount();
    }

    /** @return the Prometheus text of the metrics, as {@code GET /metrics} answers. */
    public String metricsText() {
        return metrics.render();
    }

    // ---------------------------------------------------------------------------------------------------- routing

    private void handle(final HttpExchange ex) {
        final Call call = new Call(ex, System.nanoTime());
        openExchanges.incrementAndGet();
        try {
            route(call);
        } catch (final Throwable t) {
            internal(call, t);
        }
    }

    private void route(final Call call) throws IOException {
        final HttpExchange ex = call.exchange;
        final String path = ex.getRequestURI().getRawPath();
        final String method = ex.getRequestMethod();
        call.endpoint = endpointLabel(path);
        if (expectedAuthorization != null && !authorized(ex)) {
            ex.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"tradestore\"");
            error(call, 401, "UNAUTHORIZED", "send the header 'Authorization: Bearer <token>' with the server's token", "");
            return;
        }
        if (stopping) {
            ex.getResponseHeaders().set("Retry-After", Integer.toString(RETRY_AFTER_SECONDS));
            error(call, 503, "OVERLOADED", "the server is stopping", "");
            return;
        }
        switch (call.endpoint) {
            case "/health":
                if (allow(call, method, "GET")) {
                    send(call, 200, JSON_TYPE, "{\"status\":\"ok\"}".getBytes(StandardCharsets.UTF_8));
                }
                return;
            case "/metrics":
                if (allow(call, method, "GET")) {
                    send(call, 200, PROMETHEUS_TYPE, metrics.render().getBytes(StandardCharsets.UTF_8));
                }
                return;
            case TABLES_PATH:
                if (allow(call, method, "GET")) {
                    send(call, 200, JSON_TYPE, tablesJson());
                }
                return;
            case TABLE_PREFIX + "{name}":
                if (allow(call, method, "GET")) {
                    table(call, path.substring(TABLE_PREFIX.length()));
                }
                return;
            case QUERY_PATH:
                if ("POST".equals(method)) {
                    postQuery(call);
                } else if ("GET".equals(method)) {
                    getQuery(call);
                } else {
                    methodNotAllowed(call, "GET, POST");
                }
                return;
            default:
                error(call, 404, "NOT_FOUND", "no endpoint " + truncate(path, 100) + "; endpoints are POST /v1/query, GET /v1/query?q=, "
                    + "GET /v1/tables, GET /v1/tables/{name}, GET /metrics, GET /health", "");
        }
    }

    private static String endpointLabel(final String path) {
        switch (path) {
            case "/health":
            case "/metrics":
            case TABLES_PATH:
            case QUERY_PATH:
                return path;
            default:
                return path.startsWith(TABLE_PREFIX) ? TABLE_PREFIX + "{name}" : "other";
        }
    }

    private boolean authorized(final HttpExchange ex) {
        final String h = ex.getRequestHeaders().getFirst("Authorization");
        return h != null && MessageDigest.isEqual(expectedAuthorization, h.getBytes(StandardCharsets.UTF_8));
    }

    private boolean allow(final Call call, final String method, final String allowed) {
        if (allowed.equals(method)) {
            return true;
        }
        methodNotAllowed(call, allowed);
        return false;
    }

    private void methodNotAllowed(final Call call, final String allowed) {
        call.exchange.getResponseHeaders().set("Allow", allowed);
        error(call, 405, "METHOD_NOT_ALLOWED", call.exchange.getRequestMethod() + " is not allowed here; use " + allowed, "");
    }

    // ---------------------------------------------------------------------------------------------------- queries

    private void postQuery(final Call call) throws IOException {
        final HttpExchange ex = call.exchange;
        final String declared = ex.getRequestHeaders().getFirst("Content-Length");
        long length = -1;
        if (declared != null) {
            try {
                length = Long.parseLong(declared.trim());
            } catch (final NumberFormatException e) {
                error(call, 400, "MALFORMED_JSON", "bad Content-Length header", "");
                return;
            }
            if (length > config.maxBodyLength()) {
                tooLarge(call);
                return;
            }
        }
        final byte[] body = readBody(ex.getRequestBody(), config.maxBodyLength(), length);
        if (body == null) {
            tooLarge(call);
            return;
        }
        final String json;
        try {
            json = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body)).toString();
        } catch (final CharacterCodingException e) {
            error(call, 400, "MALFORMED_JSON", "the body is not valid UTF-8", "");
            return;
        }
        final String epochNanos;
        try {
            epochNanos = parameter(ex.getRequestURI().getRawQuery(), "epochNanos");
        } catch (final IllegalArgumentException e) {
            error(call, 400, "MALFORMED_JSON", "the query string is not valid percent-encoding", "");
            return;
        }
        submit(call, json, epochNanos);
    }

    private void getQuery(final Call call) {
        final String raw = call.exchange.getRequestURI().getRawQuery();
        if (raw != null && raw.length() > config.maxBodyLength() * 3L) {
            tooLarge(call);
            return;
        }
        final String q;
        final String epochNanos;
        try {
            q = parameter(raw, "q");
            epochNanos = parameter(raw, "epochNanos");
        } catch (final IllegalArgumentException e) {
            error(call, 400, "MALFORMED_JSON", "the query string is not valid percent-encoding", "");
            return;
        }
        if (q == null) {
            error(call, 400, "MALFORMED_JSON", "missing parameter q: GET /v1/query?q=<url-encoded JSON query>", "");
            return;
        }
        if (q.length() > config.maxBodyLength()) {
            tooLarge(call);
            return;
        }
        submit(call, q, epochNanos);
    }

    private void tooLarge(final Call call) {
        error(call, 413, "PAYLOAD_TOO_LARGE", "the query is larger than the server's limit of " + config.maxBodyLength() + " bytes", "");
    }

    private void submit(final Call call, final String json, final String epochNanos) {
        if (json.isBlank()) {
            error(call, 400, "MALFORMED_JSON", "the query is empty; send a JSON object such as {\"table\":\"trades\",\"aggs\":"
                + "[{\"name\":\"n\",\"op\":\"count\"}]}", "");
            return;
        }
        if (stopping) {
            overloaded(call);
            return;
        }
        if (admitted.incrementAndGet() > config.threads() + config.queue()) {
            admitted.decrementAndGet();
            overloaded(call);
            return;
        }
        final QueryTask task = new QueryTask(call, json, "true".equals(epochNanos));
        // Measured from arrival: the client waits for queueing and running alike.
        final long remainingNs = TimeUnit.MILLISECONDS.toNanos(config.timeoutMs()) - (System.nanoTime() - call.startNs);
        task.timeout = timer.schedule(() -> error(call, 504, "TIMEOUT", "the query did not finish within the server's limit of "
            + config.timeoutMs() + " ms", ""), Math.max(0, remainingNs), TimeUnit.NANOSECONDS);
        // A free slot and nobody waiting: run here. Handing a query that takes ~100-200 us (docs/benchmarks.md, "Reading
        // the figures") to a worker costs a thread
        // wake-up on each side; waiting queries keep their turn (no barging past them).
        if (admitted.get() - activeQueries.get() <= 1 && running.tryAcquire()) {
            task.runInSlot();
            return;
        }
        try {
            workers.execute(task);
        } catch (final RejectedExecutionException e) { // stopping
            admitted.decrementAndGet();
            task.timeout.cancel(false);
            overloaded(call);
        }
    }

    private void overloaded(final Call call) {
        call.exchange.getResponseHeaders().set("Retry-After", Integer.toString(RETRY_AFTER_SECONDS));
        error(call, 503, "OVERLOADED", "all " + config.threads() + " workers are busy and " + config.queue()
            + " queries are waiting; retry later", "");
    }

    /** One query on a worker; the timer may answer 504 first, in which case the result is dropped. */
    private final class QueryTask implements Runnable {
        private final Call call;
        private final String json;
        private final boolean epochNanos;
        private volatile ScheduledFuture<?> timeout;

        QueryTask(final Call call, final String json, final boolean epochNanos) {
            this.call = call;
            this.json = json;
            this.epochNanos = epochNanos;
        }

        /** On a query worker: waits for a running slot first, unless the query timed out while queued. */
        @Override
        public void run() {
            if (call.answered.get()) {
                admitted.decrementAndGet();
                return;
            }
            running.acquireUninterruptibly();
            runInSlot();
        }

        /** Runs holding a running slot, then gives back the slot and the admission. */
        void runInSlot() {
            try {
                if (!call.answered.get()) { // else timed out while waiting: do not spend a slot on it
                    answer();
                }
            } finally {
                running.release();
                admitted.decrementAndGet();
            }
        }

        private void answer() {
            activeQueries.incrementAndGet();
            try {
                final QueryResult result = queries.execute(json);
                metrics.rows(result.stats().rowsScanned(), result.stats().rowsMatched());
                final ByteArrayOutputStream buf = new ByteArrayOutputStream(256 + 32 * result.rowCount());
                result.writeJson(buf, epochNanos);
                send(call, 200, JSON_TYPE, buf.toByteArray());
            } catch (final QueryException e) {
                if (e.code().httpStatus() >= 500 && e.code() != ErrorCode.TIMEOUT
                    && e.code() != ErrorCode.OVERLOADED) {
                    internal(call, e);
                } else {
                    if (e.code().httpStatus() == 503) {
                        call.exchange.getResponseHeaders().set("Retry-After", Integer.toString(RETRY_AFTER_SECONDS));
                    }
                    error(call, e.code().httpStatus(), e.code().name(), e.getMessage(), e.path());
                }
            } catch (final Throwable t) {
                internal(call, t);
            } finally {
                activeQueries.decrementAndGet();
                final ScheduledFuture<?> t = timeout;
                if (t != null) {
                    t.cancel(false);
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------- tables

    private byte[] tablesJson() throws IOException {
        final ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(buf)) {
            g.writeStartObject();
            g.writeArrayFieldStart("tables");
            for (final String name : store.tableNames()) {
                final TableSnapshot s = reader(name).snapshot();
                g.writeStartObject();
                g.writeStringField("name", name);
                g.writeNumberField("rows", s.rowCount());
                g.writeNumberField("segments", s.segmentCount());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        return buf.toByteArray();
    }

    private void table(final Call call, final String name) throws IOException {
        // The name is matched against the store's naming rule and its table list before any file is touched.
        if (!name.matches(TABLE_NAME_PATTERN) || !store.hasTable(name)) {
            error(call, 404, "UNKNOWN_TABLE", "no table '" + truncate(name, 64) + "'; tables are " + store.tableNames(), "");
            return;
        }
        final TableSnapshot s = reader(name).snapshot();
        final Schema schema = s.schema();
        final ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(buf)) {
            g.writeStartObject();
            g.writeStringField("name", name);
            g.writeNumberField("rows", s.rowCount());
            g.writeNumberField("segments", s.segmentCount());
            g.writeNumberField("commit", s.sequence());
            g.writeStringField("layout", schema.layout().name());
            g.writeNumberField("segmentRows", schema.segmentRows());
            g.writeNumberField("blockRows", schema.blockRows());
            g.writeNumberField("bytesPerRow", schema.bytesPerRow());
            if (schema.timestampIndex() >= 0) {
                g.writeStringField("timestamp", schema.column(schema.timestampIndex()).name());
            }
            g.writeArrayFieldStart("columns");
            for (final Column c : schema.columns()) {
                g.writeStartObject();
                g.writeStringField("name", c.name());
                g.writeStringField("type", c.typeName());
                if (c.type() == ColumnType.SYMBOL) {
                    g.writeNumberField("distinct", s.dictionarySize(c.index()));
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        send(call, 200, JSON_TYPE, buf.toByteArray());
    }

    private TableReader reader(final String name) {
        return readers.computeIfAbsent(name, n -> store.table(n).reader());
    }

    // ---------------------------------------------------------------------------------------------------- responses

    private void internal(final Call call, final Throwable t) {
        final String id = Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
        synchronized (log) {
            log.println(Instant.now() + " ERROR internal error id=" + id + " endpoint=" + call.endpoint + ": " + t);
            t.printStackTrace(log);
        }
        final String message = t instanceof StoreException && !(t instanceof QueryException)
            ? t.getMessage() + " (error id " + id + ")"
            : "internal error " + id + "; the server log has the details";
        error(call, 500, "INTERNAL", message, "", id);
    }

    private void error(final Call call, final int status, final String code, final String message, final String path) {
        error(call, status, code, message, path, null);
    }

    private void error(final Call call, final int status, final String code, final String message, final String path, final String id) {
        final ByteArrayOutputStream buf = new ByteArrayOutputStream(128);
        try (JsonGenerator g = JSON.createGenerator(buf)) {
            g.writeStartObject();
            g.writeObjectFieldStart("error");
            g.writeStringField("code", code);
            g.writeStringField("message", message == null ? code : message);
            g.writeStringField("path", path == null ? "" : path);
            if (id != null) {
                g.writeStringField("id", id);
            }
            g.writeEndObject();
            g.writeEndObject();
        } catch (final IOException e) {
            throw new IllegalStateException(e); // writing to memory does not fail
        }
        send(call, status, JSON_TYPE, buf.toByteArray());
    }

    /** Sends the one answer of an exchange; later attempts (a result after its 504) are dropped. */
    private void send(final Call call, final int status, final String contentType, final byte[] body) {
        if (!call.answered.compareAndSet(false, true)) {
            return;
        }
        final HttpExchange ex = call.exchange;
        try {
            ex.getResponseHeaders().set("Content-Type", contentType);
            ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
                try (OutputStream out = ex.getResponseBody()) {
                    out.write(body);
                }
            }
        } catch (final IOException e) {
            // the client went away; nothing to answer
        } finally {
            ex.close();
            openExchanges.decrementAndGet();
            metrics.record(call.endpoint, status, System.nanoTime() - call.startNs);
        }
    }

    /**
     * @param declared the Content-Length (at most {@code limit}), or -1 for a chunked body.
     * @return the body, or null when it is longer than {@code limit}.
     */
    private static byte[] readBody(final InputStream in, final int limit, final long declared) throws IOException {
        if (declared >= 0) {
            // one array of the body's size (the server's stream ends at Content-Length); was 12 KB of buffers a request
            return in.readNBytes((int) declared);
        }
        final ByteArrayOutputStream buf = new ByteArrayOutputStream(Math.min(limit, 4096));
        final byte[] chunk = new byte[8192];
        int total = 0;
        int n;
        while ((n = in.read(chunk)) > 0) {
            total += n;
            if (total > limit) {
                return null;
            }
            buf.write(chunk, 0, n);
        }
        return buf.toByteArray();
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

    private static String truncate(final String s, final int max) {
        return s.length() <= max ? s : s.substring(0, max) + "...";
    }

    private static ThreadFactory daemonThreads(final String prefix, final long stackLength) {
        final AtomicInteger n = new AtomicInteger();
        return r -> {
            final Thread t = new Thread(null, r, prefix + n.incrementAndGet(), stackLength);
            t.setDaemon(true);
            return t;
        };
    }

    /** One request: its exchange, arrival time, endpoint label and whether it has been answered. */
    private static final class Call {
        private final HttpExchange exchange;
        private final long startNs;
        private final AtomicBoolean answered = new AtomicBoolean();
        private String endpoint = "other";

        Call(final HttpExchange exchange, final long startNs) {
            this.exchange = exchange;
            this.startNs = startNs;
        }
    }

    // ---------------------------------------------------------------------------------------------------- shutdown

    /**
     * Stops: new requests get 503 while queries in flight finish (up to {@code grace}), then the listener and every
     * connection close and the table readers unmap. Idempotent.
     *
     * @param grace how long in-flight queries may take to finish.
     */
    public void stop(final Duration grace) {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        stopping = true;
        workers.shutdown();
        final long deadline = System.nanoTime() + grace.toNanos();
        // HttpServer.stop(delay) on JDK 17 waits the whole delay when nothing is in flight (JDK-8304065), so we wait for
        // our own count of open exchanges, then stop with no delay.
        while (openExchanges.get() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        http.stop(0);
        workers.shutdownNow();
        io.shutdownNow();
        timer.shutdownNow();
        try {
            // every running query holds a slot, on an I/O thread or a worker: the readers are unmapped only when all
            // slots are back (or the grace is over)
            if (running.tryAcquire(config.threads(), Math.max(0, deadline - System.nanoTime()) + TimeUnit.MILLISECONDS.toNanos(100),
                TimeUnit.NANOSECONDS)) {
                running.release(config.threads());
            }
            workers.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (final TableReader r : List.copyOf(readers.values())) {
            r.close();
        }
        readers.clear();
    }

    /** Stops with the default grace of 5 seconds. */
    @Override
    public void close() {
        stop(Duration.ofSeconds(5));
    }
}
