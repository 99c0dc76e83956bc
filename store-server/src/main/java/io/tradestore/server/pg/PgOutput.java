package io.tradestore.server.pg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;

/**
 * The backend messages of one connection, written into a buffer and handed to the channel when the client must see
 * them (at {@code Sync}, {@code Flush}, the end of a simple query) or when the buffer grows past
 * {@link #FLUSH_LENGTH}. Used by one thread at a time: the event loop during startup, then the worker that runs the
 * connection's messages.
 *
 * <pre>
 *  every message: type byte | int32 length (itself included, the type not) | body
 * </pre>
 */
final class PgOutput {
    /** Bytes gathered before they are handed to the socket even without a Sync (long answers stream). */
    static final int FLUSH_LENGTH = 64 * 1024;

    private final Channel channel;
    private ByteBuf buf;
    private int messageStart = -1;
    /** While a streamed answer is written: each hand-over first waits for the one before to reach the socket. */
    private boolean paced;
    private ChannelFuture inFlight;

    PgOutput(final Channel channel) {
        this.channel = channel;
    }

    /** @param type the message type. @return this, with the message begun (its length is filled in by end). */
    PgOutput begin(final char type) {
        assert messageStart < 0 : "messageStart=" + messageStart;
        if (buf == null) {
            buf = channel.alloc().buffer(256);
        }
        buf.writeByte(type);
        messageStart = buf.writerIndex();
        buf.writeInt(0);
        return this;
    }

    /** Ends the message begun: fills in its length; hands the buffer on when it is long. */
    void end() {
        buf.setInt(messageStart, buf.writerIndex() - messageStart);
        messageStart = -1;
        if (buf.readableBytes() >= FLUSH_LENGTH) {
            flush();
        }
    }

    /** Drops the message begun (its value could not be written): the buffer is as before its begin. */
    void abandon() {
        if (messageStart >= 0) {
            buf.writerIndex(messageStart - 1);
            messageStart = -1;
        }
    }

    PgOutput int8(final int v) {
        buf.writeByte(v);
        return this;
    }

    PgOutput int16(final int v) {
        buf.writeShort(v);
        return this;
    }

    PgOutput int32(final int v) {
        buf.writeInt(v);
        return this;
    }

    PgOutput int64(final long v) {
        buf.writeLong(v);
        return this;
    }

    PgOutput bytes(final byte[] b) {
        buf.writeBytes(b);
        return this;
    }

    /** @param s text written as UTF-8 and a NUL byte (a NUL inside is dropped: C strings cannot hold it). */
    PgOutput cstring(final String s) {
        final int at = buf.writerIndex();
        buf.writeCharSequence(s, StandardCharsets.UTF_8);
        if (s.indexOf('\0') >= 0) {
            for (int i = at; i < buf.writerIndex(); i++) {
                if (buf.getByte(i) == 0) {
                    buf.setByte(i, ' ');
                }
            }
        }
        buf.writeByte(0);
        return this;
    }

    /** @return the buffer a value is written into directly (length prefix and all), between begin and end. */
    ByteBuf buffer() {
        return buf;
    }

    /**
     * Hands what is written to the socket (from any thread: Netty writes on the channel's event loop). While paced,
     * first waits until the previous hand-over is written.
     *
     * @throws UncheckedIOException while paced, when the previous hand-over failed (the client went away, or took no
     *     bytes for the write timeout and the connection was closed).
     */
    void flush() {
        assert messageStart < 0 : "flush inside a message";
        if (buf != null && buf.isReadable()) {
            final ByteBuf b = buf;
            buf = null;
            if (paced) {
                awaitInFlight();
                inFlight = channel.writeAndFlush(b);
            } else {
                channel.writeAndFlush(b, channel.voidPromise());
            }
        }
    }

    /**
     * Starts or ends pacing: while on, at most two buffers of {@link #FLUSH_LENGTH} are on their way to a client, so
     * an answer of any length holds no more than that in the server however slowly the client reads.
     *
     * @param on whether to pace.
     */
    void pace(final boolean on) {
        paced = on;
        inFlight = null;
    }

    private void awaitInFlight() {
        final ChannelFuture f = inFlight;
        if (f == null) {
            return;
        }
        inFlight = null;
        // bounded: the pipeline's WriteTimeoutHandler fails the write, and closes the connection, past its timeout
        f.awaitUninterruptibly();
        if (!f.isSuccess()) {
            throw new UncheckedIOException(new IOException("the client stopped taking the answer: " + f.cause(),
                f.cause()));
        }
    }

    /** Hands what is written to the socket and closes the connection once it is written (after a FATAL error). */
    void flushAndClose() {
        assert messageStart < 0 : "flush inside a message";
        final ByteBuf b = buf != null ? buf : channel.alloc().buffer(0);
        buf = null;
        channel.writeAndFlush(b).addListener(ChannelFutureListener.CLOSE);
    }

    /** Drops what is written and not flushed (the connection is closing). */
    void discard() {
        if (buf != null) {
            buf.release();
            buf = null;
        }
        messageStart = -1;
    }

    // ------------------------------------------------------------------------------------------ common messages

    void readyForQuery(final char status) {
        begin('Z').int8(status).end();
    }

    void commandComplete(final String tag) {
        begin('C').cstring(tag).end();
    }

    void parameterStatus(final String name, final String value) {
        begin('S').cstring(name).cstring(value).end();
    }

    /**
     * RowDescription: for each column its name, no table, its type's OID and length, no modifier and its format.
     *
     * @param columns the columns.
     * @param formats each column's format (0 text, 1 binary).
     */
    void rowDescription(final List<PgColumn> columns, final short[] formats) {
        begin('T').int16(columns.size());
        for (int i = 0; i < columns.size(); i++) {
            final PgType t = columns.get(i).type();
            cstring(columns.get(i).name()).int32(0).int16(0).int32(t.oid()).int16(t.length()).int32(-1)
                .int16(formats[i]);
        }
        end();
    }

    /**
     * ErrorResponse.
     *
     * @param error the error.
     */
    void error(final PgError error) {
        begin('E');
        int8('S').cstring(error.severity());
        int8('V').cstring(error.severity());
        int8('C').cstring(error.sqlState());
        int8('M').cstring(error.message());
        if (error.position() > 0) {
            int8('P').cstring(Integer.toString(error.position()));
        }
        int8(0);
        end();
    }
}
