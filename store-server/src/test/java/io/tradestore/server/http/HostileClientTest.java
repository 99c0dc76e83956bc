package io.tradestore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.server.LogCapture;
import io.tradestore.server.TestStores;

/**
 * What a hostile or careless client can no longer do: reach a token-less server through another site's name (DNS
 * rebinding) or origin, speak HTTP/1.1 without Host or HTTP/2 at it, hold a connection open by sending a request a byte
 * at a time, open more connections than the server can hold, or make it buffer answers it never reads.
 */
class HostileClientTest {
    private static final String QUERY = "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";
    @TempDir
    static Path dir;
    private static Store store;

    @BeforeAll
    static void open() {
        TestStores.writeTrades(dir, 100, 1);
        store = Store.open(dir);
    }

    @AfterAll
    static void close() {
        store.close();
    }

    private static ServerConfig config(final ServerConfig.Limits limits) {
        return new ServerConfig("127.0.0.1", 0, 2, 8, 4096, 30_000, null, limits);
    }

    private static ServerConfig.Limits limits(final int maxConnections, final long requestTimeoutMs,
        final long writeTimeoutMs,
                                              final long maxAnswerBytes, final List<String> allowedHosts) {
        return new ServerConfig.Limits(maxConnections, requestTimeoutMs, writeTimeoutMs, maxAnswerBytes, 1000,
            allowedHosts);
    }

