package io.tradestore.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.StoreException;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;
import io.tradestore.server.LogCapture;
import io.tradestore.server.TestStores;

/**
 * End to end over real HTTP, with a stand-in query service so every status can be provoked on demand (the engine's own
 * answers are compared in {@link QueryEndpointTest}).
 */
class QueryServerTest {
    /** Threads of their own for blocking calls: the common pool may have a single thread on two cores. */
    private static final java.util.concurrent.ExecutorService BLOCKING =
        java.util.concurrent.Executors.newCachedThreadPool(r -> {
        final Thread t = new Thread(r, "test-blocking");
        t.setDaemon(true);
        return t;
    });
    private static final String QUERY = "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";

    @TempDir
    static Path dir;
    private static Store store;
    private static QueryServer server;
    private static Http http;

    @BeforeAll
    static void start() {
        TestStores.writeTrades(dir, 3000, 1);
        store = Store.open(dir);
        final QueryService service = (json, timeoutMs) -> {
            if (json.contains("\"boom\"")) {
                throw new IllegalStateException("a bug with a secret stack trace");
            }
            if (json.contains("\"slow\"")) {
                sleep(3000);
            }
            if (json.contains("\"pause\"")) {
                sleep(300);
            }
            if (json.contains("\"bad\"")) {
                throw new QueryException(ErrorCode.UNKNOWN_COLUMN, "no column 'bad'; columns are [trade_id, ...]",
                    "/aggs/0/col");
            }
            if (json.contains("\"nosuch\"")) {
                throw new QueryException(ErrorCode.UNKNOWN_TABLE, "no table 'nosuch'", "/table");
            }
            return new FixedResult(json.length());
        };
        server = QueryServer.start(store, service, new ServerConfig("127.0.0.1", 0, 2, 8, 4096, 500, null));
        http = new Http(server.port());
    }

    @AfterAll
    static void stop() {
        server.close();
        store.close();
    }

    static void sleep(final long ms) {
        try {
            Thread.sleep(ms);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void shouldAnswerHealth() {
        final Http.Response r = http.get("/health");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().path("status").asText()).isEqualTo("ok");
    }

    @Test
    void shouldListTablesWithRowCounts() {
        final Http.Response r = http.get("/v1/tables");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().path("tables").get(0).path("name").asText()).isEqualTo("trades");
        assertThat(r.json().path("tables").get(0).path("rows").asLong()).isEqualTo(3000);
        assertThat(r.json().path("tables").get(0).path("segments").asLong()).isEqualTo(3);
    }

