package io.tradestore.server.http;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.WriteTimeoutException;

/**
 * A connection's requests, answered one at a time and in order: a request pipelined behind one in flight waits here
 * (answers of HTTP/1.1 pipelining must come in request order). The connection is not read while {@link #MAX_PENDING}
 * requests wait or its answers are not being taken (not writable), so a client can never grow the server's memory.
 */
final class PipelinedConnection extends SimpleChannelInboundHandler<FullHttpRequest> {
    /**
     * Requests a connection may have read and not answered (pipelined behind the one in flight) before the server
     * stops reading from it; reading resumes as answers go out. A read under way is decoded to its end first, so small
     * requests can exceed it by one read's worth (Netty reads up to 64 KiB at a time): a client that sends without
     * reading cannot grow the server.
     */
    private static final int MAX_PENDING = 64;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(QueryServer.class);

    private final ArrayDeque<FullHttpRequest> pending = new ArrayDeque<>();
    private final RequestDeadline deadline;
    private final HttpFrontEnd router;
    /** Requests read ahead of the one in flight on their connection (pipelined), over all connections. */
    private final AtomicInteger pipelinedRequests;
    private final AnswerWriter answers;
    private final long writeTimeoutMs;
    boolean busy;
    private boolean inputClosed;
    /** Whether {@link #startPending} is starting requests (an answer given inside start must not start the next). */
    private boolean starting;

    PipelinedConnection(final RequestDeadline deadline, final HttpFrontEnd router,
        final AtomicInteger pipelinedRequests, final AnswerWriter answers, final long writeTimeoutMs) {
        super(false); // released by start(), or when the connection closes with requests pending
        this.deadline = deadline;
        this.router = router;
        this.pipelinedRequests = pipelinedRequests;
        this.answers = answers;
        this.writeTimeoutMs = writeTimeoutMs;
    }

    /** @return whether the server holds this connection's requests back (an answer in flight or requests waiting). */
    boolean holdsRequests() {
        return busy || !pending.isEmpty();
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
            router.handle(new Call(this, ctx, request, System.nanoTime()));
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
     * {@code BackPressureTest.shouldAnswerThousandsOfSmallRequestsPipelinedBehindOneInFlight}, 3,000 sent in one
     * write behind a query in flight, the connection stopped answering after ~850).
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
            answers.writeFailures.increment();
            LOG.warn("closing the connection of {}: it took no bytes of its answer for {} ms (--write-timeout-ms)",
                ctx.channel().remoteAddress(), writeTimeoutMs);
        } else if (!(cause instanceof IOException || cause instanceof PrematureChannelClosureException)) {
            LOG.warn("closing a connection after {}", String.valueOf(cause));
        }
        ctx.close();
    }
}
