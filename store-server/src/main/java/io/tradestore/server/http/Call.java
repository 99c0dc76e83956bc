package io.tradestore.server.http;

import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpUtil;

/** One request: its connection, the request, arrival time, endpoint label and whether it has been answered. */
final class Call {
    final PipelinedConnection connection;
    final ChannelHandlerContext ctx;
    /** Released once the request is routed: a POST query retains its body for the worker. */
    final FullHttpRequest request;
    final long startNs;
    final AtomicBoolean answered = new AtomicBoolean();
    /** A HEAD request: answered as GET, without the body. */
    final boolean head;
    Endpoint endpoint = Endpoint.OTHER;
    String rawQuery;
    boolean keepAlive;
    /**
     * Whether the client may still be sending a body the server did not read (refused by its Content-Length): the
     * connection then closes gently after the answer, so that the client reads it before the close.
     */
    boolean bodyUnread;
    HttpHeaders extraHeaders;

    Call(final PipelinedConnection connection, final ChannelHandlerContext ctx, final FullHttpRequest request,
        final long startNs) {
        this.connection = connection;
        this.ctx = ctx;
        this.request = request;
        this.startNs = startNs;
        this.keepAlive = HttpUtil.isKeepAlive(request);
        this.head = HttpMethod.HEAD.equals(request.method());
    }

    /** Adds a header to the answer (a worker may, while the event loop answers 504). */
    synchronized void header(final String name, final String value) {
        if (extraHeaders == null) {
            extraHeaders = new DefaultHttpHeaders();
        }
        extraHeaders.set(name, value);
    }
}
