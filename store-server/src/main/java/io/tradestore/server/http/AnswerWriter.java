package io.tradestore.server.http;

import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

import io.tradestore.core.StoreException;
import io.tradestore.core.ingest.LoadException;
import io.tradestore.core.ingest.line.LineProtocolException;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;
import io.tradestore.query.sql.SqlException;

/**
 * The write path: turns each request's one answer into a response on its connection's event loop, and counts it
 * answered only once its bytes are in the socket (the graceful stop waits on that count).
 */
final class AnswerWriter {
    static final String JSON_TYPE = "application/json";
    static final int RETRY_AFTER_SECONDS = 1;
    /** How long a connection closing after a refused, unread body drops what its client still sends. */
    static final long LINGER_MS = 2_000;
    static final JsonFactory JSON = new JsonFactory();
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(QueryServer.class);
    private static final org.slf4j.Logger ACCESS = org.slf4j.LoggerFactory.getLogger(LogSettings.ACCESS_LOGGER);

    private final ServerConfig config;
    private final ServerMetrics metrics;
    /** Requests routed and not yet answered, cheap ones included: the stop waits for them to drain. */
    final AtomicInteger unansweredRequests = new AtomicInteger();
    /** Answer bytes handed to connections and not yet taken by their clients, over all connections. */
    final AtomicLong heldAnswerBytes = new AtomicLong();
    final LongAdder requestTimeouts = new LongAdder();
    final LongAdder writeFailures = new LongAdder();
    final LongAdder answersRefused = new LongAdder();
    /** Set when the stop begins: every answer from then on closes its connection. */
    volatile boolean stopping;

    AnswerWriter(final ServerConfig config, final ServerMetrics metrics) {
        this.config = config;
        this.metrics = metrics;
    }

    void internal(final Call call, final Throwable t) {
        final String id = Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
        LOG.error("internal error id={} endpoint={}: {}", id, call.endpoint.label(), String.valueOf(t), t);
        // what the store says (a missing or damaged file, named) helps the caller; a bug's message stays in the log
        final boolean storeProblem = t instanceof QueryException
            ? ((QueryException) t).storeProblem() : t instanceof StoreException;
        final String message = storeProblem
            ? t.getMessage() + " (error id " + id + ")"
            : "internal error " + id + "; the server log has the details";
        error(call, 500, "INTERNAL", message, "", id);
    }

    void error(final Call call, final int status, final String code, final String message, final String path) {
        error(call, status, code, message, path, null);
    }

    /**
     * Answers a query's failure: a SQL error with its {@code position} in the SQL text, any other with its path.
     *
     * @param call the request.
     * @param e    the failure (not INTERNAL: see {@link #internal}).
     */
    void error(final Call call, final QueryException e) {
        if (e instanceof SqlException s) {
            send(call, e.code().httpStatus(), JSON_TYPE, errorBody(e.code().name(), e.getMessage(), null, null,
                s.line(), s.column()));
        } else {
            error(call, e.code().httpStatus(), e.code().name(), e.getMessage(), e.path());
        }
    }

    /**
     * Answers a refused line of line protocol: 400 with {@code "position":{"line","column"}} (the byte in the line)
     * and the table column the value was meant for, when there was one.
     *
     * @param call the request.
     * @param e    the refusal.
     */
    void lineError(final Call call, final LineProtocolException e) {
        send(call, 400, JSON_TYPE, errorBody("INVALID_LINE", e.getMessage(), null, null, (int) Math.min(
            Integer.MAX_VALUE, e.line()), Math.max(1, e.position()), e.column()));
    }

    /**
     * Answers a refused CSV body: 400 with its line and column ({@code "position"}), as {@code tradestore load}
     * reports them.
     *
     * @param call the request.
     * @param e    the refusal.
     */
    void csvError(final Call call, final LoadException e) {
        if (e.line() > 0) {
            send(call, 400, JSON_TYPE, errorBody("INVALID_CSV", e.getMessage(), null, null, (int) Math.min(
                Integer.MAX_VALUE, e.line()), (int) Math.max(1, Math.min(Integer.MAX_VALUE, e.column())), null));
        } else {
            error(call, 400, "INVALID_CSV", e.getMessage(), "");
        }
    }

    private void error(final Call call, final int status, final String code, final String message, final String path,
        final String id) {
        send(call, status, JSON_TYPE, errorBody(code, message, path, id));
    }

