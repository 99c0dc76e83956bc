package io.tradestore.server.pg;

import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * Cuts the byte stream into whole messages, checking every length before it waits for the bytes: an untyped startup
 * message of 8 to {@link #MAX_STARTUP_LENGTH} bytes, then typed messages of a known type and 4 to
 * {@code maxMessageLength} bytes. Anything else is answered with a FATAL 08P01 and the connection closes, before the
 * bytes of a wrong length are waited for. A message begun must be whole within {@code messageTimeoutMs} of its first
 * byte (a client that stops half way holds no worker, and not its connection for ever either).
 */
final class PgFrameDecoder extends ByteToMessageDecoder {
    /** PostgreSQL's own limit on a startup packet. */
    static final int MAX_STARTUP_LENGTH = 10_000;
    /** The message types a client may send (protocol 3). */
    private static final String FRONTEND_TYPES = "BCdcfDEHFPpQSX";

    private final int maxMessageLength;
    private final long messageTimeoutMs;
    private boolean typed;
    private boolean broken;
    private ScheduledFuture<?> timer;

    /**
     * @param maxMessageLength longest message accepted, its length field included.
     * @param messageTimeoutMs longest a message may take to arrive from its first byte.
     */
    PgFrameDecoder(final int maxMessageLength, final long messageTimeoutMs) {
        this.maxMessageLength = maxMessageLength;
        this.messageTimeoutMs = messageTimeoutMs;
    }

    @Override
    protected void decode(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out) {
        if (broken) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.isReadable()) {
            final PgFrame frame = typed ? typedFrame(ctx, in) : untypedFrame(ctx, in);
            if (frame == null) {
                break;
            }
            out.add(frame);
        }
        if (!broken && in.isReadable()) {
            armTimer(ctx);
        } else {
            cancelTimer();
        }
    }

    private PgFrame untypedFrame(final ChannelHandlerContext ctx, final ByteBuf in) {
        if (in.readableBytes() < 4) {
            return null;
        }
        final int length = in.getInt(in.readerIndex());
        if (length < 8 || length > MAX_STARTUP_LENGTH) {
            refuse(ctx, in, "invalid length of startup packet: " + length + " (8 to " + MAX_STARTUP_LENGTH + ")");
            return null;
        }
        if (in.readableBytes() < length) {
            return null;
        }
        in.skipBytes(4);
        final int code = in.readInt();
        final byte[] body = new byte[length - 8];
        in.readBytes(body);
        // after a startup message the session speaks typed messages
        typed = code != PgFrame.SSL_REQUEST && code != PgFrame.GSSENC_REQUEST && code != PgFrame.CANCEL_REQUEST;
        return new PgFrame((char) 0, code, body);
    }

    private PgFrame typedFrame(final ChannelHandlerContext ctx, final ByteBuf in) {
        final char type = (char) (in.getByte(in.readerIndex()) & 0xFF);
        if (FRONTEND_TYPES.indexOf(type) < 0) {
            refuse(ctx, in, "invalid frontend message type " + (int) type);
            return null;
        }
        if (in.readableBytes() < 5) {
            return null;
        }
        final int length = in.getInt(in.readerIndex() + 1);
        if (length < 4 || length > maxMessageLength) {
            refuse(ctx, in, "invalid message length " + length + " for message type '" + type + "' (4 to "
                + maxMessageLength + ")");
            return null;
        }
        if (in.readableBytes() < 1 + length) {
            return null;
        }
        in.skipBytes(5);
        final byte[] body = new byte[length - 4];
        in.readBytes(body);
        return new PgFrame(type, 0, body);
    }

    /** Answers a protocol violation with a FATAL error and closes; later bytes are dropped. */
    private void refuse(final ChannelHandlerContext ctx, final ByteBuf in, final String message) {
        broken = true;
        in.skipBytes(in.readableBytes());
        cancelTimer();
        final PgOutput out = new PgOutput(ctx.channel());
        out.error(PgError.fatal(PgError.PROTOCOL_VIOLATION, message));
        out.flushAndClose();
    }

    private void armTimer(final ChannelHandlerContext ctx) {
        if (timer == null) {
            timer = ctx.executor().schedule(() -> {
                timer = null;
                if (ctx.channel().isActive() && !broken) {
                    broken = true;
                    final PgOutput out = new PgOutput(ctx.channel());
                    out.error(PgError.fatal(PgError.PROTOCOL_VIOLATION, "a message did not arrive whole within "
                        + messageTimeoutMs + " ms of its first byte"));
                    out.flushAndClose();
                }
            }, messageTimeoutMs, TimeUnit.MILLISECONDS);
        }
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) throws Exception {
        cancelTimer();
        super.channelInactive(ctx);
    }
}
