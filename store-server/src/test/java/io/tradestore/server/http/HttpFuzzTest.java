package io.tradestore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.tradestore.core.Store;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.LogCapture;
import io.tradestore.server.TestStores;

/**
 * A seeded fuzzer of the HTTP layer over raw sockets, against the real engine: malformed request lines, methods,
 * versions and targets, odd and conflicting headers (Content-Length, Transfer-Encoding, Content-Type, Expect), chunked
 * bodies right and wrong, bodies over the limit, invalid UTF-8, bad query-string parameters, bodies sent in slow
 * pieces, requests cut short by a half-close, and pipelined pairs, from several clients at once. Every answer must be a
 * well-formed HTTP response with a status other than 500, a non-200 one with the JSON error body; a request cut short
 * may instead be closed without an answer; nothing may hang, and the server must answer normally at the end. Replay
 * one case with {@code -Dtradestore.httpfuzz.seed=S -Dtradestore.httpfuzz.cases=N}.
 */
class HttpFuzzTest {
    private static final long SEED = Long.getLong("tradestore.httpfuzz.seed", 0x477_7F22L);
    private static final int CASES = Integer.getInteger("tradestore.httpfuzz.cases", 800);
    private static final int CLIENTS = 4;
    private static final int MAX_BODY = 8192;
    private static final String QUERY =
        "{\"table\":\"trades\",\"groupBy\":[\"side\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
        + "{\"name\":\"v\",\"op\":\"vwap\"}],\"orderBy\":[{\"col\":\"n\",\"desc\":true}],\"limit\":5}";

    @TempDir
    Path dir;

    /** One generated exchange: the bytes, how they are delivered, and whether the request is complete. */
    record Case(long seed, byte[] bytes, int pieces, boolean halfClose, boolean complete, String what) {
    }