    /** @return the JSON error object every failure answers: {@code {"error":{"code","message","path"[,"id"]}}}. */
    static ByteBuf errorBody(final String code, final String message, final String path, final String id) {
        return errorBody(code, message, path, id, 0, 0);
    }

    /**
     * @return the JSON error object; a SQL error ({@code line} above 0) has {@code "position":{"line","column"}}
     *     where others have {@code "path"}.
     */
    private static ByteBuf errorBody(final String code, final String message, final String path, final String id,
        final int line, final int column) {
        return errorBody(code, message, path, id, line, column, null);
    }

    /** As above, with the table column a refused value was meant for, when there is one. */
    private static ByteBuf errorBody(final String code, final String message, final String path, final String id,
        final int line, final int column, final String tableColumn) {
        final ByteBufOutputStream buf = body(128);
        try (JsonGenerator g = JSON.createGenerator((OutputStream) buf)) {
            g.writeStartObject();
            g.writeObjectFieldStart("error");
            g.writeStringField("code", code);
            g.writeStringField("message", message == null ? code : message);
            if (line > 0) {
                g.writeObjectFieldStart("position");
                g.writeNumberField("line", line);
                g.writeNumberField("column", column);
                g.writeEndObject();
            } else {
                g.writeStringField("path", path == null ? "" : path);
            }
            if (tableColumn != null) {
                g.writeStringField("column", tableColumn);
            }
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

    /**
     * @param initial bytes to start with.
     * @return a stream into an unpooled heap buffer: an answer dropped after its 504 needs no release.
     */
    static ByteBufOutputStream body(final int initial) {
        return new ByteBufOutputStream(Unpooled.buffer(initial));
    }

    /** Answers 204 No Content: neither body nor Content-Type. */
    void noContent(final Call call) {
        send(call, 204, JSON_TYPE, Unpooled.EMPTY_BUFFER);
    }

    void send(final Call call, final int status, final String contentType, final byte[] body) {
        send(call, status, contentType, Unpooled.wrappedBuffer(body));
    }

    /**
     * Sends the one answer of a request; later attempts (a result after its 504) are dropped. Any thread may call it:
     * the write, and the start of the connection's next pipelined request, run on the connection's event loop.
     */
    void send(final Call call, final int status, final String contentType, final ByteBuf body) {
        if (!call.answered.compareAndSet(false, true)) {
            return;
        }
        final int length = body.readableBytes();
        if (length > SlicedBody.SLICE_BYTES && !call.head
            && heldAnswerBytes.addAndGet(length) > config.limits().maxAnswerBytes()) {
            refuseAnswer(call, status, length);
            return;
        }
        final boolean sliced = length > SlicedBody.SLICE_BYTES && !call.head;
        // a HEAD answer is GET's with its Content-Length but without the body (an unpooled buffer: dropped, not
        // released)
        final HttpResponse response = sliced
            ? new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status))
            : new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status),
                call.head ? Unpooled.EMPTY_BUFFER : body);
        final HttpHeaders h = response.headers();
        if (status != 204) { // a 204 has neither body nor Content-Length (RFC 9110, 8.6)
            h.set(HttpHeaderNames.CONTENT_TYPE, contentType);
            h.setInt(HttpHeaderNames.CONTENT_LENGTH, length);
        }
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
        counted(call, status, length);
        // answered once the bytes are in the socket or the connection is gone, not when the answer is made: stop()
        // waits for that before it closes connections, so an answer a worker produced is never dropped by the closing
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
            } else if (call.bodyUnread) {
                f.addListener(sent -> lingeringClose(call.ctx));
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

    /** Records an answer in the metrics and the access log. */
    private void counted(final Call call, final int status, final long length) {
        final long tookNs = System.nanoTime() - call.startNs;
        metrics.record(call.endpoint, status, tookNs);
        if (ACCESS.isInfoEnabled()) {
            ACCESS.info("{} {} {} {} {} {} {}", call.ctx.channel().remoteAddress(), call.request.method().name(),
                StoreException.echo(call.request.uri()), call.endpoint.label(), status, length,
                String.format("%.3f", tookNs / 1e6));
        }
    }

    /**
     * Ends a {@link StreamedAnswer} on the connection's event loop: its last bytes go out (from {@code write}), the
     * answer is counted, and the connection takes its next request or closes.
     */
    void streamEnded(final Call call, final int status, final long length, final boolean keepAlive,
        final java.util.function.Supplier<ChannelFuture> write) {
        counted(call, status, length);
        final Runnable end = () -> {
            final ChannelFutureListener done = this::written;
            final ChannelFuture f = write.get().addListener(done);
            if (keepAlive) {
                call.connection.next(call.ctx);
            } else {
                f.addListener(ChannelFutureListener.CLOSE);
            }
        };
        if (call.ctx.executor().inEventLoop()) {
            end.run();
        } else {
            try {
                call.ctx.executor().execute(end);
            } catch (final RejectedExecutionException e) {
                unansweredRequests.decrementAndGet(); // the loops are gone: so is the connection
            }
        }
    }

    /** A {@link StreamedAnswer} cut off (client gone or stalled, or the stop): counted as answered, and closed. */
    void streamAborted(final Call call, final long length) {
        metrics.record(call.endpoint, 200, System.nanoTime() - call.startNs);
        LOG.info("a streamed answer to {} ({}) was cut off after {} bytes", call.ctx.channel().remoteAddress(),
            call.endpoint.label(), length);
        unansweredRequests.decrementAndGet();
        call.ctx.channel().close();
    }

    /**
     * Closes a connection whose client may still be sending a body the server refused unread (413 by Content-Length):
     * closing at once would answer the client's next bytes with a reset, which can destroy the answer in its receive
     * buffer before it reads it (a 256 KiB body over the limit, from Java's HttpClient: "header parser received no
     * bytes" instead of the 413). So the server stops sending (FIN), reads and drops what still comes for up to
     * {@link #LINGER_MS}, then closes: the lingering close of HTTP servers.
     */
    private static void lingeringClose(final ChannelHandlerContext ctx) {
        if (ctx.channel() instanceof SocketChannel ch && ch.isActive()) {
            ch.config().setAutoRead(true);
            ch.shutdownOutput();
            ctx.executor().schedule(() -> ctx.close(), LINGER_MS, TimeUnit.MILLISECONDS);
        } else {
            ctx.close();
        }
    }

    /**
     * Refuses an answer before its status line goes out: clients that do not read their answers hold too much
     * already. The refusal (a small 503) takes the answer's place.
     */
    private void refuseAnswer(final Call call, final int status, final int length) {
        heldAnswerBytes.addAndGet(-length);
        answersRefused.increment();
        LOG.warn("refused an answer of {} bytes to {} ({} {}): connections hold {} answer bytes their clients have not "
            + "read, the limit is {}", length, call.ctx.channel().remoteAddress(), call.endpoint.label(), status,
            heldAnswerBytes.get(), config.limits().maxAnswerBytes());
        call.answered.set(false);
        call.keepAlive = false;
        call.header("Retry-After", Integer.toString(RETRY_AFTER_SECONDS));
        error(call, 503, ErrorCode.OVERLOADED.name(), "the server holds too many answer bytes that clients have not "
            + "read yet; retry later, or narrow the query (limit, fewer columns)", "");
    }

    /** An answer is in its socket, or failed: a failure other than a client gone is counted and logged, and closes. */
    private void written(final ChannelFuture f) {
        unansweredRequests.decrementAndGet();
        if (!f.isSuccess()) {
            final Throwable cause = f.cause();
            if (!(cause instanceof java.nio.channels.ClosedChannelException) && !(cause instanceof IOException)) {
                writeFailures.increment();
                LOG.warn("an answer to {} could not be written, closing the connection: {}",
                    f.channel().remoteAddress(), String.valueOf(cause));
            }
            f.channel().close();
        }
    }

    /**
     * A client took longer than the request timeout to send a whole request: 408 and close, unless the server itself
     * holds the request back (an answer in flight or requests waiting before it), when the client is not the slow one.
     *
     * @param ctx the connection (its first handler's context).
     * @return whether the connection was closed.
     */
    boolean requestTooSlow(final ChannelHandlerContext ctx) {
        final PipelinedConnection c = ctx.pipeline().get(PipelinedConnection.class);
        if (c != null && c.holdsRequests()) {
            return false;
        }
        requestTimeouts.increment();
        final ByteBuf body = errorBody("REQUEST_TIMEOUT", "the request did not arrive whole within the server's limit "
            + "of " + config.limits().requestTimeoutMs() + " ms", "", null);
        final FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.REQUEST_TIMEOUT,
            body);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, JSON_TYPE)
            .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes())
            .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.channel().writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
        return true;
    }

    /** Waits until every routed request's answer is in its socket (or its connection gone), or the deadline. */
    void awaitAnswers(final long deadlineNs) {
        while (unansweredRequests.get() > 0 && System.nanoTime() - deadlineNs < 0) {
            try {
                Thread.sleep(5);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
