package io.tradestore.server.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;

/**
 * Assembles a request's body up to the server's limit. A longer one becomes a request marked {@link TooLarge},
 * answered 413 (JSON) in its turn and then the connection closed. {@code Expect: 100-continue} gets its 100 only when
 * the body fits and no answer is pending before it; other expectations are ignored.
 */
final class BodyLimit extends HttpObjectAggregator {
    private final PipelinedConnection connection;

    BodyLimit(final int maxBytes, final PipelinedConnection connection) {
        super(maxBytes);
        this.connection = connection;
    }

    /**
     * Passes the end of a read on without reading more. {@code MessageAggregator} reads on by itself while a request
     * is half assembled and auto-read is off (netty#6583), and auto-read is off here only where
     * {@link PipelinedConnection} has stopped reading (requests waiting, or answers not taken): those reads went past
     * the limit, request after request, as long as each read ended inside a body ({@code BackPressureTest} before this
     * override: ~1,100 requests, ~70 MB, read on one connection against the limit of 64). The half-read request is
     * finished when reading resumes.
     */
    @Override
    public void channelReadComplete(final ChannelHandlerContext ctx) {
        ctx.fireChannelReadComplete();
    }

    @Override
    protected Object newContinueResponse(final HttpMessage start, final int maxContentLength,
        final ChannelPipeline pipeline) {
        if (!HttpUtil.is100ContinueExpected(start) || connection.busy
            || HttpUtil.getContentLength(start, -1L) > maxContentLength) {
            return null; // an over-long body is answered 413 in its turn; no 100 may overtake an earlier answer
        }
        return super.newContinueResponse(start, maxContentLength, pipeline);
    }

    @Override
    protected void handleOversizedMessage(final ChannelHandlerContext ctx, final HttpMessage oversized) {
        final HttpRequest r = (HttpRequest) oversized;
        final DefaultFullHttpRequest marker = new DefaultFullHttpRequest(r.protocolVersion(), HttpMethod.POST, r.uri(),
            Unpooled.EMPTY_BUFFER);
        marker.setDecoderResult(DecoderResult.failure(new TooLarge()));
        ctx.fireChannelRead(marker);
    }

    /** The decoder result of a request whose body was over the limit (answered 413 in its turn, by the router). */
    static final class TooLarge extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TooLarge() {
            super("body over the limit", null, false, false);
        }
    }
}