    @Test
    void shouldAnswerEveryMalformedRequestWithA4xxJsonErrorAndStayUp() throws Exception {
        TestStores.writeTrades(dir, 3000, 9);
        final List<String> failures = Collections.synchronizedList(new ArrayList<>());
        final Map<String, AtomicInteger> outcomes = new ConcurrentSkipListMap<>();
        final ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try (LogCapture log = LogCapture.tradestore(); Store store = Store.open(dir); QueryEngine engine =
            new QueryEngine(store, 2);
             QueryServer server =
                 QueryServer.start(store, engine::execute,
                 new ServerConfig("127.0.0.1", 0, 2, 16, MAX_BODY, 10_000, null))) {
            final List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                final int client = c;
                done.add(clients.submit(() -> {
                    for (int i = client; i < CASES && failures.size() < 20; i += CLIENTS) {
                        final Case k = generate(SEED + i);
                        final String problem = exchange(server.port(), k, outcomes);
                        if (problem != null) {
                            failures.add("seed " + k.seed() + " (" + k.what() + "): " + problem + "\n  request: "
                                + printable(k.bytes(), 400));
                        }
                    }
                    return null;
                }));
            }
            for (final Future<?> f : done) {
                f.get(5, TimeUnit.MINUTES);
            }
            assertThat(failures).withFailMessage(() -> failures.size() + " bad answers:\n" + String.join("\n", failures)
                + "\nserver log:\n" + log.text()).isEmpty();
            System.out.println("HttpFuzzTest: " + CASES + " requests, answers " + outcomes);
            final Http http = new Http(server.port());
            assertThat(http.get("/health").status()).isEqualTo(200);
            assertThat(http.post("/v1/query", QUERY).status()).isEqualTo(200);
            // clients that hang up in the middle of a request are routine: no log line each (a client could flood the
            // log)
            assertThat(log.text()).doesNotContain("ERROR").doesNotContain("WARN");
        } finally {
            clients.shutdownNow();
        }
    }

    /** Sends one case and checks the first answer; null when it is acceptable. */
    static String exchange(final int port, final Case k, final Map<String, AtomicInteger> outcomes) {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(15_000);
            final OutputStream out = s.getOutputStream();
            final byte[] b = k.bytes();
            try {
                if (k.pieces() <= 1) {
                    out.write(b);
                } else {
                    final int step = Math.max(1, b.length / k.pieces());
                    for (int at = 0; at < b.length; at += step) {
                        out.write(b, at, Math.min(step, b.length - at));
                        out.flush();
                        Thread.sleep(2);
                    }
                }
                out.flush();
                if (k.halfClose()) {
                    s.shutdownOutput();
                }
            } catch (final IOException e) {
                // the server may answer and close before it has read everything (413, 400): read what it said
            }
            final InputStream in = s.getInputStream();
            final String head;
            try {
                head = readHead(in);
            } catch (final SocketTimeoutException e) {
                return "no answer within 15 s";
            } catch (final IOException e) {
                return k.complete() ? "connection failed without an answer: " + e : null;
            }
            if (head == null) {
                outcomes.computeIfAbsent("closed", x -> new AtomicInteger()).incrementAndGet();
                return k.complete() ? "closed without an answer" : null;
            }
            final String[] lines = head.split("\r\n");
            final String[] status = lines[0].split(" ", 3);
            if (status.length < 2 || !status[0].startsWith("HTTP/1.")) {
                return "not an HTTP status line: " + lines[0];
            }
            final int code = Integer.parseInt(status[1]);
            outcomes.computeIfAbsent(status[1], x -> new AtomicInteger()).incrementAndGet();
            if (code == 100) {
                return null; // an interim answer to Expect: 100-continue, whose body never came
            }
            long length = -1;
            String type = null;
            for (int i = 1; i < lines.length; i++) {
                final int colon = lines[i].indexOf(':');
                final String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
                final String value = lines[i].substring(colon + 1).trim();
                if (name.equals("content-length")) {
                    length = Long.parseLong(value);
                } else if (name.equals("content-type")) {
                    type = value;
                }
            }
            if (length < 0) {
                return "answer " + code + " without Content-Length";
            }
            if (new String(k.bytes(), 0, Math.min(5, k.bytes().length), StandardCharsets.ISO_8859_1).equals("HEAD ")) {
                return code >= 500 && code != 503 ? "status " + code + " for HEAD" : null;
            }
            final byte[] body = in.readNBytes((int) length);
            if (body.length != length) {
                return "answer " + code + " cut short: " + body.length + " of " + length + " bytes";
            }
            // 505 answers a request line of another HTTP version (an HTTP/2 preface, HTTP/0.9, HTTP/2.0)
            final boolean otherVersion = !firstLine(k.bytes()).endsWith(" HTTP/1.1") && !firstLine(k.bytes())
                .endsWith(" HTTP/1.0");
            if (code >= 500 && code != 503 && code != 504 && !(code == 505 && otherVersion) || code < 200 || code >= 300
                && code < 400) {
                return "status " + code + ": " + new String(body, StandardCharsets.UTF_8);
            }
            if (code != 200 || "application/json".equals(type)) {
                final JsonNode json;
                try {
                    json = Http.MAPPER.readTree(body);
                } catch (final IOException e) {
                    return "answer " + code + " is not JSON: " + new String(body, StandardCharsets.UTF_8);
                }
                if (code != 200) {
                    final JsonNode e = json.path("error");
                    if (!e.path("code").isTextual() || !e.path("message").isTextual() || !e.path("path").isTextual()) {
                        return "error " + code + " lacks code/message/path: " + json;
                    }
                }
            }
            return null;
        } catch (final IOException e) {
            return "cannot connect: " + e;
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /** @return the request's first line, up to its CR LF or LF. */
    private static String firstLine(final byte[] request) {
        final String text = new String(request, 0, Math.min(request.length, 8192), StandardCharsets.ISO_8859_1);
        final int end = text.indexOf('\n');
        return (end < 0 ? text : text.substring(0, end)).stripTrailing();
    }

    /** @return the status line and headers up to the blank line, or null when the connection closes first. */
    private static String readHead(final InputStream in) throws IOException {
        final ByteArrayOutputStream b = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            final int c = in.read();
            if (c < 0) {
                return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1) + " [cut]";
            }
            b.write(c);
            state = c == '\r' && (state == 0 || state == 2) ? state + 1 : c == '\n'
                && (state == 1 || state == 3) ? state + 1 : 0;
        }
        final String s = b.toString(StandardCharsets.ISO_8859_1);
        return s.substring(0, s.length() - 4);
    }

    private static String printable(final byte[] b, final int max) {
        final StringBuilder s = new StringBuilder();
        for (int i = 0; i < Math.min(b.length, max); i++) {
            final int c = b[i] & 0xFF;
            s.append(c >= 0x20
                && c < 0x7F ? String.valueOf((char) c) : c == '\r' ? "\\r" : c == '\n' ? "\\n"
                : String.format("\\x%02x", c));
        }
        return b.length > max ? s + "...(" + b.length + " bytes)" : s.toString();
    }

    // ---------------------------------------------------------------- generation

    private static final String[] METHODS =
        {"GET", "POST", "POST", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "TRACE", "PATCH", "CONNECT",
        "get", "P0ST", "G ET", "", "\u00ff", "POST\u0000", "X".repeat(5000)};
    private static final String[] VERSIONS =
        {"HTTP/1.1", "HTTP/1.1", "HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/0.9", "HTTP/1.2", "HTTPS/1.1",
        "http/1.1", "", "HTTP/1.1 extra", "HTTP/11"};
    private static final String[] TYPES =
        {"application/json", "application/json; charset=utf-8", "application/json; charset=iso-8859-1",
        "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "", "*/*",
        "application/json;;;"};

    static Case generate(final long seed) {
        final SplittableRandom r = new SplittableRandom(seed);
        final List<String> what = new ArrayList<>();
        final String method = r.nextInt(3) == 0 ? METHODS[r.nextInt(METHODS.length)] : "POST";
        final String version = r.nextInt(4) == 0 ? VERSIONS[r.nextInt(VERSIONS.length)] : "HTTP/1.1";
        final byte[] body = body(r, what);
        final RequestLine line = requestLine(r, method, what);
        final StringBuilder head = new StringBuilder();
        head.append(line.method()).append(' ').append(line.target());
        if (!version.isEmpty()) {
            head.append(' ').append(version);
        }
        head.append("\r\n");
        if (r.nextInt(10) != 0) {
            head.append("Host: localhost\r\n");
        }
        if (r.nextInt(3) == 0) {
            head.append("Content-Type: ").append(TYPES[r.nextInt(TYPES.length)]).append("\r\n");
        }
        final Framing framing = framing(r, head, body.length, what);
        oddHeader(r, head, what);
        head.append("\r\n");
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.writeBytes(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        boolean complete = framing != Framing.INCOMPLETE;
        if (framing == Framing.CHUNKED) {
            complete = chunkedBody(r, bytes, body, what);
        } else {
            bytes.writeBytes(body);
        }
        if (r.nextInt(8) == 0) {
            // a second request behind the first: pipelined, or garbage
            bytes.writeBytes(
                (r.nextBoolean() ? "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"
                : "\u0016\u0003\u0001 tls?\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
            what.add("pipelined");
        }
        byte[] all = bytes.toByteArray();
        boolean halfClose = r.nextInt(3) != 0;
        if (r.nextInt(10) == 0) {
            all = java.util.Arrays.copyOf(all, r.nextInt(all.length));
            complete = false;
            halfClose = true;
            what.add("cut short");
        }
        if (!complete) {
            // else the server rightly waits for the rest (and closes an idle connection after a minute)
            halfClose = true;
        }
        final int pieces = r.nextInt(20) == 0 ? 2 + r.nextInt(30) : 1;
        if (pieces > 1) {
            what.add("slow, " + pieces + " pieces");
        }
        return new Case(seed, all, pieces, halfClose, complete, String.join(", ", what));
    }

    /** @return the body: the query, or one in a wrong encoding, over the limit, empty or with bytes flipped. */
    private static byte[] body(final SplittableRandom r, final List<String> what) {
        byte[] body = QUERY.getBytes(StandardCharsets.UTF_8);
        switch (r.nextInt(9)) {
            case 0:
                body = new byte[] {'{', '"', 't', 'a', 'b', 'l', 'e', '"', ':', '"', (byte) 0xFF, (byte) 0xFE, '"',
                    '}'};
                what.add("latin-1 body");
                break;
            case 1:
                body = new byte[] {'{', '"', 't', 'a', 'b', 'l', 'e', '"', ':', '"', (byte) 0xED, (byte) 0xA0,
                    (byte) 0x80, (byte) 0xC0, (byte) 0x80,
                    '"', '}'};
                what.add("surrogate and overlong UTF-8");
                break;
            case 2:
                body = new byte[MAX_BODY + 1 + r.nextInt(3 * MAX_BODY)];
                java.util.Arrays.fill(body, (byte) ' ');
                what.add("body over the limit");
                break;
            case 3: {
                final byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
                final byte[] b = new byte[bom.length + body.length];
                System.arraycopy(bom, 0, b, 0, bom.length);
                System.arraycopy(body, 0, b, bom.length, body.length);
                body = b;
                what.add("UTF-8 BOM");
                break;
            }
            case 4:
                body = QUERY.getBytes(StandardCharsets.UTF_16);
                what.add("UTF-16 body");
                break;
            case 5:
                body = new byte[0];
                what.add("empty body");
                break;
            case 6: {
                final byte[] b = body.clone();
                for (int k = 0; k < 3; k++) {
                    b[r.nextInt(b.length)] = (byte) r.nextInt(256);
                }
                body = b;
                what.add("flipped bytes");
                break;
            }
            default:
                break;
        }
        return body;
    }

    /** A request's method and target. */
    private record RequestLine(String method, String target) {
    }

    /**
     * @return the query endpoint with the method drawn, or the query as a GET, bad query-string parameters, odd or
     *     long targets, and the other endpoints (some of them with their own method).
     */
    private static RequestLine requestLine(final SplittableRandom r, final String drawnMethod,
                                           final List<String> what) {
        String method = drawnMethod;
        String target = "/v1/query";
        switch (r.nextInt(14)) {
            case 0:
                method = "GET";
                target = "/v1/query?q=" + URLEncoder.encode(QUERY, StandardCharsets.UTF_8)
                    + (r.nextBoolean() ? "&epochNanos=true" : "");
                break;
            case 1:
                target = "/v1/query?q="
                    + new String[] {"%", "%F", "%FF%FE", "%C0%80", "%ED%A0%80", "%00", "%7B%22table%22", "", "+",
                    "%25"}[r.nextInt(10)];
                what.add("bad q");
                break;
            case 2:
                target = "/v1/query?epochNanos="
                    + new String[] {"maybe", "%zz", "", "TRUE", "1", "true&epochNanos=false"}[r.nextInt(6)];
                break;
            case 3:
                target = new String[] {"/v1/tables/..%2f..%2fetc", "/v1/tables/%00", "/v1/tables/",
                    "/v1/tables/" + "a".repeat(300), "/v1/tables/trades?x",
                    "/v1/tables/TRADES", "/v1/tables/trades/", "/v1/tables/%E9"}[r.nextInt(8)];
                method = r.nextBoolean() ? "GET" : method;
                break;
            case 4:
                target = new String[] {"*", "http://127.0.0.1/v1/query", "v1/query", "//v1/query", "/v1/query#x",
                    "/v1/query?", "/v1//query", "/%",
                    "/v1/query?q", "/\u00ff", "/v1/query?q=%7B&q=%7D", "/a b", "/v1/query?" + "&".repeat(3000),
                    "/v1/query?%=%"}[r.nextInt(14)];
                what.add("odd target");
                break;
            case 5:
                target = "/v1/query?q=" + "x".repeat(3 * MAX_BODY + 2000);
                method = "GET";
                what.add("long target");
                break;
            case 6:
                target = new String[] {"/health", "/metrics", "/v1/tables", "/nope"}[r.nextInt(4)];
                break;
            default:
                break;
        }
        return new RequestLine(method, target);
    }

    /** How a request's body is framed, which decides whether the bytes sent are a whole request. */
    private enum Framing {
        /** No Content-Length, the right one, or framing the server refuses before it waits for a body. */
        COMPLETE,
        /** A Content-Length that may promise more bytes than are sent. */
        INCOMPLETE,
        /** Transfer-Encoding chunked: the chunks decide. */
        CHUNKED
    }

    /**
     * Appends the Content-Length and Transfer-Encoding headers, right, missing, conflicting or wrong.
     *
     * @return how the body is framed.
     */
    private static Framing framing(final SplittableRandom r, final StringBuilder head, final int bodyLength,
                                   final List<String> what) {
        Framing framing = Framing.COMPLETE;
        switch (r.nextInt(12)) {
            case 0:
                what.add("no Content-Length");
                break;
            case 1:
                head.append("Content-Length: ")
                    .append(new String[] {"-1", "abc", "99999999999999999999", "+5", " 5 ", "0x10", "1,2",
                    ""}[r.nextInt(8)])
                    .append("\r\n");
                framing = Framing.INCOMPLETE; // " 5 " or "+5" may be read as a length the body does not have
                what.add("bad Content-Length");
                break;
            case 2:
                head.append("Content-Length: ").append(bodyLength).append("\r\nContent-Length: ")
                    .append(bodyLength + 1).append("\r\n");
                what.add("two Content-Lengths");
                break;
            case 3:
                head.append("Content-Length: ").append(bodyLength + 1 + r.nextInt(100)).append("\r\n");
                framing = Framing.INCOMPLETE;
                what.add("body shorter than its length");
                break;
            case 4:
            case 5:
                framing = Framing.CHUNKED;
                head.append("Transfer-Encoding: ").append(r.nextInt(4) == 0 ? "gzip, chunked" : "chunked")
                    .append("\r\n");
                if (r.nextBoolean()) {
                    head.append("Content-Length: ").append(bodyLength).append("\r\n");
                    what.add("chunked and Content-Length");
                }
                break;
            case 6:
                head.append("Transfer-Encoding: ")
                    .append(new String[] {"identity", "bogus", "chunked, identity", ""}[r.nextInt(4)]).append("\r\n");
                head.append("Content-Length: ").append(bodyLength).append("\r\n");
                what.add("odd Transfer-Encoding");
                break;
            default:
                head.append("Content-Length: ").append(bodyLength).append("\r\n");
                break;
        }
        return framing;
    }

    /** Appends now and then an odd header: Expect, folded, without a colon, with a NUL, huge, thousands of them. */
    private static void oddHeader(final SplittableRandom r, final StringBuilder head, final List<String> what) {
        switch (r.nextInt(14)) {
            case 0:
                head.append("Expect: ").append(r.nextBoolean() ? "100-continue" : "200-ok").append("\r\n");
                break;
            case 1:
                head.append("X-Folded: a\r\n  continued\r\n");
                what.add("folded header");
                break;
            case 2:
                head.append("NoColonHere\r\n");
                what.add("header without colon");
                break;
            case 3:
                head.append("X-Nul: a\u0000b\r\n");
                what.add("NUL in header");
                break;
            case 4:
                head.append("X-Big: ").append("y".repeat(70_000)).append("\r\n");
                what.add("huge header");
                break;
            case 5:
                for (int k = 0; k < 2000; k++) {
                    head.append("X-").append(k).append(": v\r\n");
                }
                what.add("many headers");
                break;
            case 6:
                head.append("Connection: ")
                    .append(new String[] {"close", "keep-alive", "upgrade", "Upgrade, HTTP2-Settings",
                    "bogus"}[r.nextInt(5)])
                    .append("\r\nUpgrade: h2c\r\n");
                break;
            case 7:
                head.append("Authorization: Bearer \u00ff\u00fe\r\n");
                break;
            case 8:
                head.append(" Leading-Space: x\r\n");
                what.add("header with a leading space");
                break;
            default:
                break;
        }
    }

    /**
     * Writes the body in chunks, right or wrong.
     *
     * @return whether the chunks end the request.
     */
    private static boolean chunkedBody(final SplittableRandom r, final ByteArrayOutputStream bytes, final byte[] body,
                                       final List<String> what) {
        boolean complete = true;
        switch (r.nextInt(6)) {
            case 0:
                bytes.writeBytes(("zz\r\n").getBytes(StandardCharsets.ISO_8859_1));
                what.add("bad chunk size");
                break;
            case 1:
                bytes.writeBytes((Integer.toHexString(body.length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                bytes.writeBytes(body);
                complete = false;
                what.add("no last chunk");
                break;
            case 2:
                bytes.writeBytes(("FFFFFFFFFFFFFFFF\r\n").getBytes(StandardCharsets.ISO_8859_1));
                bytes.writeBytes(body);
                complete = false;
                what.add("huge chunk size");
                break;
            case 3:
                // many one-byte chunks, with extensions
                for (final byte x : body) {
                    bytes.writeBytes("1;ext=1\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    bytes.write(x);
                    bytes.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
                }
                bytes.writeBytes("0\r\nX-Trailer: t\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                break;
            default:
                bytes.writeBytes((Integer.toHexString(body.length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                bytes.writeBytes(body);
                bytes.writeBytes("\r\n0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                break;
        }
        return complete;
    }
}
