package io.tradestore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.databind.JsonNode;

import io.tradestore.query.QueryEngine;

/**
 * {@code POST /v1/sql} and {@code GET /v1/sql?q=} on the real engine: the answer is the embedded API's, in the shape
 * of {@code /v1/query} and equal to the JSON twin's; errors carry the line and column in the SQL text.
 */
class SqlEndpointTest {
    private static final String SQL = "SELECT instrument, sum(quantity) AS volume, count(*) AS trades\n"
        + "FROM trades WHERE venue IN ('XLON', 'XPAR') -- two venues\n"
        + "GROUP BY instrument ORDER BY volume DESC LIMIT 10";
    private static final String JSON = "{\"table\":\"trades\",\"filter\":{\"op\":\"in\",\"col\":\"venue\","
        + "\"values\":[\"XLON\",\"XPAR\"]},\"groupBy\":[\"instrument\"],\"aggs\":[{\"name\":\"volume\",\"op\":\"sum\","
        + "\"col\":\"quantity\"},{\"name\":\"trades\",\"op\":\"count\"}],\"orderBy\":[{\"col\":\"volume\","
        + "\"desc\":true}],\"limit\":10}";

    @TempDir
    static Path dir;
    private static ServedEngine served;
    private static QueryEngine engine;
    private static Http http;

    @BeforeAll
    static void start() {
        served = new ServedEngine(dir, 5000, 11);
        engine = served.engine();
        http = served.http();
    }

    @AfterAll
    static void stop() {
        served.close();
    }

    private static Http.Response postSql(final String sql, final String contentType) {
        return http.send(http.builder("/v1/sql").header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofString(sql, StandardCharsets.UTF_8)));
    }

    @Test
    void shouldAnswerAsTheEmbeddedApiAndAsTheJsonTwinInBothForms() throws IOException {
        final ByteArrayOutputStream embedded = new ByteArrayOutputStream();
        engine.executeSql(SQL).writeJson(embedded, false);
        final JsonNode expected = QueryEndpointTest.withoutStats(Http.MAPPER.readTree(embedded.toByteArray()));
        for (final String type : new String[] {"text/plain; charset=utf-8", "application/sql"}) {
            final Http.Response post = postSql(SQL, type);
            assertThat(post.status()).as(post.body()).isEqualTo(200);
            assertThat(post.contentType()).startsWith("application/json");
            assertThat(QueryEndpointTest.withoutStats(post.json())).isEqualTo(expected);
        }
        final Http.Response get = http.get("/v1/sql?q=" + URLEncoder.encode(SQL, StandardCharsets.UTF_8));
        assertThat(QueryEndpointTest.withoutStats(get.json())).isEqualTo(expected);
        assertThat(QueryEndpointTest.withoutStats(http.post("/v1/query", JSON).json())).isEqualTo(expected);
        assertThat(expected.path("rows")).hasSize(10);
    }

    @Test
    void shouldWriteTimestampsAsEpochNanosWhenAsked() {
        final String q = URLEncoder.encode("SELECT min(ts) AS first FROM trades", StandardCharsets.UTF_8);
        assertThat(http.get("/v1/sql?q=" + q + "&epochNanos=true").json().path("rows").get(0).get(0).isNumber())
            .isTrue();
        assertThat(http.get("/v1/sql?q=" + q).json().path("rows").get(0).get(0).isTextual()).isTrue();
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', value = {
        "SELECT count(*) FROM trades WHERE price >|400|MALFORMED_SQL|1|41",
        "SELECT count(*)\\nFROM trades\\nWHERE qty > 1|400|UNKNOWN_COLUMN|3|7",
        "SELECT count(*) FROM nosuch|404|UNKNOWN_TABLE|1|22",
        "SELECT t.venue FROM trades t JOIN trades u ON t.ts = u.ts|400|INVALID_QUERY|1|35",
        "SELECT venue,\\n  sum(instrument) FROM trades GROUP BY venue|400|INVALID_QUERY|2|7",
        "SELECT avg(price) OVER (PARTITION BY venue) FROM trades|400|INVALID_QUERY|1|8",
        "' '|400|MALFORMED_SQL|1|1",
    })
    void shouldAnswerErrorsWithTheirPlaceInTheSqlText(final String sql, final int status, final String code,
        final int line, final int column) {
        final Http.Response r = postSql(sql.replace("\\n", "\n"), "text/plain");
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        final JsonNode error = r.json().path("error");
        assertThat(error.path("code").asText()).isEqualTo(code);
        assertThat(error.path("message").asText()).isNotEmpty().doesNotContain("Exception");
        assertThat(error.path("position").path("line").asInt()).isEqualTo(line);
        assertThat(error.path("position").path("column").asInt()).isEqualTo(column);
        assertThat(error.has("path")).isFalse();
    }

    @Test
    void shouldRefuseABodyThatIsNotTextAndAMissingQuery() {
        final Http.Response binary = http.send(http.builder("/v1/sql").header("Content-Type", "text/plain")
            .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[] {'S', (byte) 0xC3, (byte) 0x28})));
        assertThat(binary.status()).isEqualTo(400);
        assertThat(binary.errorCode()).isEqualTo("MALFORMED_SQL");
        final Http.Response missing = http.get("/v1/sql");
        assertThat(missing.status()).isEqualTo(400);
        assertThat(missing.json().path("error").path("position").path("line").asInt()).isEqualTo(1);
        assertThat(http.send(http.builder("/v1/sql").DELETE()).status()).isEqualTo(405);
    }

    @Test
    void shouldCountSqlRequestsUnderTheirOwnEndpointInTheMetrics() {
        postSql("SELECT count(*) FROM trades", "application/sql");
        assertThat(http.get("/metrics").body())
            .contains("tradestore_http_requests_total{endpoint=\"/v1/sql\",status=\"200\"}");
    }
}
