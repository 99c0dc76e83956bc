package io.tradestore.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The load generator keeps its connections across runs (as a long-lived client pool would), and starts a run after one
 * that broke off on fresh connections, so late answers of the old run cannot be taken for the new run's.
 */
class NioLoadTest {
    private static final byte[] FAST = "GET /fast HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SLOW = "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ANSWER =
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.US_ASCII);

    /** A keep-alive HTTP server that answers 200 to every request except /slow ones, which it never answers. */
    private static final class TinyServer implements AutoCloseable {
        final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final AtomicInteger accepted = new AtomicInteger();

        TinyServer() throws IOException {
            final Thread t = new Thread(() -> {
                try {
                    while (true) {
                        final Socket s = listener.accept();
                        accepted.incrementAndGet();
                        final Thread c = new Thread(() -> serve(s), "tiny-conn");
                        c.setDaemon(true);
                        c.start();
                    }
                } catch (final IOException e) {
                    // closed
                }
            }, "tiny-accept");
            t.setDaemon(true);
            t.start();
        }

        private static void serve(final Socket s) {
            try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                final StringBuilder head = new StringBuilder();
                for (int b = in.read(); b >= 0; b = in.read()) {
                    head.append((char) b);
                    if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
                        if (!head.toString().startsWith("GET /slow")) {
                            out.write(ANSWER);
                            out.flush();
                        }
                        head.setLength(0);
                    }
                }
            } catch (final IOException e) {
                // the client closed
            }
        }

        InetSocketAddress address() {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort());
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }
    }

    @Test
    void shouldKeepItsConnectionsAcrossRunsAndReopenThemAfterARunThatBrokeOff() throws Exception {
        try (TinyServer server = new TinyServer(); NioLoad load = new NioLoad(server.address(), 3)) {
            final long periodNs = TimeUnit.MILLISECONDS.toNanos(1);
            for (int run = 0; run < 2; run++) {
                final long start = System.nanoTime();
                final NioLoad.Outcome o = load
                    .run(new byte[][] {FAST}, 40, periodNs, start, start + TimeUnit.SECONDS.toNanos(20), run == 1);
                assertThat(o.aborted).isFalse();
                assertThat(o.ok).isEqualTo(40);
                assertThat(o.latency.getTotalCount()).isEqualTo(40);
                // traced: every request once, each latency from its intended send time (request i due at start + i ms)
                if (run == 1) {
                    assertThat(o.traced).isEqualTo(40);
                    final boolean[] seen = new boolean[40];
                    for (int i = 0; i < o.traced; i++) {
                        seen[(int) o.traceIndex[i]] = true;
                        assertThat(o.traceIntended[i]).isEqualTo(start + o.traceIndex[i] * periodNs);
                        assertThat(o.traceEnd[i]).isGreaterThan(o.traceIntended[i]);
                    }
                    assertThat(seen).containsOnly(true);
                }
            }
            assertThat(server.accepted.get()).as("two runs on the same 3 connections").isEqualTo(3);

            // a run whose last request is never answered gives up with it in flight
            final long start = System.nanoTime();
            final NioLoad.Outcome broken = load.run(new byte[][] {FAST, FAST, FAST, SLOW}, 4, periodNs, start,
                start + TimeUnit.MILLISECONDS.toNanos(300), false);
            assertThat(broken.aborted).isTrue();
            assertThat(broken.ok).isEqualTo(3);

            final long again = System.nanoTime();
            final NioLoad.Outcome next = load
                .run(new byte[][] {FAST}, 10, periodNs, again, again + TimeUnit.SECONDS.toNanos(20), false);
            assertThat(next.aborted).isFalse();
            assertThat(next.ok).isEqualTo(10);
            assertThat(server.accepted.get()).as("fresh connections after the broken run").isEqualTo(6);
        }
    }
}
