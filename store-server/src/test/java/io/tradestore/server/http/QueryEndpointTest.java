package io.tradestore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.tradestore.core.Store;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.TestStores;

/** The real engine over HTTP: each answer equals the embedded API's (statistics aside), and engine errors keep their code and path. */
class QueryEndpointTest {
    @TempDir
    static Path dir;
    private static Store store;
    private static QueryEngine engine;
    private static QueryServer server;
    private static Http http;

    @BeforeAll
    static void start() {
        TestStores.writeTrades(dir, 5000, 11);
        store = Store.open(dir);
        engine = new QueryEngine(store, 2);
        server = QueryServer.start(store, engine::execute, new ServerConfig("127.0.0.1", 0, 2, 16, 1 << 20, 10_000, null), System.err);
        http = new Http(server.port());
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
        store.close();
    }

    static List<String> queries() {
        return List.of(
            "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}",
            "{\"table\":\"trades\",\"groupBy\":[\"side\"],\"aggs\":[{\"name\":\"trades\",\"op\":\"count\"},"
                + "{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*quantity\"}]}",
            "{\"table\":\"trades\",\"groupBy\":[\"instrument\"],\"aggs\":[{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"},"
                + "{\"name\":\"vwap\",\"op\":\"vwap\"}],\"orderBy\":[{\"col\":\"volume\",\"desc\":true}],\"limit\":10}",
            "{\"table\":\"trades\",\"time\":{\"from\":\"2026-11-17T08:00:00Z\",\"to\":\"2026-11-17T08:05:00Z\"},"
                + "\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM007\"},"
                + "\"groupBy\":[{\"bucket\":\"1m\",\"col\":\"ts\",\"as\":\"minute\"}],"
                + "\"aggs\":[{\"name\":\"open\",\"op\":\"first\",\"col\":\"price\"},{\"name\":\"high\",\"op\":\"max\",\"col\":\"price\"},"
                + "{\"name\":\"low\",\"op\":\"min\",\"col\":\"price\"},{\"name\":\"close\",\"op\":\"last\",\"col\":\"price\"},"
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
            final Http.Response get = http.get("/v1/query?q=" + URLEncoder.encode(query, StandardCharsets.UTF_8) + (nanos ? "&epochNanos=true" : ""));
            assertThat(withoutStats(get.json())).isEqualTo(withoutStats(post.json()));
        }
    }

    private static JsonNode withoutStats(final JsonNode answer) {
        final ObjectNode copy = answer.deepCopy();
        assertThat(copy.has("stats")).isTrue();
        copy.remove("stats");
        return copy;
    }

    @Test
    void shouldKeepTheEnginesErrorCodesAndPaths() {
        final Http.Response column = http.post("/v1/query", "{\"table\":\"trades\",\"aggs\":[{\"name\":\"x\",\"op\":\"sum\",\"col\":\"nope\"}]}");
        assertThat(column.status()).isEqualTo(400);
        assertThat(column.errorCode()).isEqualTo("UNKNOWN_COLUMN");
        assertThat(column.json().path("error").path("path").asText()).isEqualTo("/aggs/0/col");
        final Http.Response table = http.post("/v1/query", "{\"table\":\"nosuch\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}");
        assertThat(table.status()).isEqualTo(404);
        assertThat(table.errorCode()).isEqualTo("UNKNOWN_TABLE");
        final Http.Response traversal = http.post("/v1/query", "{\"table\":\"../../etc\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}");
        assertThat(traversal.status()).isIn(400, 404);
        final Http.Response json = http.post("/v1/query", "{\"table\":");
        assertThat(json.status()).isEqualTo(400);
        assertThat(json.errorCode()).isEqualTo("MALFORMED_JSON");
        final Http.Response op = http.post("/v1/query", "{\"table\":\"trades\",\"aggs\":[{\"name\":\"x\",\"op\":\"median\",\"col\":\"price\"}]}");
        assertThat(op.status()).isEqualTo(400);
        assertThat(op.errorCode()).isEqualTo("INVALID_QUERY");
        assertThat(op.json().path("error").path("path").asText()).startsWith("/aggs/0");
    }
}
