package io.tradestore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.server.TestStores;

/**
 * A client that pipelines large requests behind one that cannot finish: the server reads a bounded number of them and
 * then leaves the rest in the socket (TCP back pressure), however the request boundaries fall in its reads; once the
 * first is answered it reads on and answers every request in order.
 */
class BackPressureTest {
    /** Body limit of the server under test; each pipelined body is a little under it. */
    private static final int MAX_BODY = 64 * 1024;
    /**
     * Pipelined bodies: 3,000 x ~64 KiB = ~190 MiB, several times what the kernel's socket buffers can hold (32 + 4 MiB
     * here).
     */
    private static final int REQUESTS = 3000;
    /** Requests the server reads ahead of the one in flight on a connection. */
    private static final long MAX_PENDING = 64;
    /** Bytes per write of the client: prime, so that no write ends on a request boundary in this test. */
    private static final int WRITE_LENGTH = 65_521;

    @TempDir
    Path dir;

    @Test
    void shouldStopReadingPipelinedRequestsBehindOneInFlightThenAnswerThemAll() throws Exception {
        TestStores.writeTrades(dir, 100, 1);
        final CountDownLatch release = new CountDownLatch(1);
        try (Store store = Store.open(dir);
             QueryServer server = blockingServer(store, release, new CountDownLatch(1));
             Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(60_000);
            final byte[] first = request("{\"table\":\"block\"}");
            final byte[] next = request("{\"table\":\"trades\",\"pad\":\"" + "x".repeat(MAX_BODY - 1000 - 7) + "\"}");
            final long total = first.length + (long) REQUESTS * next.length;
            final AtomicLong written = new AtomicLong();
            final Thread writer = new Thread(() -> {
                try {
                    final OutputStream out = socket.getOutputStream();
                    out.write(first);
                    written.addAndGet(first.length);
                    // the requests as one stream cut into writes that never end on a request boundary, so that the
                    // server's reads (which end where the writes did when it keeps up) always leave a request half read
                    final byte[] chunk = new byte[WRITE_LENGTH];
                    final long length = (long) REQUESTS * next.length;
                    for (long at = 0; at < length;) {
                        final int n = (int) Math.min(chunk.length, length - at);
                        for (int filled = 0; filled < n;) {
                            final int from = (int) ((at + filled) % next.length);
                            final int part = Math.min(n - filled, next.length - from);
                            System.arraycopy(next, from, chunk, filled, part);
                            filled += part;
                        }
                        out.write(chunk, 0, n);
                        at += n;
                        written.addAndGet(n);
                    }
                    out.flush();
                } catch (final IOException e) {
                    // the socket closed at the end of a failed test
                }
            }, "pipelining-writer");
            writer.start();
            // wait until the server has read 64 requests ahead and then nothing more for a second (neither requests
            // nor bytes from the client), or the writer is done; never longer than 60 s
            final Http http = new Http(server.port());
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            long lastBytes = -1;
            long lastPipelined = -1;
            long stableSince = System.nanoTime();
            while (writer.isAlive() && System.nanoTime() < deadline) {
                writer.join(100);
                final long w = written.get();
                final long p = gauge(http.get("/metrics").body(), "tradestore_http_requests_pipelined");
                if (w != lastBytes || p != lastPipelined) {
                    lastBytes = w;
                    lastPipelined = p;
                    stableSince = System.nanoTime();
                } else if (p >= MAX_PENDING && System.nanoTime() - stableSince > TimeUnit.SECONDS.toNanos(1)) {
                    break;
                }
            }
            final long blockedAt = written.get();
            final long pipelined = gauge(http.get("/metrics").body(), "tradestore_http_requests_pipelined");
            System.out.println("BackPressureTest: the client sent " + blockedAt + " of " + total
                + " bytes before the server stopped reading; "
                + pipelined + " requests read ahead");
            assertThat(pipelined).as("requests read behind the one in flight").isEqualTo(MAX_PENDING);
            assertThat(blockedAt).as("bytes the client could send while the first request was in flight (of %d)", total)
                .isLessThan(total / 2);
            release.countDown();
            // the connection reads on: every request is answered
            final InputStream in = socket.getInputStream();
            final int answers = countAnswers(in, REQUESTS + 1);
            assertThat(answers).isEqualTo(REQUESTS + 1);
            writer.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(written.get()).isEqualTo(total);
            assertThat(gauge(http.get("/metrics").body(), "tradestore_http_requests_pipelined")).isZero();
        } finally {
            release.countDown();
        }
    }

