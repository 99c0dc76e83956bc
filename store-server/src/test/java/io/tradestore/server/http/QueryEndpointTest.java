package io.tradestore.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryException;
import io.tradestore.query.JsonBodyCheck;

/**
 * The real engine over HTTP: each answer equals the embedded API's (statistics aside), and engine errors keep their
 * code and path.
 */
class QueryEndpointTest {
    @TempDir
    static Path dir;
    private static ServedEngine served;
    private static QueryEngine engine;
    private static QueryServer server;
    private static Http http;

    @BeforeAll
    static void start() {
        served = new ServedEngine(dir, 5000, 11);
        engine = served.engine();
        server = served.server();
        http = served.http();
    }

    @AfterAll
    static void stop() {
        served.close();
    }

    static List<String> queries() {
        return List.of(
            "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}",
            "{\"table\":\"trades\",\"groupBy\":[\"side\"],\"aggs\":[{\"name\":\"trades\",\"op\":\"count\"},"
                + "{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*quantity\"}]}",
            "{\"table\":\"trades\",\"groupBy\":[\"instrument\"],\"aggs\":[{\"name\":\"volume\",\"op\":\"sum\",\"col\":"
            + "\"quantity\"},"
                + "{\"name\":\"vwap\",\"op\":\"vwap\"}],\"orderBy\":[{\"col\":\"volume\",\"desc\":true}],\"limit\":10}",
            "{\"table\":\"trades\",\"time\":{\"from\":\"2026-11-17T08:00:00Z\",\"to\":\"2026-11-17T08:05:00Z\"},"
                + "\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM007\"},"
                + "\"groupBy\":[{\"bucket\":\"1m\",\"col\":\"ts\",\"as\":\"minute\"}],"
                + "\"aggs\":[{\"name\":\"open\",\"op\":\"first\",\"col\":\"price\"},{\"name\":\"high\",\"op\":\"max\","
                + "\"col\":\"price\"},"
                + "{\"name\":\"low\",\"op\":\"min\",\"col\":\"price\"},{\"name\":\"close\",\"op\":\"last\",\"col\":\"p"
                + "rice\"},"
                + "{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"}],\"orderBy\":[{\"col\":\"minute\"}]}",
            "{\"table\":\"trades\",\"columns\":[\"trade_id\",\"ts\",\"venue\",\"side\",\"price\"],"
                + "\"filter\":{\"op\":\"in\",\"col\":\"venue\",\"values\":[\"XLON\",\"XPAR\"]},"
                + "\"orderBy\":[{\"col\":\"price\",\"desc\":true}],\"limit\":7}",
            "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"client_id\",\"value\":42},"
                + "\"aggs\":[{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"},"
                + "{\"name\":\"p99\",\"op\":\"percentile\",\"col\":\"quantity\",\"p\":99}]}");
    }

    @ParameterizedTest
    @MethodSource("queries")
    void shouldAnswerOverHttpExactlyAsTheEmbeddedApi(final String query) throws IOException {
        for (final boolean nanos : new boolean[] {false, true}) {
            final Http.Response post = http.post("/v1/query" + (nanos ? "?epochNanos=true" : ""), query);
            assertThat(post.status()).as(post.body()).isEqualTo(200);
            final ByteArrayOutputStream embedded = new ByteArrayOutputStream();
            engine.execute(query).writeJson(embedded, nanos);
            assertThat(withoutStats(post.json())).isEqualTo(withoutStats(Http.MAPPER.readTree(embedded.toByteArray())));
            final Http.Response get = http
                .get("/v1/query?q=" + URLEncoder.encode(query, StandardCharsets.UTF_8)
                + (nanos ? "&epochNanos=true" : ""));
            assertThat(withoutStats(get.json())).isEqualTo(withoutStats(post.json()));
        }
    }

    /** @param answer a query answer. @return it without its {@code stats}, which vary from run to run. */
    static JsonNode withoutStats(final JsonNode answer) {
        final ObjectNode copy = answer.deepCopy();
        assertThat(copy.has("stats")).isTrue();
        copy.remove("stats");
        return copy;
    }

    @Test
    void shouldKeepTheEnginesErrorCodesAndPaths() {
        final Http.Response column = http
            .post("/v1/query", "{\"table\":\"trades\",\"aggs\":[{\"name\":\"x\",\"op\":\"sum\",\"col\":\"nope\"}]}");
        assertThat(column.status()).isEqualTo(400);
        assertThat(column.errorCode()).isEqualTo("UNKNOWN_COLUMN");
        assertThat(column.json().path("error").path("path").asText()).isEqualTo("/aggs/0/col");
        final Http.Response table = http
            .post("/v1/query", "{\"table\":\"nosuch\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}");
        assertThat(table.status()).isEqualTo(404);
        assertThat(table.errorCode()).isEqualTo("UNKNOWN_TABLE");
        final Http.Response traversal = http
            .post("/v1/query", "{\"table\":\"../../etc\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}");
        assertThat(traversal.status()).isIn(400, 404);
        final Http.Response json = http.post("/v1/query", "{\"table\":");
        assertThat(json.status()).isEqualTo(400);
        assertThat(json.errorCode()).isEqualTo("MALFORMED_JSON");
        final Http.Response op = http
            .post("/v1/query",
            "{\"table\":\"trades\",\"aggs\":[{\"name\":\"x\",\"op\":\"median\",\"col\":\"price\"}]}");
        assertThat(op.status()).isEqualTo(400);
        assertThat(op.errorCode()).isEqualTo("INVALID_QUERY");
        assertThat(op.json().path("error").path("path").asText()).startsWith("/aggs/0");
    }

    /** The epochNanos parameter takes exactly true or false, and refuses anything else as the body's option does. */
    @Test
    void shouldAcceptOnlyTrueOrFalseForTheEpochNanosParameter() {
        final String query = "{\"table\":\"trades\",\"aggs\":[{\"name\":\"first\",\"op\":\"min\",\"col\":\"ts\"}]}";
        final String get = "/v1/query?q=" + URLEncoder.encode(query, StandardCharsets.UTF_8) + "&epochNanos=";
        assertThat(http.post("/v1/query?epochNanos=true", query).json().path("rows").get(0).get(0).isNumber()).isTrue();
        assertThat(http.get(get + "true").json().path("rows").get(0).get(0).isNumber()).isTrue();
        assertThat(http.post("/v1/query?epochNanos=false", query).json().path("rows").get(0).get(0).isTextual())
            .isTrue();
        assertThat(http.get(get + "false").json().path("rows").get(0).get(0).isTextual()).isTrue();
        final Http.Response inBody = http
            .post("/v1/query", query.replace("}]}", "}],\"options\":{\"epochNanos\":\"yes\"}}"));
        assertThat(inBody.status()).as(inBody.body()).isEqualTo(400);
        final String message = inBody.json().path("error").path("message").asText();
        for (final String bad : new String[] {"yes", "1", "TRUE", "True", "", "false%20"}) {
            for (final Http.Response r
                : new Http.Response[] {http.post("/v1/query?epochNanos=" + bad, query), http.get(get + bad)}) {
                assertThat(r.status()).as(bad + ": " + r.body()).isEqualTo(400);
                assertThat(r.errorCode()).as(bad).isEqualTo(inBody.errorCode());
                assertThat(r.json().path("error").path("message").asText()).as(bad).isEqualTo(message);
            }
        }
    }

    /** A result column named with 2-, 3- and 4-byte UTF-8 characters (é, €, an emoji): the name comes back as sent. */
    private static final String WIDE_NAME = "n\u00e9\u20ac\uD83D\uDE00";
    private static final String WIDE_QUERY = "{\"table\":\"trades\",\"aggs\":[{\"name\":\"" + WIDE_NAME
        + "\",\"op\":\"count\"}]}";

    /** /metrics reports the engine's summary cache: the same figures the engine's indexes hold. */
    @Test
    void shouldReportTheEnginesSummariesInMetrics() {
        // summaries for segments of any size (this table's are small), built on first use
        engine.indexes().minSegmentRows(1);
        engine.indexes().bucketSummaryAfter(1);
        for (final String q : queries()) {
            assertThat(http.post("/v1/query", q).status()).isEqualTo(200);
        }
        assertThat(engine.indexes().summaryBuilds()).as("the client query folded summaries").isPositive();
        final String body = http.get("/metrics").body();
        assertThat(metric(body, "tradestore_summary_bytes")).isEqualTo(engine.indexes().summaryBytes());
        assertThat(metric(body, "tradestore_summary_builds_total"))
            .isEqualTo(engine.indexes().summaryBuilds() + engine.indexes().bucketSummaryBuilds());
        assertThat(metric(body, "tradestore_summary_evictions_total")).isEqualTo(engine.indexes().summaryEvictions());
    }

    private static long metric(final String body, final String name) {
        for (final String line : body.split("\n")) {
            if (line.startsWith(name + " ")) {
                // Prometheus values are floats: "3.0"
                return (long) Double.parseDouble(line.substring(name.length() + 1).trim());
            }
        }
        throw new AssertionError("no " + name + " in /metrics:\n" + body);
    }

    /**
     * A body starting with a UTF-8 byte order mark (as Windows editors save files and curl sends them) is the query
     * after it; a mark anywhere else is not JSON.
     */
    @Test
    void shouldAcceptAUtf8ByteOrderMarkAtTheStartOfABodyOnly() {
        final String query = queries().get(1);
        final Http.Response plain = http.post("/v1/query", query);
        assertThat(plain.status()).as(plain.body()).isEqualTo(200);
        final Http.Response marked = http.post("/v1/query", "\uFEFF" + query);
        assertThat(marked.status()).as(marked.body()).isEqualTo(200);
        assertThat(withoutStats(marked.json())).isEqualTo(withoutStats(plain.json()));
        final Http.Response get = http
            .get("/v1/query?q=" + URLEncoder.encode("\uFEFF" + query, StandardCharsets.UTF_8));
        assertThat(get.status()).as(get.body()).isEqualTo(200);
        assertThat(withoutStats(get.json())).isEqualTo(withoutStats(plain.json()));
        for (final String bad
            : new String[] {"\uFEFF\uFEFF" + query, " \uFEFF" + query, query.replace(",\"aggs\"", ",\uFEFF\"aggs\""),
            query + "\uFEFF", "\uFEFF"}) {
            final Http.Response r = http.post("/v1/query", bad);
            assertThat(r.status()).as(bad).isEqualTo(400);
            assertThat(r.errorCode()).as(bad).isEqualTo("MALFORMED_JSON");
        }
    }

    @Test
    void shouldParseAPostBodyWithMultiByteUtf8() {
        final Http.Response post = http.post("/v1/query", WIDE_QUERY);
        assertThat(post.status()).as(post.body()).isEqualTo(200);
        assertThat(post.json().path("columns").path(0).path("name").asText()).isEqualTo(WIDE_NAME);
        assertThat(post.json().path("rows").path(0).path(0).asLong()).isEqualTo(5000);
    }

    @Test
    void shouldParseAPostBodySplitInsideItsCharactersAcrossChunksAndWrites() throws Exception {
        final byte[] body = WIDE_QUERY.getBytes(StandardCharsets.UTF_8);
        final String text = new String(body, StandardCharsets.ISO_8859_1);
        // cut after the first byte of é, after the second byte of € and after the third byte of the emoji
        final int[] cuts =
            {text.indexOf('\u00c3') + 1, text.indexOf('\u00e2') + 2, text.indexOf('\u00f0') + 3, body.length};
        // chunked: each HTTP chunk becomes its own part of the assembled body, so the parser reads across parts
        final ByteArrayOutputStream chunked = new ByteArrayOutputStream();
        final byte[][] writes = new byte[cuts.length + 2][];
        writes[0] = "POST /v1/query HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(
            StandardCharsets.ISO_8859_1);
        for (int i = 0, from = 0; i < cuts.length; from = cuts[i++]) {
            chunked.reset();
            chunked.write((Integer.toHexString(cuts[i] - from) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            chunked.write(body, from, cuts[i] - from);
            chunked.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
            writes[i + 1] = chunked.toByteArray();
        }
        writes[cuts.length + 1] = "0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
        assertWideAnswer(send(writes));
        // a Content-Length body written in pieces cut at the same places (one TCP segment each, as far as the stack
        // allows)
        final byte[][] pieces = new byte[cuts.length + 1][];
        pieces[0] = ("POST /v1/query HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + body.length + "\r\n\r\n")
            .getBytes(StandardCharsets.ISO_8859_1);
        for (int i = 0, from = 0; i < cuts.length; from = cuts[i++]) {
            pieces[i + 1] = java.util.Arrays.copyOfRange(body, from, cuts[i]);
        }
        assertWideAnswer(send(pieces));
    }

    private static void assertWideAnswer(final String answer) throws IOException {
        assertThat(answer).startsWith("HTTP/1.1 200");
        final JsonNode json = Http.MAPPER.readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4));
        assertThat(json.path("columns").path(0).path("name").asText()).isEqualTo(WIDE_NAME);
        assertThat(json.path("rows").path(0).path(0).asLong()).isEqualTo(5000);
    }

    /** Writes each part on its own (no Nagle delay), then reads the one answer; the server closes after it. */
    private static String send(final byte[][] parts) throws IOException {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(20_000);
            s.setTcpNoDelay(true);
            for (final byte[] part : parts) {
                s.getOutputStream().write(part);
                s.getOutputStream().flush();
            }
            s.shutdownOutput();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void shouldRefuseABodyThatIsNotUtf8Json() {
        // UTF-16 and UTF-32 of a valid query: Jackson alone would detect and accept them from NUL bytes among the first
        // four
        final String query = queries().get(0);
        for (final String charset : new String[] {"UTF-16LE", "UTF-16BE", "UTF-32LE", "UTF-32BE"}) {
            final Http.Response wide = http
                .post("/v1/query", query.getBytes(java.nio.charset.Charset.forName(charset)));
            assertThat(wide.status()).as(charset).isEqualTo(400);
            assertThat(wide.errorCode()).as(charset).isEqualTo("MALFORMED_JSON");
        }
        // a NUL further on is no JSON either: in a string, between tokens, after the query
        for (final String nul
            : new String[] {query.replace("\"n\"", "\"n\u0000\""), query.replace(",", ",\u0000"), query + "\u0000",
            "{\u0000}"}) {
            final Http.Response r = http.post("/v1/query", nul);
            assertThat(r.status()).as(nul).isEqualTo(400);
            assertThat(r.errorCode()).as(nul).isEqualTo("MALFORMED_JSON");
        }
        // an encoded surrogate (CESU-8) and an overlong '/' are not UTF-8 either
        for (final byte[] bad : new byte[][] {{(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xC0, (byte) 0xAF}}) {
            final ByteArrayOutputStream body = new ByteArrayOutputStream();
            body.writeBytes("{\"table\":\"".getBytes(StandardCharsets.UTF_8));
            body.writeBytes(bad);
            body.writeBytes("\"}".getBytes(StandardCharsets.UTF_8));
            final Http.Response r = http.post("/v1/query", body.toByteArray());
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.json().path("error").path("message").asText()).contains("not valid UTF-8");
        }
        final Http.Response blank = http.post("/v1/query", " \r\n\t ");
        assertThat(blank.status()).isEqualTo(400);
        assertThat(blank.json().path("error").path("message").asText()).contains("the query is empty");
    }

    /**
     * A body the server refuses for its bytes gets the error the embedded API gives the same bytes: code, message and
     * path.
     */
    @Test
    void shouldRefuseABodyForItsBytesWithTheEmbeddedApisError() {
        final byte[] query = queries().get(0).getBytes(StandardCharsets.UTF_8);
        final byte[][] bodies = {
            queries().get(0).getBytes(StandardCharsets.UTF_16LE),
            queries().get(0).getBytes(java.nio.charset.Charset.forName("UTF-32BE")),
            concat(query, new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}),
            concat("{{".getBytes(StandardCharsets.UTF_8), new byte[] {(byte) 0xC0, (byte) 0xAF}),
            concat(new byte[] {0}, query, new byte[] {(byte) 0xE2, (byte) 0x82}),
        };
        for (final byte[] body : bodies) {
            final String what = java.util.HexFormat.of().formatHex(body, 0, Math.min(body.length, 8));
            final Http.Response r = http.post("/v1/query", body);
            final QueryException embedded = catchThrowableOfType(QueryException.class,
                () -> engine.execute(new ByteArrayInputStream(body), 10_000));
            assertThat(embedded).as(what).isNotNull();
            assertThat(r.status()).as(what).isEqualTo(embedded.code().httpStatus()).isEqualTo(400);
            assertThat(r.errorCode()).as(what).isEqualTo(embedded.code().name());
            assertThat(r.json().path("error").path("message").asText()).as(what).isEqualTo(embedded.getMessage())
                .matches(m -> m.startsWith(JsonBodyCheck.NOT_UTF8 + " at byte ") || m
                .equals(JsonBodyCheck.NUL_AT_START));
            assertThat(r.json().path("error").path("path").asText()).as(what).isEqualTo(embedded.path()).isEmpty();
        }
    }

    /** The shared check refuses exactly the bodies Netty's strict UTF-8 check refused before the server used it. */
    @Test
    void shouldRefuseExactlyWhatNettysUtf8CheckRefuses() {
        final SplittableRandom rnd = new SplittableRandom(23);
        final int[] edges =
            {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEE, 0xEF,
            0xF0,
            0xF1, 0xF4, 0xF5, 0xF8, 0xFF};
        for (int it = 0; it < 100_000; it++) {
            final byte[] b = new byte[1 + rnd.nextInt(7)];
            for (int i = 0; i < b.length; i++) {
                b[i] = (byte) (rnd.nextInt(4) == 0 ? rnd.nextInt(256) : edges[rnd.nextInt(edges.length)]);
            }
            final JsonBodyCheck check = new JsonBodyCheck();
            Unpooled.wrappedBuffer(b).forEachByte(check::accept);
            final QueryException problem = check.problem();
            final boolean nettyUtf8 = ByteBufUtil.isText(Unpooled.wrappedBuffer(b), StandardCharsets.UTF_8);
            assertThat(problem != null && problem.getMessage().startsWith(JsonBodyCheck.NOT_UTF8))
                .as(java.util.HexFormat.of().formatHex(b))
                .isEqualTo(!nettyUtf8);
        }
    }

    private static byte[] concat(final byte[]... parts) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (final byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
