package io.tradestore.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpMessage;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;

/**
 * Assembles a request's body up to its endpoint's limit: the query limit, or the larger ingest limit for the endpoints
 * that carry rows. A longer one becomes a request marked {@link TooLarge}, answered 413 (JSON) in its turn and then
 * the connection closed: at once when its Content-Length says so, and otherwise (chunked) with the bytes past the
 * limit dropped as they arrive, so a connection never holds more than its limit. {@code Expect: 100-continue} gets
 * its 100 only when the body fits and no answer is pending before it; other expectations are ignored.
 */
final class BodyLimit extends HttpObjectAggregator {
    private final PipelinedConnection connection;
    private final int queryLimit;
    private final int ingestLimit;
    /**
     * The request being assembled: whether it has the ingest limit, that limit or the query one, and whether its body
     * went past it (then dropped).
     */
    private boolean currentIngests;
    private int currentLimit;
    private boolean overflowed;

    BodyLimit(final int maxBytes, final int ingestMaxBytes, final PipelinedConnection connection) {
        super(Math.max(maxBytes, ingestMaxBytes));
        this.connection = connection;
        this.queryLimit = maxBytes;
        this.ingestLimit = ingestMaxBytes;
    }

    /** @return whether a request carries rows or a schema (line protocol, CSV, a table's PUT): the ingest limit. */
    private static boolean ingests(final HttpMessage start) {
        if (!(start instanceof HttpRequest r)) {
            return false;
        }
        final Endpoint e = Endpoint.ofTarget(r.uri());
        return e == Endpoint.WRITE || e == Endpoint.IMPORT || e == Endpoint.TABLE && HttpMethod.PUT.equals(r.method());
    }

    private int limitFor(final HttpMessage start) {
        return ingests(start) ? ingestLimit : queryLimit;
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
    protected boolean isContentLengthInvalid(final HttpMessage start, final int maxContentLength) {
        return super.isContentLengthInvalid(start, limitFor(start));
    }

    @Override
    protected Object newContinueResponse(final HttpMessage start, final int maxContentLength,
        final ChannelPipeline pipeline) {
        final int limit = limitFor(start);
        if (!HttpUtil.is100ContinueExpected(start) || connection.busy
            || HttpUtil.getContentLength(start, -1L) > limit) {
            return null; // an over-long body is answered 413 in its turn; no 100 may overtake an earlier answer
        }
        return super.newContinueResponse(start, limit, pipeline);
    }

    @Override
    protected FullHttpMessage beginAggregation(final HttpMessage start, final ByteBuf content) throws Exception {
        currentIngests = ingests(start);
        currentLimit = currentIngests ? ingestLimit : queryLimit;
        overflowed = false;
        return super.beginAggregation(start, content);
    }

    @Override
    protected void aggregate(final FullHttpMessage aggregated, final HttpContent content) throws Exception {
        final ByteBuf body = aggregated.content();
        if (overflowed || body.readableBytes() > currentLimit) {
            // a chunked body past its endpoint's limit: drop what came, keep dropping, answer 413 at its end
            overflowed = true;
            body.readerIndex(body.writerIndex());
            if (body instanceof CompositeByteBuf c) {
                c.discardReadComponents();
            } else {
                body.discardReadBytes();
            }
        }
        super.aggregate(aggregated, content);
    }

    @Override
    protected void finishAggregation(final FullHttpMessage aggregated) throws Exception {
        super.finishAggregation(aggregated);
        if (overflowed) {
            aggregated.setDecoderResult(DecoderResult.failure(new TooLarge(currentIngests)));
        }
    }

    @Override
    protected void handleOversizedMessage(final ChannelHandlerContext ctx, final HttpMessage oversized) {
        final HttpRequest r = (HttpRequest) oversized;
        final DefaultFullHttpRequest marker = new DefaultFullHttpRequest(r.protocolVersion(), HttpMethod.POST, r.uri(),
            Unpooled.EMPTY_BUFFER);
        marker.setDecoderResult(DecoderResult.failure(new TooLarge(ingests(oversized))));
        ctx.fireChannelRead(marker);
    }

    /**
     * The decoder result of a request whose body was over its limit (answered 413 in its turn, by the router), and
     * which limit: the ingest one or the query one.
     */
    static final class TooLarge extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final boolean ingest;

        TooLarge(final boolean ingest) {
            super("body over the limit", null, false, false);
            this.ingest = ingest;
        }
    }
}
