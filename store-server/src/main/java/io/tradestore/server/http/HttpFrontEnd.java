package io.tradestore.server.http;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import com.fasterxml.jackson.core.JsonGenerator;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.handler.timeout.WriteTimeoutHandler;
import io.netty.util.concurrent.GlobalEventExecutor;

import io.tradestore.core.Store;
import io.tradestore.core.RetentionRule;
import io.tradestore.core.StoreException;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;

/**
 * The Netty server and its route table: binds the listener, builds each connection's pipeline, routes each request to
 * its endpoint and answers the cheap ones (/health, /metrics, /v1/tables) on the event loop.
 */
final class HttpFrontEnd {
    private static final String PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    private static final String TABLE_PREFIX = "/v1/tables/";
    private static final String IMPORT_SUFFIX = "/import";
    private static final String EXPORT_SUFFIX = "/export";
    /** What {@code GET /settings} answers QuestDB's clients: line protocol version 1, text, over HTTP. */
    private static final byte[] QUESTDB_SETTINGS = ("{\"config\":{\"line.proto.support.versions\":[1],"
        + "\"ilp.proto.transports\":[\"http\"]}}").getBytes(StandardCharsets.UTF_8);
    static final String TABLE_NAME_PATTERN = "[a-z_][a-z0-9_]{0,62}";
    private static final int BACKLOG = 1024;
    /** Request line plus headers at most (beyond: 400). */
    private static final int MAX_HEADER_BYTES = 64 * 1024;
    /** Body bytes handed on per read while a body is assembled. */
    private static final int CHUNK_BYTES = 64 * 1024;
    /** A connection that sends nothing for this long while no request of it is in flight is closed. */
    private static final int IDLE_SECONDS = 60;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(QueryServer.class);
    /** How long accepts pause after an accept failed (descriptors run out): connections closing meanwhile free some. */
    private static final long ACCEPT_PAUSE_MS = 100;
    private static final byte[] TOO_MANY_CONNECTIONS = tooManyConnections();

    private final Store store;
    private final ServerConfig config;
    private final QueryAdmission admission;
    private final IngestAdmission ingest;
    private final AnswerWriter answers;
    private final RequestAuth auth;
    private final ServerMetrics metrics;
    /** Event loops: accept, read and decode requests, route them, answer cheap endpoints and write every response. */
    private final EventLoopGroup loops;
    private final Channel listener;
    private final TableViews views;
    private final ExportStreams exports;
    private final ConsoleAssets consoleAssets;
    /** Every open connection, closed by the stop once its answers are in the socket. */
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    /** Connections open now, and the most allowed (beyond: 503 and close, before the descriptors run out). */
    private final AtomicInteger openConnections = new AtomicInteger();
    private final int maxConnections;
    private final LongAdder refusedConnections = new LongAdder();
    private final LongAdder acceptFailures = new LongAdder();