    /**
     * Thousands of small requests pipelined in one write behind a query that cannot finish yet. One read
     * of the socket holds about a thousand of them (all decoded, whatever the limit); once the query is answered, the
     * cheap ones are answered on the event loop one after the other, and every one must be answered, in order, without
     * one answer starting the next from inside itself (that recursion would overflow the event loop's stack).
     */
    @Test
    void shouldAnswerThousandsOfSmallRequestsPipelinedBehindOneInFlight() throws Exception {
        TestStores.writeTrades(dir, 100, 1);
        final int requests = 3000;
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch started = new CountDownLatch(1);
        try (Store store = Store.open(dir);
             QueryServer server = blockingServer(store, release, started);
             Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(30_000);
            final java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            all.writeBytes(request("{\"table\":\"block\"}"));
            for (int i = 0; i < requests; i++) {
                all.writeBytes("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            socket.getOutputStream().write(all.toByteArray());
            socket.getOutputStream().flush();
            assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
            // until the server has read what it reads ahead: nothing more for half a second (at most 10 s)
            final Http http = new Http(server.port());
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            long pipelined = -1;
            long stableSince = System.nanoTime();
            while (System.nanoTime() < deadline
                && System.nanoTime() - stableSince < TimeUnit.MILLISECONDS.toNanos(500)) {
                final long p = gauge(http.get("/metrics").body(), "tradestore_http_requests_pipelined");
                if (p != pipelined) {
                    pipelined = p;
                    stableSince = System.nanoTime();
                }
                Thread.sleep(20);
            }
            System.out.println("BackPressureTest: " + pipelined + " small requests read ahead");
            release.countDown();
            assertThat(countAnswers(socket.getInputStream(), requests + 1)).isEqualTo(requests + 1);
        } finally {
            release.countDown();
        }
    }

    /**
     * A server with one worker whose queries of table "block" wait (counting down {@code started}) until {@code
     * release}.
     */
    private static QueryServer blockingServer(final Store store, final CountDownLatch release,
        final CountDownLatch started) {
        return QueryServer.start(store, (json, timeoutMs) -> {
            if (json.contains("\"block\"")) {
                started.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return new FixedResult(1);
        }, new ServerConfig("127.0.0.1", 0, 1, 1, MAX_BODY, 120_000, null));
    }

    private static long gauge(final String metrics, final String name) {
        for (final String line : metrics.split("\n")) {
            if (line.startsWith(name + " ")) {
                // Prometheus values are floats: "3.0"
                return (long) Double.parseDouble(line.substring(name.length() + 1));
            }
        }
        throw new AssertionError("no " + name + " in\n" + metrics);
    }

    private static byte[] request(final String body) {
        final byte[] b = body.getBytes(StandardCharsets.UTF_8);
        final byte[] head = ("POST /v1/query HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + b.length + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
        final byte[] out = new byte[head.length + b.length];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(b, 0, out, head.length, b.length);
        return out;
    }

    /**
     * Reads answers until {@code expected} status lines of 200 have arrived (or the stream ends); returns how many did.
     */
    private static int countAnswers(final InputStream in, final int expected) throws IOException {
        final byte[] marker = "HTTP/1.1 200".getBytes(StandardCharsets.US_ASCII);
        final byte[] buf = new byte[64 * 1024];
        int matched = 0;
        int count = 0;
        while (count < expected) {
            final int n = in.read(buf);
            if (n < 0) {
                break;
            }
            for (int i = 0; i < n; i++) {
                matched = buf[i] == marker[matched] ? matched + 1 : buf[i] == marker[0] ? 1 : 0;
                if (matched == marker.length) {
                    count++;
                    matched = 0;
                }
            }
        }
        return count;
    }
}