    /** Sends raw bytes and reads everything until the server closes (or 30 s pass). */
    private static String exchange(final int port, final String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private static String get(final String target, final String headers) {
        return "GET " + target + " HTTP/1.1\r\n" + headers + "Connection: close\r\n\r\n";
    }

    private static String post(final String headers) {
        return "POST /v1/query HTTP/1.1\r\n" + headers + "Content-Type: text/plain\r\nContent-Length: " + QUERY.length()
            + "\r\nConnection: close\r\n\r\n" + QUERY;
    }

    @Test
    void shouldAnswerOnlyLoopbackAndAllowedHostNamesWithoutAToken() throws Exception {
        try (QueryServer s = QueryServer.start(store, (json, timeoutMs) -> new FixedResult(1),
            config(limits(0, 30_000, 60_000, 1 << 20, List.of("trades.internal"))))) {
            final int port = s.port();
            for (final String host
                : new String[] {"localhost", "127.0.0.1:" + port, "[::1]:" + port, "LOCALHOST:" + port, "127.1.2.3",
                "trades.internal:" + port}) {
                assertThat(exchange(port, get("/health", "Host: " + host + "\r\n"))).as(host)
                    .startsWith("HTTP/1.1 200");
            }
            // a page at attacker.example that rebinds its name to 127.0.0.1 sends its own name
            for (final String host
                : new String[] {"attacker.example", "attacker.example:" + port, "127.0.0.1.attacker.example",
                "localhost.attacker.example", "0x7f.0.0.1"}) {
                final String answer = exchange(port, get("/v1/tables", "Host: " + host + "\r\n"));
                assertThat(answer).as(host).startsWith("HTTP/1.1 403").contains("\"code\":\"FORBIDDEN_HOST\"")
                    .contains("--allowed-hosts");
                assertThat(answer).doesNotContain("\"tables\"");
            }
            assertThat(exchange(port, get("/health", "Host: 127.0.0.1:" + port + ":1\r\n"))).startsWith("HTTP/1.1 403")
                .contains("not a host[:port]");
        }
    }

    @Test
    void shouldAcceptAnyHostWhenATokenIsRequired() throws Exception {
        try (QueryServer s = QueryServer.start(store, (json, timeoutMs) -> new FixedResult(1),
            new ServerConfig("127.0.0.1", 0, 2, 8, 4096, 30_000, "s3cret"))) {
            assertThat(exchange(s.port(),
                get("/health", "Host: trades.example.com\r\nAuthorization: Bearer s3cret\r\n")))
                .startsWith("HTTP/1.1 200");
            assertThat(exchange(s.port(), get("/health", "Host: trades.example.com\r\n"))).startsWith("HTTP/1.1 401");
        }
    }

    @Test
    void shouldRefuseCrossOriginRequestsABrowserSendsWithoutPreflight() throws Exception {
        try (QueryServer s = QueryServer.start(store, (json, timeoutMs) -> new FixedResult(1),
            config(limits(0, 30_000, 60_000, 1 << 20, List.of("console.internal"))))) {
            final int port = s.port();
            // a form or text/plain POST from another site: the browser sends it and its Origin without asking first
            final String crossSite =
                exchange(port, post("Host: 127.0.0.1:" + port + "\r\nOrigin: https://evil.example\r\n"));
            assertThat(crossSite).startsWith("HTTP/1.1 403").contains("\"code\":\"FORBIDDEN_ORIGIN\"")
                .doesNotContain("\"rows\"");
            assertThat(exchange(port, post("Host: 127.0.0.1:" + port + "\r\nOrigin: null\r\n")))
                .startsWith("HTTP/1.1 403");
            // the server's own origin (a console it serves), an allowed one, and clients that send none
            assertThat(exchange(port,
                post("Host: 127.0.0.1:" + port + "\r\nOrigin: http://127.0.0.1:" + port + "\r\n")))
                .startsWith("HTTP/1.1 200");
            assertThat(exchange(port, post("Host: 127.0.0.1:" + port + "\r\nOrigin: https://console.internal\r\n")))
                .startsWith("HTTP/1.1 200");
            assertThat(exchange(port, post("Host: 127.0.0.1:" + port + "\r\n"))).startsWith("HTTP/1.1 200");
        }
    }

    @Test
    void shouldRefuseHttp11WithoutHostAndOtherHttpVersions() throws Exception {
        try (QueryServer s =
            QueryServer.start(store, (json, timeoutMs) -> new FixedResult(1), config(ServerConfig.Limits.defaults()))) {
            final int port = s.port();
            assertThat(exchange(port, get("/health", ""))).startsWith("HTTP/1.1 400").contains("Host header");
            // HTTP/1.0 has no Host requirement
            assertThat(exchange(port, "GET /health HTTP/1.0\r\n\r\n")).startsWith("HTTP/1.1 200");
            // an HTTP/2 client's connection preface (prior knowledge): refused, and the connection closed
            final String h2 = exchange(port, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
            assertThat(h2).startsWith("HTTP/1.1 505").contains("\"code\":\"HTTP_VERSION_NOT_SUPPORTED\"");
            assertThat(exchange(port, get("/health", "Host: localhost\r\n"))).startsWith("HTTP/1.1 200");
        }
    }

    @Test
    void shouldCloseAConnectionWhoseRequestDoesNotArriveWithinTheRequestTimeout() throws Exception {
        try (QueryServer s =
            QueryServer.start(store, (json, timeoutMs) -> new FixedResult(1),
            config(limits(0, 500, 60_000, 1 << 20, List.of())));
             Socket slow = new Socket("127.0.0.1", s.port())) {
            slow.setSoTimeout(100);
            final OutputStream out = slow.getOutputStream();
            final InputStream in = slow.getInputStream();
            out.write("GET /health HTTP/1.1\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
            // one header byte every 50 ms: each byte would reset an idle timer; the request timer runs on
            final ByteArrayOutputStream answer = new ByteArrayOutputStream();
            boolean closed = false;
            for (int i = 0; i < 600 && !closed; i++) {
                try {
                    out.write('a');
                    out.flush();
                } catch (final SocketException e) {
                    closed = true; // reset by the server after its 408
                }
                try {
                    final int b = in.read();
                    if (b < 0) {
                        closed = true;
                    } else {
                        answer.write(b);
                        answer.write(in.readAllBytes());
                        closed = true;
                    }
                } catch (final SocketTimeoutException e) {
                    // nothing yet: dribble on
                } catch (final SocketException e) {
                    closed = true;
                }
            }
            assertThat(closed).as("the server closed the connection of a request dribbled for 30 s").isTrue();
            assertThat(answer.toString(StandardCharsets.ISO_8859_1)).startsWith("HTTP/1.1 408")
                .contains("\"code\":\"REQUEST_TIMEOUT\"");
            assertThat(s.metricsText()).contains("tradestore_http_request_timeouts_total 1.0");
            // a client that sends its request whole is unaffected
            assertThat(exchange(s.port(), get("/health", "Host: localhost\r\n"))).startsWith("HTTP/1.1 200");
        }
    }

    @Test
    void shouldAnswer503ToConnectionsBeyondTheLimitAndAcceptAgainOnceOneCloses() throws Exception {
        try (QueryServer s =
            QueryServer.start(store, (json, timeoutMs) -> new FixedResult(1),
            config(limits(3, 30_000, 60_000, 1 << 20, List.of())))) {
            final List<Socket> held = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    final Socket k = new Socket("127.0.0.1", s.port());
                    held.add(k);
                    // a request answered on each: the connection is open and counted before the next is made
                    k.getOutputStream()
                        .write("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    k.setSoTimeout(30_000);
                    assertThat(new String(k.getInputStream().readNBytes(12), StandardCharsets.US_ASCII))
                        .isEqualTo("HTTP/1.1 200");
                }
                final String refused = exchange(s.port(), get("/health", "Host: localhost\r\n"));
                assertThat(refused).startsWith("HTTP/1.1 503").contains("Retry-After: 1").contains("--max-connections");
                assertThat(s.metricsText()).contains("tradestore_http_connections_refused_total 1.0")
                    .contains("tradestore_http_connections 3.0");
                held.remove(0).close();
                String again = "";
                for (int i = 0; i < 200 && !again.startsWith("HTTP/1.1 200"); i++) {
                    // the close is seen by the server soon after
                    again = exchange(s.port(), get("/health", "Host: localhost\r\n"));
                }
                assertThat(again).startsWith("HTTP/1.1 200");
            } finally {
                for (final Socket k : held) {
                    k.close();
                }
            }
        }
    }

    /** Sends a query on a socket that reads nothing (a tiny receive window) and returns it open. */
    private static Socket nonReading(final int port) throws IOException {
        final Socket s = new Socket();
        s.setReceiveBufferSize(4096);
        s.connect(new InetSocketAddress("127.0.0.1", port));
        s.getOutputStream()
            .write(post("Host: localhost\r\n").replace("Connection: close\r\n", "")
            .getBytes(StandardCharsets.ISO_8859_1));
        return s;
    }

    @Test
    void shouldRefuseAnAnswerThatWouldPassTheUnreadAnswerBytesLimitBeforeItsStatusLine() throws Exception {
        // far larger than what the kernel's socket buffers take off the server's hands (a few MB on loopback)
        final int answer = 32 << 20;
        try (LogCapture log = LogCapture.tradestore();
             QueryServer s =
                 QueryServer.start(store, (json, timeoutMs) -> new SizedResult(answer),
                 config(limits(0, 30_000, 60_000, 48 << 20, List.of())));
             Socket stalled = nonReading(s.port())) {
            // the first answer is held for a client that does not read; a second would pass 48 MB
            final long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
            while (s.unreadAnswerBytes() == 0 && System.nanoTime() < until) {
                Thread.sleep(1);
            }
            assertThat(s.unreadAnswerBytes()).isEqualTo(answer);
            final String second = exchange(s.port(), post("Host: localhost\r\n"));
            assertThat(second).startsWith("HTTP/1.1 503").contains("\"code\":\"OVERLOADED\"").contains("have not read");
            assertThat(log.text()).contains("WARN refused an answer of " + answer + " bytes");
            assertThat(s.metricsText()).contains("tradestore_http_answers_refused_total 1.0")
                .contains("tradestore_http_unread_answer_bytes " + (double) answer);
            // the stalled client reads at last: its answer arrives whole, and the server answers in full again
            stalled.setSoTimeout(30_000);
            final InputStream in = stalled.getInputStream();
            final StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                final int b = in.read();
                assertThat(b).as("the answer's head: " + head).isNotNegative();
                head.append((char) b);
            }
            assertThat(head.toString()).startsWith("HTTP/1.1 200").contains("content-length: " + answer);
            assertThat(in.readNBytes(answer)).hasSize(answer);
            String third = "";
            for (int i = 0; i < 200 && !third.startsWith("HTTP/1.1 200"); i++) {
                third = exchange(s.port(), post("Host: localhost\r\n"));
            }
            assertThat(third).startsWith("HTTP/1.1 200");
        }
    }

    @Test
    void shouldCloseAConnectionWhoseClientTakesNoAnswerBytesWithinTheWriteTimeout() throws Exception {
        final int answer = 16 << 20;
        try (LogCapture log = LogCapture.tradestore();
             QueryServer s =
                 QueryServer.start(store, (json, timeoutMs) -> new SizedResult(answer),
                 config(limits(0, 30_000, 300, 1L << 30, List.of())));
             Socket stalled = nonReading(s.port())) {
            String warned = "";
            for (int i = 0; i < 3000 && !warned.contains("took no bytes of its answer"); i++) {
                Thread.sleep(10);
                warned = log.text();
            }
            assertThat(warned).contains("WARN closing the connection of")
                .contains("took no bytes of its answer for 300 ms");
            // what the client gets is cut short and then the end of the stream: visibly incomplete, never a hang
            stalled.setSoTimeout(30_000);
            long got = 0;
            try {
                got = stalled.getInputStream().readAllBytes().length;
            } catch (final SocketException e) {
                got = -1; // reset
            }
            assertThat(got).isLessThan(answer);
        }
    }
}
