package io.tradestore.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.stream.ChunkedInput;

/**
 * A large answer handed to the socket a slice at a time, as the client takes it ({@code ChunkedWriteHandler} asks for
 * the next slice only while the channel is writable). Written whole, an 80 MB answer was copied into one direct buffer
 * of 80 MB for the socket write, and clients that did not read exhausted direct memory; sliced, a connection holds at
 * most its write buffer's worth of direct memory, and the write timeout measures the client's progress slice by slice.
 */
final class SlicedBody implements ChunkedInput<ByteBuf> {
    /** Bytes per slice. */
    static final int SLICE_BYTES = 64 * 1024;
    private final ByteBuf body;
    private final long length;
    private boolean closed;

    /** @param body the answer (released when the input is closed). */
    SlicedBody(final ByteBuf body) {
        this.body = body;
        this.length = body.readableBytes();
    }

    @Override
    public boolean isEndOfInput() {
        return !body.isReadable();
    }

    /** Releases the answer once: the chunked writer closes an input at its end and again when the connection drops. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            body.release();
        }
    }

    @Deprecated
    @Override
    public ByteBuf readChunk(final ChannelHandlerContext ctx) {
        return readChunk(ctx.alloc());
    }

    @Override
    public ByteBuf readChunk(final ByteBufAllocator allocator) {
        return body.isReadable() ? body.readRetainedSlice(Math.min(SLICE_BYTES, body.readableBytes())) : null;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public long progress() {
        return length - body.readableBytes();
    }
}
