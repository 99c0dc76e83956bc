package io.tradestore.server.http;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** A client that sends a request, reads the start of a long streamed answer, then closes its connection. */
final class LeavingClient {
    private LeavingClient() {
    }

    /**
     * @param port    the server's port.
     * @param request the request's head (without its blank line), e.g. {@code GET /path HTTP/1.1}.
     * @param body    its body, or null.
     * @param bytes   answer bytes read before leaving.
     * @throws Exception when the answer ends before that.
     */
    static void leave(final int port, final String request, final byte[] body, final int bytes) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            final OutputStream out = s.getOutputStream();
            out.write((request + "\r\nHost: 127.0.0.1:" + port + (body == null ? "" : "\r\nContent-Length: "
                + body.length) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            if (body != null) {
                out.write(body);
            }
            out.flush();
            final InputStream in = s.getInputStream();
            final byte[] b = new byte[8192];
            long read = 0;
            while (read < bytes) {
                final int n = in.read(b);
                assertThat(n).as("answer bytes after %d", read).isPositive();
                read += n;
            }
        } // closed with the rest of the answer unread
    }
}
