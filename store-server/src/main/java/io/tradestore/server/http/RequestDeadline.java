package io.tradestore.server.http;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;

/**
 * Bounds the time a client takes to send one whole request, head and body, from its first byte: a client that sends a
 * byte every few seconds resets an idle timer for ever (slowloris) but not this one. Sits first in the pipeline, where
 * it sees raw bytes; {@link PipelinedConnection} calls {@link #requestReceived} when a request is complete. On expiry
 * the connection is handed to {@code onExpiry} (which answers 408 and closes) unless the server itself is holding the
 * request back (answers pending: the client is not the slow one then).
 */
final class RequestDeadline extends ChannelDuplexHandler {
    /** What the server does with a connection whose request did not arrive in time. */
    interface Expiry {
        /**
         * @param ctx the connection. @return false when the server holds the request back itself (the timer restarts).
         */
        boolean expired(ChannelHandlerContext ctx);
    }

    private final long timeoutMs;
    private final Expiry onExpiry;
    private ScheduledFuture<?> timer;

    RequestDeadline(final long timeoutMs, final Expiry onExpiry) {
        this.timeoutMs = timeoutMs;
        this.onExpiry = onExpiry;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg) throws Exception {
        if (timer == null) {
            arm(ctx);
        }
        ctx.fireChannelRead(msg);
    }

    /** On the event loop: the request under way is complete; the next one's time starts with its first byte. */
    void requestReceived() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private void arm(final ChannelHandlerContext ctx) {
        timer = ctx.executor().schedule(() -> {
            timer = null;
            if (ctx.channel().isActive() && !onExpiry.expired(ctx)) {
                arm(ctx);
            }
        }, timeoutMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) throws Exception {
        requestReceived();
        super.channelInactive(ctx);
    }
}
