package io.tradestore.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One blocking keep-alive HTTP/1.1 connection that sends prepared request bytes and reads the whole answer: the
 * cheapest client there is, so that the difference between two endpoints' medians is the server's, not a client
 * library's (docs/benchmarks.md, "SQL and PostgreSQL wire", says what java.net.http's client added).
 */
final class LoopbackHttp implements AutoCloseable {
    private final SocketChannel ch;
    private byte[] in = new byte[1 << 16];

    /**
     * @param address the server.
     * @throws IOException when the connection cannot be opened.
     */
    LoopbackHttp(final InetSocketAddress address) throws IOException {
        ch = SocketChannel.open(address);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
    }

    /**
     * @param method      GET or POST.
     * @param path        the path and query.
     * @param contentType the body's type, for a POST.
     * @param body        the body, for a POST.
     * @return the request's bytes.
     */
    static byte[] request(final String method, final String path, final String contentType, final String body) {
        final byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        final String head = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + (body == null ? "" : "Content-Type: " + contentType + "\r\nContent-Length: " + b.length + "\r\n")
            + "\r\n";
        final byte[] h = head.getBytes(StandardCharsets.US_ASCII);
        final byte[] out = Arrays.copyOf(h, h.length + b.length);
        System.arraycopy(b, 0, out, h.length, b.length);
        return out;
    }

    /**
     * Sends a request and reads its answer.
     *
     * @param request the request's bytes ({@link #request}).
     * @return the answer's body.
     * @throws IOException when the connection breaks, or the answer is not 200.
     */
    String send(final byte[] request) throws IOException {
        final ByteBuffer b = ByteBuffer.wrap(request);
        while (b.hasRemaining()) {
            ch.write(b);
        }
        int filled = 0;
        while (true) {
            if (filled == in.length) {
                in = Arrays.copyOf(in, in.length * 2);
            }
            final int n = ch.read(ByteBuffer.wrap(in, filled, in.length - filled));
            if (n < 0) {
                throw new IOException("the server closed the connection");
            }
            filled += n;
            final int head = NioLoad.headEnd(in, filled);
            if (head < 0) {
                continue;
            }
            final int length = Math.toIntExact(NioLoad.contentLength(in, head));
            if (head + length > in.length) {
                in = Arrays.copyOf(in, head + length);
            }
            if (filled < head + length) {
                continue;
            }
            final int status = (in[9] - '0') * 100 + (in[10] - '0') * 10 + (in[11] - '0');
            final String text = new String(in, head, length, StandardCharsets.UTF_8);
            if (status != 200) {
                throw new IOException("answered " + status + ": " + text);
            }
            return text;
        }
    }

    @Override
    public void close() throws IOException {
        ch.close();
    }
}
