package io.tradestore.server.http;

import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * An answer written while it is produced, by a worker thread, in chunks (HTTP/1.1 chunked transfer encoding): the
 * status line goes out with the first chunk, and at most two chunks are in flight, so a slow client slows the producer
 * instead of filling the server's memory. A write that fails (the client went away) or that the client does not take
 * within {@link #stallMs} fails the producer's next write with an {@link IOException}: it stops, and the connection
 * closes. Until the first chunk leaves, nothing is sent and the request can still be answered with an error instead.
 */
final class StreamedAnswer extends OutputStream {
    /** Bytes per chunk. */
    static final int CHUNK_BYTES = 64 << 10;

    private final AnswerWriter answers;
    private final Call call;
    private final String contentType;
    private final long stallMs;
    private ByteBuf buf = Unpooled.buffer(CHUNK_BYTES);
    private ChannelFuture inFlight;
    private boolean started;
    private boolean finished;
    private volatile boolean stopped;
    private long bytes;

    /**
     * @param answers     the server's write path.
     * @param call        the request.
     * @param contentType the answer's type.
     * @param stallMs     how long a client may leave a chunk unread before the answer is abandoned.
     */
    StreamedAnswer(final AnswerWriter answers, final Call call, final String contentType, final long stallMs) {
        this.answers = answers;
        this.call = call;
        this.contentType = contentType;
        this.stallMs = stallMs;
    }

    /** @return whether the status line has gone out (an error can then no longer be answered). */
    boolean started() {
        return started;
    }

    /** From any thread (the server's stop): the producer's next write fails and the connection closes. */
    void stop() {
        stopped = true;
    }

    @Override
    public void write(final int b) throws IOException {
        if (!buf.isWritable()) {
            sendChunk();
        }
        buf.writeByte(b);
    }

    @Override
    public void write(final byte[] b, final int off, final int len) throws IOException {
        int from = off;
        int left = len;
        while (left > 0) {
            if (!buf.isWritable()) {
                sendChunk();
            }
            final int n = Math.min(left, buf.writableBytes());
            buf.writeBytes(b, from, n);
            from += n;
            left -= n;
        }
    }

    @Override
    public void flush() {
        // chunks go when full; the producer's flushes (a Parquet writer's) would make small chunks
    }

    private void sendChunk() throws IOException {
        if (stopped) {
            throw new IOException("the server is stopping");
        }
        if (!started) {
            start();
        }
        awaitInFlight();
        bytes += buf.readableBytes();
        inFlight = call.ctx.writeAndFlush(new DefaultHttpContent(buf));
        buf = Unpooled.buffer(CHUNK_BYTES);
    }

    /** Waits for the chunk before the one about to go; fails when it failed or did not leave in time. */
    private void awaitInFlight() throws IOException {
        if (inFlight == null) {
            return;
        }
        if (!inFlight.awaitUninterruptibly(stallMs, TimeUnit.MILLISECONDS)) {
            throw new IOException("the client did not read the answer for " + stallMs + " ms");
        }
        if (!inFlight.isSuccess()) {
            throw new IOException("the client went away: " + inFlight.cause());
        }
    }

    private void start() throws IOException {
        if (!call.answered.compareAndSet(false, true)) {
            throw new IOException("the request was answered already (timed out)");
        }
        started = true;
        final HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        final HttpHeaders h = response.headers();
        h.set(HttpHeaderNames.CONTENT_TYPE, contentType);
        h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        synchronized (call) {
            if (call.extraHeaders != null) {
                h.add(call.extraHeaders);
            }
        }
        if (!call.keepAlive || answers.stopping) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        call.ctx.write(response);
    }

    /**
     * Sends what is left and ends the answer; the connection then takes its next request (or closes).
     *
     * @throws IOException when the client went away or stalled (the connection is closed).
     */
    @Override
    public void close() throws IOException {
        if (finished) {
            return;
        }
        if (!started) {
            start();
        }
        try {
            awaitInFlight();
        } catch (final IOException e) {
            abort();
            throw e;
        }
        finished = true;
        bytes += buf.readableBytes();
        final boolean keepAlive = call.keepAlive && !answers.stopping;
        final ByteBuf last = buf;
        buf = null;
        answers.streamEnded(call, 200, bytes, keepAlive, () -> {
            if (last.isReadable()) {
                call.ctx.write(new DefaultHttpContent(last));
            } else {
                last.release();
            }
            return call.ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        });
    }

    /**
     * Gives up: an answer already started is cut off (its connection closes, so the client sees a truncated chunked
     * body, never a complete-looking one); one not started is left for the caller to answer with an error.
     */
    void abort() {
        if (finished) {
            return;
        }
        finished = true;
        if (buf != null) {
            buf.release();
            buf = null;
        }
        if (started) {
            answers.streamAborted(call, bytes);
        }
    }
}