    /**
     * Binds the listener; on failure ends the loops and the admission's workers.
     *
     * @param store             the store whose tables are served.
     * @param config            address, limits and token.
     * @param admission         where queries go.
     * @param ingest            where rows go.
     * @param pipelinedRequests requests read ahead of the one in flight, over all connections.
     * @throws IOException when the address cannot be bound.
     */
    HttpFrontEnd(final Store store, final ServerConfig config, final QueryAdmission admission,
        final IngestAdmission ingest, final AtomicInteger pipelinedRequests) throws IOException {
        this.store = store;
        this.views = new TableViews(store);
        this.config = config;
        this.admission = admission;
        this.ingest = ingest;
        this.answers = admission.answers();
        this.metrics = admission.metrics();
        this.exports = new ExportStreams(store, admission, answers, config);
        this.consoleAssets = ConsoleAssets.load();
        this.auth = new RequestAuth(config, answers);
        this.maxConnections = config.limits().maxConnections() > 0
            ? config.limits().maxConnections() : ConnectionBudget.fromDescriptorLimit();
        metrics.connectionLimits(openConnections::get, refusedConnections::sum, acceptFailures::sum,
            answers.requestTimeouts::sum, answers.writeFailures::sum, answers.answersRefused::sum,
            answers.heldAnswerBytes::get);
        // one event loop per core: a loop never runs a query, so it always reads the next request (and answers 503 at
        // once)
        this.loops = new MultiThreadIoEventLoopGroup(Math.max(1, Runtime.getRuntime().availableProcessors()),
            QueryAdmission.daemonThreads("tradestore-http-", 0), NioIoHandler.newFactory());
        // a GET's query string may be as long as three times the body limit (percent-encoding)
        final HttpDecoderConfig decoder = new HttpDecoderConfig().setMaxInitialLineLength((int) Math.min(
            Integer.MAX_VALUE - 1024, 3L * config.maxBodyLength() + 1024)).setMaxHeaderSize(MAX_HEADER_BYTES)
            .setMaxChunkSize(CHUNK_BYTES);
        final ServerBootstrap bootstrap = new ServerBootstrap().group(loops).channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, BACKLOG)
            .childOption(ChannelOption.TCP_NODELAY, true)
            // a client that half-closes after its request still gets the answer (HTTP/1.0 clients do)
            .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
            .handler(new AcceptErrors())
            .childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(final SocketChannel ch) {
                    pipeline(ch, decoder, pipelinedRequests);
                }
            });
        try {
            this.listener = bootstrap.bind(new InetSocketAddress(config.bind(), config.port())).syncUninterruptibly()
                .channel();
        } catch (final RuntimeException e) {
            loops.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            admission.shutdownNow();
            ingest.shutdownNow();
            throw new IOException(e.getMessage() == null ? e.toString() : e.getMessage(), e);
        }
    }

    /** Builds a new connection's pipeline, or refuses the connection when as many are open as allowed. */
    private void pipeline(final SocketChannel ch, final HttpDecoderConfig decoder,
        final AtomicInteger pipelinedRequests) {
        if (openConnections.incrementAndGet() > maxConnections) {
            openConnections.decrementAndGet();
            refusedConnections.increment();
            // before any byte is read: a fixed answer, then the close (a client sees why, not a reset)
            ch.writeAndFlush(Unpooled.wrappedBuffer(TOO_MANY_CONNECTIONS)).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ch.closeFuture().addListener(f -> openConnections.decrementAndGet());
        connections.add(ch);
        final RequestDeadline deadline = new RequestDeadline(config.limits().requestTimeoutMs(),
            answers::requestTooSlow);
        final PipelinedConnection connection = new PipelinedConnection(deadline, this, pipelinedRequests, answers,
            config.limits().writeTimeoutMs());
        // pipelining depth is bounded by PipelinedConnection (it stops reading past its limit), not by the codec;
        // the write timeout and the request deadline sit at the socket's end, where bytes come and go
        ch.pipeline().addLast(new WriteTimeoutHandler(config.limits().writeTimeoutMs(), TimeUnit.MILLISECONDS),
            deadline, new IdleStateHandler(IDLE_SECONDS, 0, 0), new HttpServerCodec(decoder, Integer.MAX_VALUE),
            new ChunkedWriteHandler(), new BodyLimit(config.maxBodyLength(), ingest.maxBodyLength(), connection),
            connection);
    }

    /** @return the address the server listens on (with the real port when 0 was asked for). */
    InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    // ---------------------------------------------------------------------------------------------------- routing

    void handle(final Call call) {
        answers.unansweredRequests.incrementAndGet();
        try {
            route(call);
        } catch (final Throwable t) {
            answers.internal(call, t);
        }
    }

    private void route(final Call call) throws IOException {
        if (call.request.decoderResult().cause() instanceof BodyLimit.TooLarge
            || call.request.decoderResult().cause() instanceof TooLongHttpLineException) {
            call.keepAlive = false; // the body (or the rest of the request line) was not read
            call.bodyUnread = true;
            if (call.request.decoderResult().cause() instanceof BodyLimit.TooLarge t && t.ingest) {
                call.endpoint = Endpoint.ofTarget(call.request.uri());
                ingest.tooLarge(call);
            } else {
                call.endpoint = Endpoint.QUERY;
                admission.tooLarge(call);
            }
            return;
        }
        if (call.request.decoderResult().isFailure()) {
            final Throwable cause = call.request.decoderResult().cause();
            call.keepAlive = false; // the stream may be out of step: answer, then close
            answers.error(call, 400, "MALFORMED_REQUEST", "the HTTP request could not be read: " + (cause == null
                ? "bad syntax" : StoreException.echo(String.valueOf(cause.getMessage()))), "");
            return;
        }
        if (call.request.protocolVersion().majorVersion() != 1) {
            // an HTTP/2 preface ("PRI * HTTP/2.0") or a made-up version: this server speaks HTTP/1.x only
            call.keepAlive = false;
            answers.error(call, 505, "HTTP_VERSION_NOT_SUPPORTED", "this server speaks HTTP/1.1 (and 1.0) only; "
                + StoreException.echo(call.request.protocolVersion().text())
                + " is not supported (use HTTP/1.1, without upgrade)", "");
            return;
        }
        if (!auth.hostAllowed(call)) {
            return;
        }
        final String path = path(call);
        if (path == null) {
            return;
        }
        call.endpoint = Endpoint.of(path);
        if (!auth.tokenAccepted(call)) {
            return;
        }
        if (answers.stopping) {
            call.header("Retry-After", Integer.toString(AnswerWriter.RETRY_AFTER_SECONDS));
            answers.error(call, 503, "OVERLOADED", QueryAdmission.STOPPING_MESSAGE, "");
            return;
        }
        dispatch(call, path);
    }

    /**
     * Splits the request target into its path (returned) and its query ({@link Call#rawQuery}).
     *
     * @param call the request.
     * @return the path, or null when the target was refused (and answered 400).
     */
    private String path(final Call call) {
        final URI uri;
        try {
            uri = new URI(call.request.uri());
        } catch (final URISyntaxException e) {
            answers.error(call, 400, "MALFORMED_REQUEST", "the request target is not a valid URI: "
                + StoreException.echo(e.getMessage()), "");
            return null;
        }
        // a target in origin form is split here, path up to '?' and the query after it: new URI("//health") reads
        // "health" as an authority; a fragment is no part of a request target (RFC 9112, 3.2.1)
        final String target = call.request.uri();
        final String path;
        if (target.startsWith("/")) {
            if (target.indexOf('#') >= 0) {
                answers.error(call, 400, "MALFORMED_REQUEST",
                    "a request target has no fragment ('#...'); send the path and query only", "");
                return null;
            }
            final int queryAt = target.indexOf('?');
            path = queryAt < 0 ? target : target.substring(0, queryAt);
            call.rawQuery = queryAt < 0 ? null : target.substring(queryAt + 1);
        } else {
            path = uri.getRawPath() == null ? "" : uri.getRawPath();
            call.rawQuery = uri.getRawQuery();
        }
        return path;
    }

    /** The route table: each endpoint and the methods it allows. */
    private void dispatch(final Call call, final String path) throws IOException {
        final String method = call.request.method().name();
        // HEAD is GET without the body (send() drops it), as RFC 9110 asks of every GET endpoint
        final boolean get = "GET".equals(method) || call.head;
        switch (call.endpoint) {
            case HEALTH:
                if (allowGet(call, get)) {
                    answers.send(call, 200, AnswerWriter.JSON_TYPE,
                        "{\"status\":\"ok\"}".getBytes(StandardCharsets.UTF_8));
                }
                return;
            case METRICS:
                if (allowGet(call, get)) {
                    answers.send(call, 200, PROMETHEUS_TYPE, metrics.render().getBytes(StandardCharsets.UTF_8));
                }
                return;
            case TABLES:
                if (allowGet(call, get)) {
                    answers.send(call, 200, AnswerWriter.JSON_TYPE, tablesJson());
                }
                return;
            case TABLE:
                final String name = path.substring(TABLE_PREFIX.length());
                if ("PUT".equals(method)) {
                    if (!name.matches(TABLE_NAME_PATTERN)) {
                        answers.error(call, 400, "INVALID_SCHEMA", "'" + StoreException.echo(name) + "' is not a valid "
                            + "table name: lower-case letters, digits and _, starting with a letter or _, at most 63",
                            "");
                    } else {
                        ingest.putTable(call, name);
                    }
                } else if ("DELETE".equals(method)) {
                    if (!name.matches(TABLE_NAME_PATTERN) || !store.hasTable(name)) {
                        answers.error(call, 404, "UNKNOWN_TABLE", "no table '" + StoreException.echo(name)
                            + "'; tables are " + store.tableNames(), "");
                    } else {
                        ingest.deleteTable(call, name);
                    }
                } else if (get) {
                    table(call, name);
                } else {
                    methodNotAllowed(call, "GET, HEAD, PUT, DELETE");
                }
                return;
            case QUERY:
            case SQL:
                final boolean sql = call.endpoint == Endpoint.SQL;
                if ("POST".equals(method)) {
                    if (sql) {
                        admission.postSql(call);
                    } else {
                        admission.postQuery(call);
                    }
                } else if (get) {
                    admission.getQuery(call, sql);
                } else {
                    methodNotAllowed(call, "GET, HEAD, POST");
                }
                return;
            case WRITE:
                if ("POST".equals(method)) {
                    ingest.postLines(call);
                } else {
                    methodNotAllowed(call, "POST");
                }
                return;
            case IMPORT:
            case EXPORT:
                tableData(call, method, path);
                return;
            case SETTINGS:
                if (allowGet(call, get)) {
                    answers.send(call, 200, AnswerWriter.JSON_TYPE, QUESTDB_SETTINGS);
                }
                return;
            case PING:
                if (allowGet(call, get)) {
                    answers.noContent(call);
                }
                return;
            case CONSOLE:
                if (allowGet(call, get)) {
                    console(call, path);
                }
                return;
            case QUERIES:
                cancelQuery(call, method, path.substring(Endpoint.QUERIES_PREFIX.length()));
                return;
            default:
                answers.error(call, 404, "NOT_FOUND", "no endpoint " + StoreException.echo(path) + "; endpoints are "
                    + "POST /v1/query, GET /v1/query?q=, POST /v1/sql, GET /v1/sql?q=, "
                    + "GET /v1/tables, GET /v1/tables/{name}, POST /v1/tables/{name}/import, "
                    + "GET /v1/tables/{name}/export, DELETE /v1/queries/{id}, "
                    + "POST /write (and /api/v2/write), GET /metrics, GET /health, GET / (the console)", "");
        }
    }

    /** {@code DELETE /v1/queries/{id}}: cancels the queries running under the client's {@code queryId}. */
    private void cancelQuery(final Call call, final String method, final String id) {
        final String bad = QueryAdmission.badQueryId(id);
        if (!"DELETE".equals(method)) {
            methodNotAllowed(call, "DELETE");
        } else if (bad != null) {
            answers.error(call, 400, "INVALID_QUERY", "a query id is " + bad, "");
        } else if (admission.cancel(id) == 0) {
            answers.error(call, 404, "NOT_FOUND", "no query with id " + id + " is queued or running", "");
        } else {
            answers.noContent(call);
        }
    }

    /** The console's page and files, with the policy that lets them run nothing else. */
    private void console(final Call call, final String path) {
        final ConsoleAssets.Asset a = consoleAssets.get(path);
        if (a == null) {
            answers.error(call, 404, "NOT_FOUND", "no console file " + StoreException.echo(path)
                + "; the console is at /", "");
            return;
        }
        call.header("Content-Security-Policy", ConsoleAssets.CONTENT_SECURITY_POLICY);
        call.header("X-Content-Type-Options", "nosniff");
        call.header("Referrer-Policy", "no-referrer");
        call.header("Cache-Control", "no-cache");
        answers.send(call, 200, a.contentType(), a.bytes());
    }

    /** {@code POST /v1/tables/{name}/import} (CSV in) and {@code GET /v1/tables/{name}/export} (Parquet out). */
    private void tableData(final Call call, final String method, final String path) {
        if (call.endpoint == Endpoint.EXPORT) {
            if ("GET".equals(method)) {
                exports.get(call, path.substring(TABLE_PREFIX.length(), path.length() - EXPORT_SUFFIX.length()));
            } else {
                methodNotAllowed(call, "GET");
            }
            return;
        }
        if (!"POST".equals(method)) {
            methodNotAllowed(call, "POST");
            return;
        }
        final String target = path.substring(TABLE_PREFIX.length(), path.length() - IMPORT_SUFFIX.length());
        if (!target.matches(TABLE_NAME_PATTERN)) {
            answers.error(call, 404, "UNKNOWN_TABLE", "no table '" + StoreException.echo(target)
                + "'; tables are " + store.tableNames(), "");
        } else {
            ingest.postCsv(call, target);
        }
    }

    private boolean allowGet(final Call call, final boolean get) {
        if (!get) {
            methodNotAllowed(call, "GET, HEAD");
        }
        return get;
    }

    private void methodNotAllowed(final Call call, final String allowed) {
        call.header("Allow", allowed);
        answers.error(call, 405, "METHOD_NOT_ALLOWED", call.request.method().name() + " is not allowed here; use "
            + allowed, "");
    }

    // ---------------------------------------------------------------------------------------------------- tables

    private ByteBuf tablesJson() throws IOException {
        final ByteBufOutputStream buf = AnswerWriter.body(256);
        try (JsonGenerator g = AnswerWriter.JSON.createGenerator((OutputStream) buf)) {
            g.writeStartObject();
            g.writeArrayFieldStart("tables");
            for (final String name : store.tableNames()) {
                g.writeStartObject();
                g.writeStringField("name", name);
                try {
                    final TableViews.View v = views.view(name);
                    if (v == null) {
                        g.writeStringField("error", "dropped while it was being listed");
                    } else {
                        g.writeNumberField("rows", v.rows());
                        g.writeNumberField("segments", v.segments());
                    }
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
            answers.error(call, 404, "UNKNOWN_TABLE", "no table '" + StoreException.echo(name) + "'; tables are "
                + store.tableNames(), "");
            return;
        }
        final TableViews.View s = views.view(name);
        if (s == null) {
            answers.error(call, 404, "UNKNOWN_TABLE", "table '" + name + "' was dropped", "");
            return;
        }
        final Schema schema = s.schema();
        final ByteBufOutputStream buf = AnswerWriter.body(512);
        try (JsonGenerator g = AnswerWriter.JSON.createGenerator((OutputStream) buf)) {
            g.writeStartObject();
            g.writeStringField("name", name);
            g.writeNumberField("rows", s.rows());
            g.writeNumberField("firstRow", s.firstRow());
            g.writeNumberField("segments", s.segments());
            g.writeNumberField("commit", s.commit());
            if (s.ttlNanos() > 0) {
                g.writeStringField("ttl", RetentionRule.format(s.ttlNanos()));
            }
            g.writeStringField("layout", schema.layout().name());
            g.writeNumberField("segmentRows", schema.segmentRows());
            g.writeNumberField("blockRows", schema.blockRows());
            g.writeNumberField("bytesPerRow", schema.bytesPerRow());
            if (schema.timestampIndex() >= 0) {
                g.writeStringField("timestamp", schema.column(schema.timestampIndex()).name());
            }
            g.writeStringField("partitionBy", schema.partitionBy().name());
            g.writeArrayFieldStart("columns");
            for (final Column c : schema.columns()) {
                g.writeStartObject();
                g.writeStringField("name", c.name());
                g.writeStringField("type", c.typeName());
                if (c.type() == ColumnType.SYMBOL) {
                    g.writeNumberField("distinct", s.distinct()[c.index()]);
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        answers.send(call, 200, AnswerWriter.JSON_TYPE, buf.buffer());
    }

    /** @param name a table dropped: the reader of its description is closed. */
    void forget(final String name) {
        views.forget(name);
    }

    // ---------------------------------------------------------------------------------------------------- closing

    /**
     * The stop's last part, once the admission has drained: closes the listener and every connection, ends the event
     * loops and unmaps the table readers.
     */
    void close() {
        listener.close().syncUninterruptibly();
        connections.close().awaitUninterruptibly(QueryAdmission.FLUSH_WAIT_MS, TimeUnit.MILLISECONDS);
        loops.shutdownGracefully(0, QueryAdmission.FLUSH_WAIT_MS, TimeUnit.MILLISECONDS)
            .awaitUninterruptibly(2 * QueryAdmission.FLUSH_WAIT_MS, TimeUnit.MILLISECONDS);
        // the readers are used on the event loops only (table listings), which have ended
        views.close();
    }

    private static byte[] tooManyConnections() {
        final String body = "{\"error\":{\"code\":\"OVERLOADED\",\"message\":\"the server has as many connections open "
            + "as it allows (--max-connections); retry later or reuse a connection\",\"path\":\"\"}}";
        return ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: "
            + AnswerWriter.RETRY_AFTER_SECONDS + "\r\nConnection: close\r\nContent-Length: " + body.length()
            + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII);
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
                LOG.warn("cannot accept a connection ({} open, at most {}): {}; pausing accepts for {} ms",
                    openConnections.get(), maxConnections, String.valueOf(cause), ACCEPT_PAUSE_MS);
            }
            final ChannelConfig c = ctx.channel().config();
            if (c.isAutoRead()) {
                c.setAutoRead(false);
                ctx.channel().eventLoop().schedule(() -> c.setAutoRead(true), ACCEPT_PAUSE_MS, TimeUnit.MILLISECONDS);
            }
        }
    }
}