    @Test
    void shouldDescribeOneTable() {
        final Http.Response r = http.get("/v1/tables/trades");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().path("rows").asLong()).isEqualTo(3000);
        assertThat(r.json().path("timestamp").asText()).isEqualTo("ts");
        assertThat(r.json().path("columns")).hasSize(8);
        assertThat(r.json().path("columns").get(3).path("type").asText()).isEqualTo("symbol");
        assertThat(r.json().path("columns").get(3).path("distinct").asInt()).isEqualTo(TestStores.VENUES.length);
        assertThat(r.json().path("columns").get(6).path("type").asText()).isEqualTo("decimal(6)");
    }

    @Test
    void shouldAnswer404ForUnknownTablesAndNeverLeaveTheStore() {
        for (final String name
            : new String[] {"nosuch", "..", "..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd", "TRADES", "trades%00",
            "a/b"}) {
            final Http.Response r = http.get("/v1/tables/" + name);
            assertThat(r.status()).as(name).isEqualTo(404);
            assertThat(r.errorCode()).as(name).isEqualTo("UNKNOWN_TABLE");
        }
        final Http.Response r = http.get("/nowhere");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.errorCode()).isEqualTo("NOT_FOUND");
    }

    @Test
    void shouldAnswer405ForAWrongMethod() {
        final Http.Response r = http.send(http.builder("/v1/query").DELETE());
        assertThat(r.status()).isEqualTo(405);
        assertThat(r.errorCode()).isEqualTo("METHOD_NOT_ALLOWED");
        assertThat(http.post("/health", "{}").status()).isEqualTo(405);
    }

    /**
     * HEAD on every GET endpoint: GET's status and headers, Content-Length of GET's body, and no body (RFC 9110 9.3.2).
     */
    @Test
    void shouldAnswerHeadAsGetWithoutABody() throws Exception {
        final String query = "/v1/query?q=" + URLEncoder.encode(QUERY, StandardCharsets.UTF_8);
        for (final String path
            : new String[] {"/health", "/v1/tables", "/v1/tables/trades", "/metrics", query, "/v1/tables/nosuch",
            "/nowhere"}) {
            final Http.Response get = http.get(path);
            // HEAD, then a GET on the same connection: the HEAD answer must end at its headers for the next to be read
            final String answer =
                exchange("HEAD " + path
                + " HTTP/1.1\r\nHost: localhost\r\n\r\nGET /health HTTP/1.1\r\nHost: localhost\r\n"
                + "Connection: close\r\n\r\n", false);
            final String head = answer.substring(0, answer.indexOf("\r\n\r\n") + 4);
            assertThat(head).as(path).startsWith("HTTP/1.1 " + get.status() + " ")
                .containsIgnoringCase("content-type: " + get.contentType());
            if (!path.equals("/metrics")) { // the metrics text changes from one request to the next
                assertThat(head).as(path)
                .containsIgnoringCase("content-length: " + get.body().getBytes(StandardCharsets.UTF_8).length + "\r\n");
            }
            assertThat(answer.substring(head.length())).as(path).startsWith("HTTP/1.1 200 ")
                .endsWith("{\"status\":\"ok\"}");
        }
        for (final String path : new String[] {"/health", "/v1/tables", "/metrics"}) {
            final String answer =
                exchange("PUT " + path
                + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", false);
            assertThat(answer).as(path).startsWith("HTTP/1.1 405").containsIgnoringCase("allow: GET, HEAD\r\n");
        }
        // a table is also created with PUT and dropped with DELETE (TableLifecycleEndpointTest)
        assertThat(exchange("POST /v1/tables/trades HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n"
            + "Connection: close\r\n\r\n", false)).startsWith("HTTP/1.1 405")
            .containsIgnoringCase("allow: GET, HEAD, PUT, DELETE\r\n");
        assertThat(exchange(
            "PUT /v1/query HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", false))
            .startsWith("HTTP/1.1 405").containsIgnoringCase("allow: GET, HEAD, POST\r\n");
    }

    @Test
    void shouldAnswerPostAndGetQueries() {
        final Http.Response post = http.post("/v1/query", QUERY);
        assertThat(post.status()).isEqualTo(200);
        assertThat(post.contentType()).startsWith("application/json");
        assertThat(post.json().path("rows").get(0).get(0).asLong()).isEqualTo(QUERY.length());
        final Http.Response get = http.get("/v1/query?q=" + URLEncoder.encode(QUERY, StandardCharsets.UTF_8));
        assertThat(get.status()).isEqualTo(200);
        assertThat(get.body()).isEqualTo(post.body());
    }

    @Test
    void shouldAnswer400WithCodeMessageAndPath() {
        final Http.Response r = http
            .post("/v1/query", "{\"table\":\"trades\",\"aggs\":[{\"name\":\"x\",\"op\":\"sum\",\"col\":\"bad\"}]}");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().path("error").path("code").asText()).isEqualTo("UNKNOWN_COLUMN");
        assertThat(r.json().path("error").path("path").asText()).isEqualTo("/aggs/0/col");
        assertThat(r.json().path("error").path("message").asText()).contains("no column 'bad'");
        assertThat(http.get("/v1/query").status()).isEqualTo(400);
        assertThat(http.post("/v1/query", "").errorCode()).isEqualTo("MALFORMED_JSON");
    }

    @Test
    void shouldAnswer404ForAQueryOnAnUnknownTable() {
        final Http.Response r = http.post("/v1/query", "{\"table\":\"nosuch\"}");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.errorCode()).isEqualTo("UNKNOWN_TABLE");
    }

    @Test
    void shouldAnswer400ForInvalidUtf8() {
        final byte[] body = {'{', '"', 't', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'};
        final Http.Response r = http.post("/v1/query", body);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.errorCode()).isEqualTo("MALFORMED_JSON");
    }

    @Test
    void shouldAnswer413ForABodyOverTheLimit() {
        final Http.Response r = http.post("/v1/query", "{\"table\":\"" + "x".repeat(5000) + "\"}");
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.errorCode()).isEqualTo("PAYLOAD_TOO_LARGE");
        // chunked, without a Content-Length: the limit is enforced while reading
        final Http.Response chunked = http.send(http.builder("/v1/query").POST(HttpRequest.BodyPublishers.ofInputStream(
            () -> new java.io.ByteArrayInputStream(new byte[10_000]))));
        assertThat(chunked.status()).isEqualTo(413);
        final Http.Response get = http.get("/v1/query?q=" + "x".repeat(5000));
        assertThat(get.status()).isEqualTo(413);
        assertThat(http.get("/health").status()).isEqualTo(200);
    }

    @Test
    void shouldAnswer504WhenAQueryRunsOverTheLimit() {
        final long t0 = System.nanoTime();
        final Http.Response r = http.post("/v1/query", "{\"table\":\"slow\"}");
        assertThat(r.status()).isEqualTo(504);
        assertThat(r.errorCode()).isEqualTo("TIMEOUT");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).as("answered at the limit, not at the end")
            .isLessThan(2500);
    }

    @Test
    void shouldAnswer500WithAnIdThatIsLoggedAndNoStackTrace() {
        final Http.Response r;
        final String log;
        try (LogCapture capture = LogCapture.tradestore()) {
            r = http.post("/v1/query", "{\"table\":\"boom\"}");
            log = capture.text();
        }
        assertThat(r.status()).isEqualTo(500);
        assertThat(r.errorCode()).isEqualTo("INTERNAL");
        final String id = r.json().path("error").path("id").asText();
        assertThat(id).isNotBlank();
        assertThat(r.body()).doesNotContain("IllegalStateException").doesNotContain("secret").doesNotContain("at io.");
        assertThat(log).contains("ERROR internal error id=" + id).contains("IllegalStateException");
    }

    @Test
    void shouldCountRequestsByRouteTemplateAndStatus() {
        final String before = http.get("/metrics").body();
        final long answered = server.requestCount();
        http.get("/nope/a");
        http.get("/nope/b");
        http.post("/health", "");
        http.get("/v1/tables/trades");
        http.get("/v1/tables/zzz");
        http.post("/v1/query", "{\"table\":\"nosuch\"}");
        final String after = http.get("/metrics").body();
        assertThat(sample(after, "other", 404) - sample(before, "other", 404)).isEqualTo(2);
        assertThat(sample(after, "/health", 405) - sample(before, "/health", 405)).isEqualTo(1);
        assertThat(sample(after, "/v1/tables/{name}", 200) - sample(before, "/v1/tables/{name}", 200)).isEqualTo(1);
        assertThat(sample(after, "/v1/tables/{name}", 404) - sample(before, "/v1/tables/{name}", 404)).isEqualTo(1);
        assertThat(sample(after, "/v1/query", 404) - sample(before, "/v1/query", 404)).isEqualTo(1);
        // labels are route templates, never raw paths; the scrape before this one counts too
        assertThat(after).doesNotContain("/nope").doesNotContain("zzz");
        assertThat(server.requestCount() - answered).isEqualTo(7);
        assertThat(after).contains("tradestore_http_request_duration_seconds_count{endpoint=\"other\"}");
    }

    /** @return the value of {@code tradestore_http_requests_total} for an endpoint and status, 0 when absent. */
    private static long sample(final String metrics, final String endpoint, final int status) {
        final String name = "tradestore_http_requests_total{endpoint=\"" + endpoint + "\",status=\"" + status + "\"} ";
        for (final String line : metrics.split("\n")) {
            if (line.startsWith(name)) {
                return (long) Double.parseDouble(line.substring(name.length())); // Prometheus values are floats: "3.0"
            }
        }
        return 0;
    }

    @Test
    void shouldExposePrometheusMetrics() {
        http.get("/health");
        http.get("/v1/tables");
        http.post("/v1/query", QUERY);
        final Http.Response r = http.get("/metrics");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.contentType()).startsWith("text/plain");
        assertThat(r.body())
            .containsPattern("tradestore_http_requests_total\\{endpoint=\"/health\",status=\"200\"} [1-9]")
            .containsPattern("tradestore_http_requests_total\\{endpoint=\"/v1/query\",status=\"200\"} [1-9]")
            .contains("tradestore_http_request_duration_lifetime_seconds{endpoint=\"/v1/query\",quantile=\"0.5\"}")
            .contains("tradestore_http_request_duration_lifetime_seconds{endpoint=\"/v1/query\",quantile=\"0.999\"}")
            .contains("tradestore_http_request_duration_max_seconds{endpoint=\"/v1/query\"}")
            .containsPattern("tradestore_rows_scanned_total [1-9]")
            .contains("tradestore_query_queue_depth 0")
            .containsPattern("tradestore_mapped_bytes [1-9]")
            // a service without an engine has no summaries to report
            .doesNotContain("tradestore_summary_bytes");
        // every sample line is "name{labels} value" or "name value"
        for (final String line : r.body().split("\n")) {
            assertThat(line).matches("# (HELP|TYPE) .*|[a-z_]+(\\{[^}]*})? [0-9.eE+-]+");
        }
    }

    @Test
    void shouldRequireABearerTokenWhenConfigured() {
        try (QueryServer secured = QueryServer.start(store, (json, timeoutMs) -> new FixedResult(1),
            new ServerConfig("127.0.0.1", 0, 1, 1, 4096, 1000, "s3cret"))) {
            final Http none = new Http(secured.port());
            assertThat(none.get("/health").status()).isEqualTo(401);
            assertThat(none.get("/health").errorCode()).isEqualTo("UNAUTHORIZED");
            assertThat(new Http(secured.port(), "wrong").get("/v1/tables").status()).isEqualTo(401);
            final Http good = new Http(secured.port(), "s3cret");
            assertThat(good.get("/health").status()).isEqualTo(200);
            assertThat(good.post("/v1/query", QUERY).status()).isEqualTo(200);
            // the scheme is case-insensitive (RFC 9110, 11.1), the token is not ("bearer" once got 401)
            for (final String scheme : new String[] {"bearer", "BEARER", "Bearer"}) {
                assertThat(none.send(none.builder("/health").header("Authorization", scheme + " s3cret").GET())
                    .status()).as(scheme).isEqualTo(200);
            }
            assertThat(none.send(none.builder("/health").header("Authorization", "Bearer S3CRET").GET()).status())
                .isEqualTo(401);
            assertThat(none.send(none.builder("/health").header("Authorization", "Basic s3cret").GET()).status())
                .isEqualTo(401);
        }
    }

    /**
     * A path that starts with two slashes is a path, named in the 404 (it read as an authority, and the message named
     * "").
     */
    @Test
    void shouldNameAPathStartingWithTwoSlashesInItsNotFound() throws Exception {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port())) {
            s.getOutputStream()
                .write("GET //health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".getBytes(
                StandardCharsets.UTF_8));
            final String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answer).startsWith("HTTP/1.1 404").contains("no endpoint //health;");
        }
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port())) {
            s.getOutputStream()
                .write("GET /health#x HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".getBytes(
                StandardCharsets.UTF_8));
            final String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answer).startsWith("HTTP/1.1 400").contains("MALFORMED_REQUEST").contains("no fragment");
        }
        assertThat(http.get("/health?x=1").status()).isEqualTo(200);
    }

    @Test
    void shouldRefuseANonLoopbackAddressWithoutAToken() {
        assertThatThrownBy(() -> new ServerConfig("0.0.0.0", 0, 1, 1, 4096, 1000, null))
            .isInstanceOf(StoreException.class).hasMessageContaining("--token");
        assertThat(new ServerConfig("0.0.0.0", 0, 1, 1, 4096, 1000, "t").token()).isEqualTo("t");
        assertThatThrownBy(() -> new ServerConfig("127.0.0.1", 0, 0, 1, 4096, 1000, null))
            .hasMessageContaining("threads");
    }

    @Test
    void shouldFinishInFlightQueriesWhenStopping() throws Exception {
        final CountDownLatch running = new CountDownLatch(1);
        final Store own = Store.open(dir);
        final QueryServer s = QueryServer.start(own, (json, timeoutMs) -> {
            running.countDown();
            sleep(300);
            return new FixedResult(7);
        }, new ServerConfig("127.0.0.1", 0, 1, 1, 4096, 5000, null));
        final Http h = new Http(s.port());
        final CompletableFuture<Http.Response> inFlight =
            CompletableFuture.supplyAsync(() -> h.post("/v1/query", QUERY), BLOCKING);
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
        final long t0 = System.nanoTime();
        s.stop(Duration.ofSeconds(5));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(4000);
        assertThat(inFlight.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThatThrownBy(() -> h.get("/health")).hasCauseInstanceOf(ConnectException.class);
        own.close();
    }

    @Test
    void shouldAnswer400ForBadPercentEncodingInTheRequestLine() throws Exception {
        for (final String line : new String[] {"GET /v1/query?q=%zz HTTP/1.1", "POST /v1/query?epochNanos=%zz HTTP/1.1",
            "GET /v1/query?q=%7B&epochNanos=%G1 HTTP/1.1"}) {
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port())) {
                final String body = line.startsWith("POST") ? QUERY : "";
                s.getOutputStream()
                    .write((line + "\r\nHost: localhost\r\nContent-Length: " + body.length()
                    + "\r\nConnection: close\r\n\r\n" + body)
                    .getBytes(StandardCharsets.UTF_8));
                final String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(answer).as(line).startsWith("HTTP/1.1 400").contains("\"code\":\"MALFORMED_REQUEST\"")
                    .contains("not a valid URI");
            }
        }
        // a request line that is not HTTP at all: the JSON error too, then the connection closes
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port())) {
            s.getOutputStream().write("\u0001\u0002 garbage\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            final String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answer).startsWith("HTTP/1.1 400").contains("\"code\":\"MALFORMED_REQUEST\"");
        }
        assertThat(http.get("/health").status()).isEqualTo(200);
    }

    @Test
    void shouldAnswerPipelinedRequestsInTheirOrder() throws Exception {
        // the first query takes 300 ms on a worker: the two requests behind it must not overtake it
        final String pause = "{\"table\":\"pause\"}";
        final String requests = "POST /v1/query HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + pause.length()
            + "\r\n\r\n" + pause
            + "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"
            + "POST /v1/query HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: " + QUERY.length()
            + "\r\n\r\n" + QUERY;
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port())) {
            s.getOutputStream().write(requests.getBytes(StandardCharsets.UTF_8));
            final String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            final int second = answer.indexOf("HTTP/1.1 200", 1);
            final int third = answer.indexOf("HTTP/1.1 200", second + 1);
            assertThat(answer).startsWith("HTTP/1.1 200");
            assertThat(second).as(answer).isPositive();
            assertThat(third).as(answer).isGreaterThan(second);
            // the stand-in answers a query with the length of its text: the pause query first, the count query last
            assertThat(answer.substring(0, second)).contains("\"rows\":[[" + pause.length() + "]]");
            assertThat(answer.substring(second, third)).contains("{\"status\":\"ok\"}");
            assertThat(answer.substring(third)).contains("\"rows\":[[" + QUERY.length() + "]]");
        }
    }

    private static String exchange(final String requests, final boolean halfClose) throws Exception {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write(requests.getBytes(StandardCharsets.ISO_8859_1));
            if (halfClose) {
                s.shutdownOutput();
            }
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static int count(final String text, final String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    @Test
    void shouldAnswerHundredsOfPipelinedRequestsInOrder() throws Exception {
        // more than Netty's default pipelining depth (128) and than the server's own read-ahead (64)
        final StringBuilder requests = new StringBuilder();
        for (int i = 0; i < 300; i++) {
            final String q = "{\"table\":\"trades\",\"n\":" + "x".repeat(i % 7) + "1}";
            requests.append("POST /v1/query HTTP/1.1\r\nHost: localhost\r\nContent-Length: ").append(q.length())
                .append("\r\n\r\n").append(q);
        }
        requests.append("GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        final String answer = exchange(requests.toString(), false);
        assertThat(count(answer, "HTTP/1.1 200")).isEqualTo(301);
        // each answer is its own query's (the stand-in answers with the length of the query text), in request order
        int at = 0;
        for (int i = 0; i < 300; i++) {
            final int length = ("{\"table\":\"trades\",\"n\":" + "x".repeat(i % 7) + "1}").length();
            at = answer.indexOf("\"rows\":[[", at);
            assertThat(answer.substring(at + 9, answer.indexOf(']', at))).as("answer %d", i)
                .isEqualTo(Integer.toString(length));
            at++;
        }
        assertThat(answer.substring(at)).contains("{\"status\":\"ok\"}");
    }

    @Test
    void shouldAnswerAClientThatHalfClosesAfterItsRequest() throws Exception {
        final String answer =
            exchange("POST /v1/query HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + QUERY.length() + "\r\n\r\n"
            + QUERY, true);
        assertThat(answer).startsWith("HTTP/1.1 200").contains("\"rows\":[[" + QUERY.length() + "]]");
        final String old =
            exchange("POST /v1/query HTTP/1.0\r\nContent-Length: " + QUERY.length() + "\r\n\r\n" + QUERY, true);
        assertThat(old).startsWith("HTTP/1.1 200").contains("\"rows\":[[" + QUERY.length() + "]]");
    }

    @Test
    void shouldAnswerExpectationsInJson() throws Exception {
        // over the limit: no 100 Continue, the JSON 413 at once, then the connection closes
        final String big =
            exchange("POST /v1/query HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\nContent-Length: "
            + "100000\r\n\r\n", false);
        assertThat(big).startsWith("HTTP/1.1 413").contains("\"code\":\"PAYLOAD_TOO_LARGE\"")
            .doesNotContain("100 Continue");
        // within the limit: 100 Continue, then the answer
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(20_000);
            s.getOutputStream()
                .write(("POST /v1/query HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\nConnection: "
                + "close\r\nContent-Length: "
                + QUERY.length() + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            final byte[] interim = new byte[25];
            assertThat(new String(interim, 0, s.getInputStream().readNBytes(interim, 0, interim.length),
                StandardCharsets.ISO_8859_1))
                .startsWith("HTTP/1.1 100 Continue");
            s.getOutputStream().write(QUERY.getBytes(StandardCharsets.UTF_8));
            assertThat(new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).contains("HTTP/1.1 200")
                .contains("\"rows\":[[");
        }
        // an expectation the server does not know is ignored
        final String odd =
            exchange("POST /v1/query HTTP/1.1\r\nHost: localhost\r\nExpect: something\r\nConnection: "
            + "close\r\nContent-Length: "
            + QUERY.length() + "\r\n\r\n" + QUERY, false);
        assertThat(odd).startsWith("HTTP/1.1 200");
    }

    @Test
    void shouldAnswer413ForAQueryStringOverTheRequestLineLimit() throws Exception {
        // the request line may be 3 x 4,096 + 1,024 bytes: a longer q= is refused while the line is read
        final String answer =
            exchange("GET /v1/query?q=" + "x".repeat(20_000) + " HTTP/1.1\r\nHost: localhost\r\n\r\n", false);
        assertThat(answer).startsWith("HTTP/1.1 413").contains("\"code\":\"PAYLOAD_TOO_LARGE\"");
    }
}
