package io.tradestore.server.http;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.handler.timeout.WriteTimeoutException;
import io.netty.handler.timeout.WriteTimeoutHandler;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.ByteProcessor;
import io.netty.util.concurrent.GlobalEventExecutor;

import io.tradestore.core.Store;
import io.tradestore.core.StoreException;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryCancel;
import io.tradestore.query.JsonBodyCheck;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryException;
import io.tradestore.query.QueryResult;

/**
 * The HTTP/JSON front of a store, on Netty's HTTP/1.1 codec (see docs/http-api.md for why).
 *
 * <pre>
 *  event loops (one per core): read, decode and assemble requests (413 past the body limit), auth, route
 *     │  cheap endpoints (/health /metrics /v1/tables) answered on the loop
 *     └─ POST/GET /v1/query ──> admitted? (at most threads running + queue waiting)
 *           no:  503 OVERLOADED + Retry-After, at once (a loop never runs a query, so it is always free to answer)
 *           yes: a query worker runs it ──> the answer is written on the connection's loop
 *  the loop's timer: a query not answered within timeoutMs of its arrival gets 504 TIMEOUT (whichever answers first wins)
 *  one request at a time per connection: pipelined requests wait for the answer before them (answers stay in order)
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
    private static final String TABLE_PREFIX = "/v1/tables/";
    private static final String TABLE_NAME_PATTERN = "[a-z_][a-z0-9_]{0,62}";
    private static final int BACKLOG = 1024;
    private static final int RETRY_AFTER_SECONDS = 1;
    /** Goes on over JSON's whitespace (RFC 8259: space, tab, line feed, carriage return): a body of only that is empty. */
    private static final ByteProcessor JSON_WHITESPACE = b -> b == ' ' || b == '\t' || b == '\n' || b == '\r';
    /** Request line plus headers at most (beyond: 400). */
    private static final int MAX_HEADER_BYTES = 64 * 1024;
    /** Body bytes handed on per read while a body is assembled. */
    private static final int CHUNK_BYTES = 64 * 1024;
    /**
     * Requests a connection may have read and not answered (pipelined behind the one in flight) before the server stops
     * reading from it; reading resumes as answers go out. A read under way is decoded to its end first, so small requests
     * can exceed it by one read's worth (Netty reads up to 64 KiB at a time): a client that sends without reading cannot
     * grow the server.
     */
    private static final int MAX_PENDING = 64;
    /** A connection that sends nothing for this long while no request of it is in flight is closed. */
    private static final int IDLE_SECONDS = 60;
    /**
     * Query worker stack: 16 MiB rather than the default 1 MiB, so a deeply nested query (bounded by the parser's nesting
     * limit) is parsed where it runs as it would be on a main thread.
     */
    private static final long WORKER_STACK_LENGTH = 16L << 20;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(QueryServer.class);
    private static final org.slf4j.Logger ACCESS = org.slf4j.LoggerFactory.getLogger(LogSettings.ACCESS_LOGGER);
    /** How long accepts pause after an accept failed (descriptors run out): connections closing meanwhile free some. */
    private static final long ACCEPT_PAUSE_MS = 100;
    private static final byte[] TOO_MANY_CONNECTIONS = tooManyConnections();
    private static final String STOPPING_MESSAGE = "the server is stopping; retry against another server or after it restarts";
    /** After the grace, how long cancelled queries may take to stop: they see the cancel at their next batch. */
    private static final long WORKER_STOP_WAIT_MS = 5_000;
    /** After the grace, how long answers already made may take to reach their sockets. */
    private static final long FLUSH_WAIT_MS = 1_000;

    private final Store store;
    private final QueryService queries;
    private final ServerConfig config;
    /** Event loops: accept, read and decode requests, route them, answer cheap endpoints and write every response. */
    private final EventLoopGroup loops;
    private final Channel listener;
    private final ThreadPoolExecutor workers;
    private final ServerMetrics metrics;
    private final Map<String, TableReader> readers = new ConcurrentHashMap<>();
    private final AtomicInteger activeQueries = new AtomicInteger();
    /** Queries admitted and not finished: running plus waiting; at most threads + queue. */
    private final AtomicInteger admitted = new AtomicInteger();
    /** Requests read ahead of the one in flight on their connection (pipelined), over all connections. */
    private final AtomicInteger pipelinedRequests = new AtomicInteger();
    /** Requests routed and not yet answered, cheap ones included: {@link #stop} waits for them to drain. */
    private final AtomicInteger unansweredRequests = new AtomicInteger();
    private final AtomicBoolean stopped = new AtomicBoolean();
    /** Queries admitted and not finished: {@link #stop} cancels and answers them once its grace is over. */
    private final Set<QueryTask> inFlight = ConcurrentHashMap.newKeySet();
    /** Every open connection, closed by {@link #stop} once its answers are in the socket. */
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final byte[] expectedAuthorization;
    private final HostPolicy hosts;
    private volatile boolean stopping;
    /** Set once the stop's grace is over: queued queries are answered 503 instead of run. */
    private volatile boolean cancelling;
    /** Connections open now, and the most allowed (beyond: 503 and close, before the descriptors run out). */
    private final AtomicInteger openConnections = new AtomicInteger();
    private final int maxConnections;
    /** Answer bytes handed to connections and not yet taken by their clients, over all connections. */
    private final AtomicLong heldAnswerBytes = new AtomicLong();
    private final LongAdder refusedConnections = new LongAdder();
    private final LongAdder acceptFailures = new LongAdder();
    private final LongAdder requestTimeouts = new LongAdder();
    private final LongAdder writeFailures = new LongAdder();
    private final LongAdder answersRefused = new LongAdder();

    private QueryServer(final Store store, final QueryService queries, final QueryEngine engine, final ServerConfig config)
        throws IOException {
        this.store = store;
        this.queries = queries;
        this.config = config;
        this.expectedAuthorization = config.token() == null ? null : config.token().getBytes(StandardCharsets.UTF_8);
        this.hosts = new HostPolicy(config.bind(), config.limits().allowedHosts(), config.token() != null);
        this.maxConnections = config.limits().maxConnections() > 0 ? config.limits().maxConnections() : ConnectionBudget.fromDescriptorLimit();
        // admission is bounded by `admitted`, so the workers' own queue never holds more than threads + queue tasks
        this.workers = new ThreadPoolExecutor(config.threads(), config.threads(), 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
            daemonThreads("tradestore-query-", WORKER_STACK_LENGTH), new ThreadPoolExecutor.AbortPolicy());
        this.metrics = new ServerMetrics(() -> Math.max(0, admitted.get() - activeQueries.get()), activeQueries::get, pipelinedRequests::get,
            MappedFile::mappedBytes, engine == null ? null : engine::summaryBytes,
            engine == null ? null : engine::summaryBuilds, engine == null ? null : engine::summaryEvictions);
        metrics.connectionLimits(openConnections::get, refusedConnections::sum, acceptFailures::sum, requestTimeouts::sum, writeFailures::sum,
            answersRefused::sum, heldAnswerBytes::get);
        // one event loop per core: a loop never runs a query, so it always reads the next request (and answers 503 at once)
        this.loops = new MultiThreadIoEventLoopGroup(Math.max(1, Runtime.getRuntime().availableProcessors()),
            daemonThreads("tradestore-http-", 0), NioIoHandler.newFactory());
        // a GET's query string may be as long as three times the body limit (percent-encoding)
        final HttpDecoderConfig decoder = new HttpDecoderConfig().setMaxInitialLineLength((int) Math.min(Integer.MAX_VALUE - 1024,
            3L * config.maxBodyLength() + 1024)).setMaxHeaderSize(MAX_HEADER_BYTES).setMaxChunkSize(CHUNK_BYTES);
        final ServerBootstrap bootstrap = new ServerBootstrap().group(loops).channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, BACKLOG)
            .childOption(ChannelOption.TCP_NODELAY, true)
            // a client that half-closes after its request still gets the answer (HTTP/1.0 clients do)
            .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
            .handler(new AcceptErrors())
            .childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(final SocketChannel ch) {
                    if (openConnections.incrementAndGet() > maxConnections) {
                        openConnections.decrementAndGet();
                        refusedConnections.increment();
                        // before any byte is read: a fixed answer, then the close (a client sees why, not a reset)
                        ch.writeAndFlush(Unpooled.wrappedBuffer(TOO_MANY_CONNECTIONS)).addListener(ChannelFutureListener.CLOSE);
                        return;
                    }
                    ch.closeFuture().addListener(f -> openConnections.decrementAndGet());
                    connections.add(ch);
                    final RequestDeadline deadline = new RequestDeadline(config.limits().requestTimeoutMs(), QueryServer.this::requestTooSlow);
                    final Connection connection = new Connection(deadline);
                    // pipelining depth is bounded by Connection (it stops reading past MAX_PENDING), not by the codec; the
                    // write timeout and the request deadline sit at the socket's end, where bytes come and go
                    ch.pipeline().addLast(new WriteTimeoutHandler(config.limits().writeTimeoutMs(), TimeUnit.MILLISECONDS), deadline,
                        new IdleStateHandler(IDLE_SECONDS, 0, 0), new HttpServerCodec(decoder, Integer.MAX_VALUE), new ChunkedWriteHandler(),
                        new BodyLimit(config.maxBodyLength(), connection), connection);
                }
            });
        try {
            this.listener = bootstrap.bind(new InetSocketAddress(config.bind(), config.port())).syncUninterruptibly().channel();
        } catch (final RuntimeException e) {
            loops.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            workers.shutdownNow();
            throw new IOException(e.getMessage() == null ? e.toString() : e.getMessage(), e);
        }
    }

    /**
     * Starts serving queries on an engine; /metrics reports its summaries.
     *
     * @param store  the store whose tables are served (not closed by the server).
     * @param engine the engine over that store (not closed by the server).
     * @param config address, limits and token.
     * @return the running server.
     */
    public static QueryServer start(final Store store, final QueryEngine engine, final ServerConfig config) {
        return start(store, QueryService.of(engine), engine, config);
    }

    /**
     * Starts serving queries on any service (tests make queries slow or faulty); /metrics has no summary figures.
     *
     * @param store   the store whose tables are served (not closed by the server).
     * @param queries what answers queries.
     * @param config  address, limits and token.
     * @return the running server.
     */
    public static QueryServer start(final Store store, final QueryService queries, final ServerConfig config) {
        return start(store, queries, null, config);
    }

    private static QueryServer start(final Store store, final QueryService queries, final QueryEngine engine, final ServerConfig config) {
        final QueryServer s;
        try {
            s = new QueryServer(store, queries, engine, config);
        } catch (final IOException e) {
            throw new StoreException("cannot listen on " + config.bind() + ":" + config.port() + ": " + e.getMessage()
                + (config.port() != 0 ? "; is another server running there? choose another --port" : ""), e);
        }
        return s;
    }

    /** @return the address the server listens on (with the real port when 0 was asked for). */
    public InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    /** @return the port the server listens on. */
    public int port() {
        return address().getPort();
    }

    /** @return total requests answered so far. */
    public long requestCount() {
        return metrics.requestCount();
    }

    /** @return answer bytes handed to connections whose clients have not taken them yet (answers over 64 KiB). */
    long unreadAnswerBytes() {
        return heldAnswerBytes.get();
    }

    /** @return the Prometheus text of the metrics, as {@code GET /metrics} answers. */
    public String metricsText() {
        return metrics.render();
    }

    // ---------------------------------------------------------------------------------------------------- routing

    private void handle(final Call call) {
        unansweredRequests.incrementAndGet();
        try {
            route(call);
        } catch (final Throwable t) {
            internal(call, t);
        }
    }

    private void route(final Call call) throws IOException {
        if (call.request.decoderResult().cause() instanceof TooLarge || call.request.decoderResult().cause() instanceof TooLongHttpLineException) {
            call.endpoint = Endpoint.QUERY;
            call.keepAlive = false; // the body (or the rest of the request line) was not read
            tooLarge(call);
            return;
        }
        if (call.request.decoderResult().isFailure()) {
            final Throwable cause = call.request.decoderResult().cause();
            call.keepAlive = false; // the stream may be out of step: answer, then close
            error(call, 400, "MALFORMED_REQUEST", "the HTTP request could not be read: " + (cause == null ? "bad syntax"
                : StoreException.echo(String.valueOf(cause.getMessage()))), "");
            return;
        }
        if (call.request.protocolVersion().majorVersion() != 1) {
            // an HTTP/2 preface ("PRI * HTTP/2.0") or a made-up version: this server speaks HTTP/1.x only
            call.keepAlive = false;
            error(call, 505, "HTTP_VERSION_NOT_SUPPORTED", "this server speaks HTTP/1.1 (and 1.0) only; "
                + StoreException.echo(call.request.protocolVersion().text()) + " is not supported (use HTTP/1.1, without upgrade)", "");
            return;
        }
        final String host = call.request.headers().get(HttpHeaderNames.HOST);
        final String badHost = host == null && !call.request.protocolVersion().isKeepAliveDefault() ? null : hosts.refuseHost(host);
        if (badHost != null) {
            call.keepAlive = false;
            error(call, host == null ? 400 : 403, host == null ? "MALFORMED_REQUEST" : "FORBIDDEN_HOST", badHost, "");
            return;
        }
        final String badOrigin = hosts.refuseOrigin(call.request.headers().get(HttpHeaderNames.ORIGIN), host);
        if (badOrigin != null) {
            error(call, 403, "FORBIDDEN_ORIGIN", badOrigin, "");
            return;
        }
        final String method = call.request.method().name();
        final URI uri;
        try {
            uri = new URI(call.request.uri());
        } catch (final URISyntaxException e) {
            error(call, 400, "MALFORMED_REQUEST", "the request target is not a valid URI: " + StoreException.echo(e.getMessage()), "");
            return;
        }
        // a target in origin form is split here, path up to '?' and the query after it: new URI("//health") reads
        // "health" as an authority; a fragment is no part of a request target (RFC 9112, 3.2.1)
        final String target = call.request.uri();
        final String path;
        if (target.startsWith("/")) {
            if (target.indexOf('#') >= 0) {
                error(call, 400, "MALFORMED_REQUEST", "a request target has no fragment ('#...'); send the path and query only", "");
                return;
            }
            final int queryAt = target.indexOf('?');
            path = queryAt < 0 ? target : target.substring(0, queryAt);
            call.rawQuery = queryAt < 0 ? null : target.substring(queryAt + 1);
        } else {
            path = uri.getRawPath() == null ? "" : uri.getRawPath();
            call.rawQuery = uri.getRawQuery();
        }
        call.endpoint = Endpoint.of(path);
        if (expectedAuthorization != null && !authorized(call)) {
            call.header("WWW-Authenticate", "Bearer realm=\"tradestore\"");
            error(call, 401, "UNAUTHORIZED", "send the header 'Authorization: Bearer <token>' with the server's token", "");
            return;
        }
        if (stopping) {
            call.header("Retry-After", Integer.toString(RETRY_AFTER_SECONDS));
            error(call, 503, "OVERLOADED", STOPPING_MESSAGE, "");
            return;
        }
        // HEAD is GET without the body (send() drops it), as RFC 9110 asks of every GET endpoint
        final boolean get = "GET".equals(method) || call.head;
        switch (call.endpoint) {
            case HEALTH:
                if (allowGet(call, get)) {
                    send(call, 200, JSON_TYPE, "{\"status\":\"ok\"}".getBytes(StandardCharsets.UTF_8));
                }
                return;
            case METRICS:
                if (allowGet(call, get)) {
                    send(call, 200, PROMETHEUS_TYPE, metrics.render().getBytes(StandardCharsets.UTF_8));
                }
                return;
            case TABLES:
                if (allowGet(call, get)) {
                    send(call, 200, JSON_TYPE, tablesJson());
                }
                return;
            case TABLE:
                if (allowGet(call, get)) {
                    table(call, path.substring(TABLE_PREFIX.length()));
                }
                return;
            case QUERY:
                if ("POST".equals(method)) {
                    postQuery(call);
                } else if (get) {
                    getQuery(call);
                } else {
                    methodNotAllowed(call, "GET, HEAD, POST");
                }
                return;
            default:
                error(call, 404, "NOT_FOUND", "no endpoint " + StoreException.echo(path) + "; endpoints are POST /v1/query, GET /v1/query?q=, "
                    + "GET /v1/tables, GET /v1/tables/{name}, GET /metrics, GET /health", "");
        }
    }

    /** An auth scheme's name is case-insensitive (RFC 9110, 11.1): "bearer" and "BEARER" are Bearer; the token is not. */
    private boolean authorized(final Call call) {
        final String h = call.request.headers().get(HttpHeaderNames.AUTHORIZATION);
        return h != null && h.regionMatches(true, 0, BEARER, 0, BEARER.length())
            && MessageDigest.isEqual(expectedAuthorization, h.substring(BEARER.length()).getBytes(StandardCharsets.UTF_8));
    }

    private static final String BEARER = "Bearer ";

    private boolean allowGet(final Call call, final boolean get) {
        if (!get) {
            methodNotAllowed(call, "GET, HEAD");
        }
        return get;
    }

    private void methodNotAllowed(final Call call, final String allowed) {
        call.header("Allow", allowed);
        error(call, 405, "METHOD_NOT_ALLOWED", call.request.method().name() + " is not allowed here; use " + allowed, "");
    }

    // ---------------------------------------------------------------------------------------------------- queries

    private void postQuery(final Call call) {
        // the body limit (413) is applied while the body is read (BodyLimit); the body is checked here in place and
        // parsed by the worker from the request's own buffer, never copied into a byte[] or a String
        // the check QueryParser makes (strict UTF-8, no NUL among the first four bytes), made here too: a refused body is not admitted
        final ByteBuf body = call.request.content();
        final JsonBodyCheck check = new JsonBodyCheck();
        body.forEachByte(check::accept);
        final QueryException refused = check.problem();
        if (refused != null) {
            error(call, refused.code().httpStatus(), refused.code().name(), refused.getMessage(), refused.path());
            return;
        }
        final Boolean epochNanos = epochNanos(call);
        if (epochNanos != null) {
            submit(call, null, body.forEachByte(JSON_WHITESPACE) < 0 ? null : body, epochNanos);
        }
    }

    private void getQuery(final Call call) {
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
            error(call, 400, "MALFORMED_JSON", "missing parameter q: GET /v1/query?q=<url-encoded JSON query>", "");
            return;
        }
        if (q.length() > config.maxBodyLength()) {
            tooLarge(call);
            return;
        }
        final Boolean epochNanos = epochNanos(call);
        if (epochNanos != null) {
            submit(call, q.isBlank() ? null : q, null, epochNanos);
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
        error(call, 400, ErrorCode.INVALID_QUERY.name(), "epochNanos must be true or false", "");
        return null;
    }

    private void badPercentEncoding(final Call call) {
        error(call, 400, "MALFORMED_JSON", "the query string is not valid percent-encoding", "");
    }

    private void tooLarge(final Call call) {
        error(call, 413, "PAYLOAD_TOO_LARGE", "the query is larger than the server's limit of " + config.maxBodyLength() + " bytes", "");
    }

    /**
     * Admits a query and hands it to a worker, or answers at once.
     *
     * @param call       the request.
     * @param json       the query text of a GET, or null.
     * @param body       the query bytes of a POST (retained here for the worker, which releases them), or null.
     * @param epochNanos the {@code epochNanos} parameter.
     */
    private void submit(final Call call, final String json, final ByteBuf body, final boolean epochNanos) {
        if (json == null && body == null) {
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
        // the request is released once routed: the worker holds its own reference to the body
        final QueryTask task = new QueryTask(call, json, body == null ? null : body.retain(), epochNanos);
        inFlight.add(task);
        // on the connection's event loop, from that loop: scheduling wakes no thread (a cancel is queued lazily)
        task.timeout = call.ctx.executor().schedule(() -> error(call, 504, "TIMEOUT", "the query did not finish within the server's limit of "
            + config.timeoutMs() + " ms", ""), Math.max(0, task.remainingNs()), TimeUnit.NANOSECONDS);
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

    private void overloaded(final Call call) {
        call.header("Retry-After", Integer.toString(RETRY_AFTER_SECONDS));
        error(call, 503, "OVERLOADED", "all " + config.threads() + " workers are busy and " + config.queue()
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
        /**
         * When the server answers 504 ({@link System#nanoTime()}), measured from arrival: the client waits for queueing and
         * running alike. Compared by difference only, so a timeout near Long.MAX_VALUE nanoseconds wraps harmlessly.
         */
        private final long deadlineNs;
        private volatile ScheduledFuture<?> timeout;
        /** Cancelled by {@link #stop} past its grace: the engine stops the query at its next batch. */
        private final QueryCancel cancel = new QueryCancel();

        QueryTask(final Call call, final String json, final ByteBuf postBody, final boolean epochNanos) {
            this.call = call;
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
            call.header("Retry-After", Integer.toString(RETRY_AFTER_SECONDS));
            error(call, 503, ErrorCode.OVERLOADED.name(), STOPPING_MESSAGE, "");
        }

        void release() {
            if (postBody != null) {
                postBody.release();
            }
        }

        private void answer() {
            activeQueries.incrementAndGet();
            try {
                // whole milliseconds rounded up, as before: the engine stops no earlier than the 504
                final long leftNs = remainingNs();
                final long leftMs = leftNs / 1_000_000 + (leftNs % 1_000_000 > 0 ? 1 : 0);
                final QueryResult result = postBody != null
                    ? queries.execute(new ByteBufInputStream(postBody), Math.max(1, leftMs), cancel)
                    : queries.execute(json, Math.max(1, leftMs), cancel);
                metrics.rows(result.stats().rowsScanned(), result.stats().rowsMatched());
                final ByteBufOutputStream buf = body(256 + 32 * result.rowCount());
                result.writeJson(buf, epochNanos);
                send(call, 200, JSON_TYPE, buf.buffer());
            } catch (final QueryException e) {
                if (e.code().httpStatus() >= 500 && e.code() != ErrorCode.TIMEOUT
                    && e.code() != ErrorCode.OVERLOADED) {
                    internal(call, e);
                } else {
                    if (e.code().httpStatus() == 503) {
                        call.header("Retry-After", Integer.toString(RETRY_AFTER_SECONDS));
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

    private ByteBuf tablesJson() throws IOException {
        final ByteBufOutputStream buf = body(256);
        try (JsonGenerator g = JSON.createGenerator((OutputStream) buf)) {
            g.writeStartObject();
            g.writeArrayFieldStart("tables");
            for (final String name : store.tableNames()) {
                g.writeStartObject();
                g.writeStringField("name", name);
                try {
                    final TableSnapshot s = reader(name).snapshot();
                    g.writeNumberField("rows", s.rowCount());
                    g.writeNumberField("segments", s.segmentCount());
                } catch (final StoreException e) {
                    // one table whose files do not open leaves the others listed
                    g.writeStringField("error", e.getMessage());
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        return buf.buffer();
    }

    private void table(final Call call, final String name) throws IOException {
        // The name is matched against the store's naming rule and its table list before any file is touched.
        if (!name.matches(TABLE_NAME_PATTERN) || !store.hasTable(name)) {
            error(call, 404, "UNKNOWN_TABLE", "no table '" + StoreException.echo(name) + "'; tables are " + store.tableNames(), "");
            return;
        }
        final TableSnapshot s = reader(name).snapshot();
        final Schema schema = s.schema();
        final ByteBufOutputStream buf = body(512);
        try (JsonGenerator g = JSON.createGenerator((OutputStream) buf)) {
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
        send(call, 200, JSON_TYPE, buf.buffer());
    }

    private TableReader reader(final String name) {
        return readers.computeIfAbsent(name, n -> store.table(n).reader());
    }

    // ---------------------------------------------------------------------------------------------------- responses

    private void internal(final Call call, final Throwable t) {
        final String id = Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
        LOG.error("internal error id={} endpoint={}: {}", id, call.endpoint.label(), String.valueOf(t), t);
        // what the store says (a missing or damaged file, named) helps the caller; a bug's message stays in the log
        final boolean storeProblem = t instanceof QueryException ? ((QueryException) t).storeProblem() : t instanceof StoreException;
        final String message = storeProblem
            ? t.getMessage() + " (error id " + id + ")"
            : "internal error " + id + "; the server log has the details";
        error(call, 500, "INTERNAL", message, "", id);
    }

    private void error(final Call call, final int status, final String code, final String message, final String path) {
        error(call, status, code, message, path, null);
    }

    private void error(final Call call, final int status, final String code, final String message, final String path, final String id) {
        send(call, status, JSON_TYPE, errorBody(code, message, path, id));
    }

    /** @return the JSON error object every failure answers: {@code {"error":{"code","message","path"[,"id"]}}}. */
    private static ByteBuf errorBody(final String code, final String message, final String path, final String id) {
        final ByteBufOutputStream buf = body(128);
        try (JsonGenerator g = JSON.createGenerator((OutputStream) buf)) {
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
        return buf.buffer();
    }

    /** @param initial bytes to start with. @return a stream into an unpooled heap buffer: an answer dropped after its 504 needs no release. */
    private static ByteBufOutputStream body(final int initial) {
        return new ByteBufOutputStream(Unpooled.buffer(initial));
    }

    private void send(final Call call, final int status, final String contentType, final byte[] body) {
        send(call, status, contentType, Unpooled.wrappedBuffer(body));
    }

    /**
     * Sends the one answer of a request; later attempts (a result after its 504) are dropped. Any thread may call it:
     * the write, and the start of the connection's next pipelined request, run on the connection's event loop.
     */
    private void send(final Call call, final int status, final String contentType, final ByteBuf body) {
        if (!call.answered.compareAndSet(false, true)) {
            return;
        }
        final int length = body.readableBytes();
        if (length > SlicedBody.SLICE_BYTES && !call.head && heldAnswerBytes.addAndGet(length) > config.limits().maxAnswerBytes()) {
            // refused before its status line goes out: clients that do not read their answers hold too much already
            heldAnswerBytes.addAndGet(-length);
            answersRefused.increment();
            LOG.warn("refused an answer of {} bytes to {} ({} {}): connections hold {} answer bytes their clients have not read, the "
                + "limit is {}", length, call.ctx.channel().remoteAddress(), call.endpoint.label(), status, heldAnswerBytes.get(),
                config.limits().maxAnswerBytes());
            call.answered.set(false);
            call.keepAlive = false;
            call.header("Retry-After", Integer.toString(RETRY_AFTER_SECONDS));
            error(call, 503, ErrorCode.OVERLOADED.name(), "the server holds too many answer bytes that clients have not read yet; "
                + "retry later, or narrow the query (limit, fewer columns)", "");
            return;
        }
        final boolean sliced = length > SlicedBody.SLICE_BYTES && !call.head;
        // a HEAD answer is GET's with its Content-Length but without the body (an unpooled buffer: dropped, not released)
        final HttpResponse response = sliced ? new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status))
            : new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), call.head ? Unpooled.EMPTY_BUFFER : body);
        final HttpHeaders h = response.headers();
        h.set(HttpHeaderNames.CONTENT_TYPE, contentType);
        h.setInt(HttpHeaderNames.CONTENT_LENGTH, length);
        synchronized (call) {
            if (call.extraHeaders != null) {
                h.add(call.extraHeaders);
            }
        }
        final boolean keepAlive = call.keepAlive && !stopping;
        if (!keepAlive) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else if (!call.request.protocolVersion().isKeepAliveDefault()) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
        final long tookNs = System.nanoTime() - call.startNs;
        metrics.record(call.endpoint, status, tookNs);
        if (ACCESS.isInfoEnabled()) {
            ACCESS.info("{} {} {} {} {} {} {}", call.ctx.channel().remoteAddress(), call.request.method().name(),
                StoreException.echo(call.request.uri()), call.endpoint.label(), status, length, String.format("%.3f", tookNs / 1e6));
        }
        // answered once the bytes are in the socket or the connection is gone, not when the answer is made: stop() waits
        // for that before it closes connections, so an answer a worker produced is never dropped by the closing
        final ChannelFutureListener done = sliced ? f -> {
            heldAnswerBytes.addAndGet(-length);
            written(f);
        } : this::written;
        final Runnable write = () -> {
            final ChannelFuture f;
            if (sliced) {
                call.ctx.write(response);
                f = call.ctx.writeAndFlush(new HttpChunkedInput(new SlicedBody(body))).addListener(done);
            } else {
                f = call.ctx.writeAndFlush(response).addListener(done);
            }
            if (keepAlive) {
                call.connection.next(call.ctx);
            } else {
                f.addListener(ChannelFutureListener.CLOSE);
            }
        };
        if (call.ctx.executor().inEventLoop()) {
            write.run();
        } else {
            try {
                call.ctx.executor().execute(write);
            } catch (final RejectedExecutionException e) {
                unansweredRequests.decrementAndGet(); // the loops are gone: so is the connection
                if (sliced) {
                    heldAnswerBytes.addAndGet(-length);
                }
            }
        }
    }

    /** An answer is in its socket, or failed: a failure other than a client gone is counted and logged, and closes. */
    private void written(final ChannelFuture f) {
        unansweredRequests.decrementAndGet();
        if (!f.isSuccess()) {
            final Throwable cause = f.cause();
            if (!(cause instanceof java.nio.channels.ClosedChannelException) && !(cause instanceof IOException)) {
                writeFailures.increment();
                LOG.warn("an answer to {} could not be written, closing the connection: {}", f.channel().remoteAddress(), String.valueOf(cause));
            }
            f.channel().close();
        }
    }

    /**
     * A client took longer than the request timeout to send a whole request: 408 and close, unless the server itself holds
     * the request back (an answer in flight or requests waiting before it), when the client is not the slow one.
     *
     * @param ctx the connection (its first handler's context).
     * @return whether the connection was closed.
     */
    private boolean requestTooSlow(final ChannelHandlerContext ctx) {
        final Connection c = ctx.pipeline().get(Connection.class);
        if (c != null && (c.busy || !c.pending.isEmpty())) {
            return false;
        }
        requestTimeouts.increment();
        final ByteBuf body = errorBody("REQUEST_TIMEOUT", "the request did not arrive whole within the server's limit of "
            + config.limits().requestTimeoutMs() + " ms", "", null);
        final FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.REQUEST_TIMEOUT, body);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, JSON_TYPE).setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes())
            .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.channel().writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
        return true;
    }

    private static byte[] tooManyConnections() {
        final String body = "{\"error\":{\"code\":\"OVERLOADED\",\"message\":\"the server has as many connections open as it allows "
            + "(--max-connections); retry later or reuse a connection\",\"path\":\"\"}}";
        return ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: " + RETRY_AFTER_SECONDS
            + "\r\nConnection: close\r\nContent-Length: " + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII);
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

    private static ThreadFactory daemonThreads(final String prefix, final long stackLength) {
        final AtomicInteger n = new AtomicInteger();
        return r -> {
            final Thread t = new Thread(null, r, prefix + n.incrementAndGet(), stackLength);
            t.setDaemon(true);
            return t;
        };
    }

    /** One request: its connection, the request, arrival time, endpoint label and whether it has been answered. */
    private static final class Call {
        private final Connection connection;
        private final ChannelHandlerContext ctx;
        /** Released once the request is routed: a POST query retains its body for the worker. */
        private final FullHttpRequest request;
        private final long startNs;
        private final AtomicBoolean answered = new AtomicBoolean();
        /** A HEAD request: answered as GET, without the body. */
        private final boolean head;
        private Endpoint endpoint = Endpoint.OTHER;
        private String rawQuery;
        private boolean keepAlive;
        private HttpHeaders extraHeaders;

        Call(final Connection connection, final ChannelHandlerContext ctx, final FullHttpRequest request, final long startNs) {
            this.connection = connection;
            this.ctx = ctx;
            this.request = request;
            this.startNs = startNs;
            this.keepAlive = HttpUtil.isKeepAlive(request);
            this.head = HttpMethod.HEAD.equals(request.method());
        }

        /** Adds a header to the answer (a worker may, while the event loop answers 504). */
        synchronized void header(final String name, final String value) {
            if (extraHeaders == null) {
                extraHeaders = new DefaultHttpHeaders();
            }
            extraHeaders.set(name, value);
        }
    }

    /**
     * A connection's requests, answered one at a time and in order: a request pipelined behind one in flight waits here
     * (answers of HTTP/1.1 pipelining must come in request order). The connection is not read while {@link #MAX_PENDING}
     * requests wait or its answers are not being taken (not writable), so a client can never grow the server's memory.
     */
    private final class Connection extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final ArrayDeque<FullHttpRequest> pending = new ArrayDeque<>();
        private final RequestDeadline deadline;
        private boolean busy;
        private boolean inputClosed;
        /** Whether {@link #startPending} is starting requests (an answer given inside start must not start the next). */
        private boolean starting;

        Connection(final RequestDeadline deadline) {
            super(false); // released by start(), or when the connection closes with requests pending
            this.deadline = deadline;
        }

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final FullHttpRequest request) {
            deadline.requestReceived();
            if (busy || !pending.isEmpty()) {
                pending.add(request);
                pipelinedRequests.incrementAndGet();
                reading(ctx);
                return;
            }
            start(ctx, request);
        }

        private void start(final ChannelHandlerContext ctx, final FullHttpRequest request) {
            busy = true;
            try {
                handle(new Call(this, ctx, request, System.nanoTime()));
            } finally {
                request.release();
            }
        }

        /** On the event loop, after an answer is written: the next pipelined request, if any and the client reads. */
        void next(final ChannelHandlerContext ctx) {
            busy = false;
            startPending(ctx);
            reading(ctx);
            if (inputClosed && !busy && pending.isEmpty()) {
                ctx.close(); // the client half-closed after its last request: everything is answered
            }
        }

        /**
         * Starts the oldest pipelined request, and the ones after it while each is answered at once (cheap endpoints,
         * errors, 503s), as long as there are any and the client takes its answers. A loop, not a recursion: such an
         * answer calls {@link #next} from inside {@link #start}, which only returns to this loop (before, each pipelined
         * request answered on the loop went a few frames deeper, and the event loop's stack overflowed: in
         * {@code BackPressureTest.shouldAnswerThousandsOfSmallRequestsPipelinedBehindOneInFlight}, 3,000 sent in one write
         * behind a query in flight, the connection stopped answering after ~850).
         */
        private void startPending(final ChannelHandlerContext ctx) {
            if (starting) {
                return; // an answer given inside start(): the loop below goes on when start returns
            }
            starting = true;
            try {
                while (!busy && !pending.isEmpty() && ctx.channel().isWritable()) {
                    pipelinedRequests.decrementAndGet();
                    start(ctx, pending.poll());
                }
            } finally {
                starting = false;
            }
        }

        /**
         * Reads on while fewer than {@link #MAX_PENDING} requests wait and the client takes its answers; else stops
         * reading, and {@link BodyLimit} leaves a half-read request half read.
         */
        private void reading(final ChannelHandlerContext ctx) {
            ctx.channel().config().setAutoRead(pending.size() < MAX_PENDING && ctx.channel().isWritable());
        }

        @Override
        public void channelWritabilityChanged(final ChannelHandlerContext ctx) throws Exception {
            if (!busy) {
                startPending(ctx);
            }
            reading(ctx);
            super.channelWritabilityChanged(ctx);
        }

        @Override
        public void userEventTriggered(final ChannelHandlerContext ctx, final Object event) throws Exception {
            if (event instanceof ChannelInputShutdownEvent) {
                inputClosed = true;
                if (!busy && pending.isEmpty()) {
                    ctx.close();
                }
            } else if (event instanceof IdleStateEvent) {
                if (!busy && pending.isEmpty()) {
                    ctx.close(); // idle, or a request that never completes
                }
            } else {
                super.userEventTriggered(ctx, event);
            }
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx) throws Exception {
            for (FullHttpRequest r = pending.poll(); r != null; r = pending.poll()) {
                pipelinedRequests.decrementAndGet();
                r.release();
            }
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            // a reset connection, or a client gone in the middle of its request, is routine; anything else is worth a line
            if (cause instanceof WriteTimeoutException) {
                writeFailures.increment();
                LOG.warn("closing the connection of {}: it took no bytes of its answer for {} ms (--write-timeout-ms)",
                    ctx.channel().remoteAddress(), config.limits().writeTimeoutMs());
            } else if (!(cause instanceof IOException || cause instanceof PrematureChannelClosureException)) {
                LOG.warn("closing a connection after {}", String.valueOf(cause));
            }
            ctx.close();
        }
    }

    /**
     * Failures to accept a connection (out of file descriptors, mostly): counted, logged at most once a second, and
     * survived by pausing accepts for {@link #ACCEPT_PAUSE_MS} (the listener keeps its place in the kernel's queue).
     * Handled here, first on the listener's pipeline, so that nothing on this path needs a descriptor of its own.
     */
    private final class AcceptErrors extends ChannelInboundHandlerAdapter {
        private long lastLogNs = System.nanoTime() - TimeUnit.SECONDS.toNanos(2);

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            acceptFailures.increment();
            final long now = System.nanoTime();
            if (now - lastLogNs > TimeUnit.SECONDS.toNanos(1)) {
                lastLogNs = now;
                LOG.warn("cannot accept a connection ({} open, at most {}): {}; pausing accepts for {} ms", openConnections.get(), maxConnections,
                    String.valueOf(cause), ACCEPT_PAUSE_MS);
            }
            final ChannelConfig c = ctx.channel().config();
            if (c.isAutoRead()) {
                c.setAutoRead(false);
                ctx.channel().eventLoop().schedule(() -> c.setAutoRead(true), ACCEPT_PAUSE_MS, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** The decoder result of a request whose body was over the limit (answered 413 in its turn, by {@link #route}). */
    private static final class TooLarge extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TooLarge() {
            super("body over the limit", null, false, false);
        }
    }

    /**
     * Assembles a request's body up to the server's limit. A longer one becomes a request marked {@link TooLarge},
     * answered 413 (JSON) in its turn and then the connection closed. {@code Expect: 100-continue} gets its 100 only when
     * the body fits and no answer is pending before it; other expectations are ignored.
     */
    private static final class BodyLimit extends HttpObjectAggregator {
        private final Connection connection;

        BodyLimit(final int maxBytes, final Connection connection) {
            super(maxBytes);
            this.connection = connection;
        }

        /**
         * Passes the end of a read on without reading more. {@code MessageAggregator} reads on by itself while a request
         * is half assembled and auto-read is off (netty#6583), and auto-read is off here only where {@link Connection}
         * has stopped reading (requests waiting, or answers not taken): those reads went past the limit, request after
         * request, as long as each read ended inside a body ({@code BackPressureTest} before this override: ~1,100
         * requests, ~70 MB, read on one connection against the limit of 64). The half-read request is finished when
         * reading resumes.
         */
        @Override
        public void channelReadComplete(final ChannelHandlerContext ctx) {
            ctx.fireChannelReadComplete();
        }

        @Override
        protected Object newContinueResponse(final HttpMessage start, final int maxContentLength, final ChannelPipeline pipeline) {
            if (!HttpUtil.is100ContinueExpected(start) || connection.busy || HttpUtil.getContentLength(start, -1L) > maxContentLength) {
                return null; // an over-long body is answered 413 in its turn; no 100 may overtake an earlier answer
            }
            return super.newContinueResponse(start, maxContentLength, pipeline);
        }

        @Override
        protected void handleOversizedMessage(final ChannelHandlerContext ctx, final HttpMessage oversized) {
            final HttpRequest r = (HttpRequest) oversized;
            final DefaultFullHttpRequest marker = new DefaultFullHttpRequest(r.protocolVersion(), HttpMethod.POST, r.uri(), Unpooled.EMPTY_BUFFER);
            marker.setDecoderResult(DecoderResult.failure(new TooLarge()));
            ctx.fireChannelRead(marker);
        }
    }

    // ---------------------------------------------------------------------------------------------------- shutdown

    /**
     * Stops: new requests get 503 while queries in flight finish and their answers reach the socket (up to {@code grace});
     * past the grace every query still queued or running is cancelled and answered 503; then the listener and every
     * connection close and the server's table readers unmap. Returns once no worker runs a query (or, for a query service
     * that ignores its cancel, after {@link #WORKER_STOP_WAIT_MS} more, with a warning): the engine's own
     * {@link io.tradestore.query.QueryEngine#close()} waits for its queries before unmapping. Idempotent.
     *
     * @param grace how long in-flight queries may take to finish.
     */
    public void stop(final Duration grace) {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        stopping = true;
        workers.shutdown(); // never shutdownNow: an interrupt would close the store's file channels
        awaitAnswers(System.nanoTime() + grace.toNanos());
        cancelling = true; // before the copy below: a task the workers take from now on is answered 503, not run
        if (!inFlight.isEmpty()) {
            for (final QueryTask t : List.copyOf(inFlight)) {
                t.stopNow();
            }
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
        awaitAnswers(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FLUSH_WAIT_MS));
        listener.close().syncUninterruptibly();
        connections.close().awaitUninterruptibly(FLUSH_WAIT_MS, TimeUnit.MILLISECONDS);
        loops.shutdownGracefully(0, FLUSH_WAIT_MS, TimeUnit.MILLISECONDS).awaitUninterruptibly(2 * FLUSH_WAIT_MS, TimeUnit.MILLISECONDS);
        // the readers are used on the event loops only (table listings), which have ended
        for (final TableReader r : List.copyOf(readers.values())) {
            r.close();
        }
        readers.clear();
    }

    /** Waits until every routed request's answer is in its socket (or its connection gone), or the deadline. */
    private void awaitAnswers(final long deadlineNs) {
        while (unansweredRequests.get() > 0 && System.nanoTime() - deadlineNs < 0) {
            try {
                Thread.sleep(5);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Stops with the default grace of 5 seconds. */
    @Override
    public void close() {
        stop(Duration.ofSeconds(5));
    }
}
