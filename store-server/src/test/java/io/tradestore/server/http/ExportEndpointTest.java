package io.tradestore.server.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.LogCapture;
import io.tradestore.server.TestStores;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /v1/tables/{name}/export}: a Parquet file of a time range streamed over real HTTP, read by DuckDB and
 * equal to the engine's answer over the same range; refusals with their codes; a client that goes away mid-stream
 * frees the only worker.
 */
class ExportEndpointTest {
    private static final int ROWS = 400_000;
    @TempDir
    static Path dir;
    private static Store store;
    private static QueryEngine engine;
    private static QueryServer server;
    private static Http http;

    @BeforeAll
    static void start() {
        TestStores.writeTrades(dir.resolve("store"), ROWS, 5);
        store = Store.open(dir.resolve("store"));
        engine = new QueryEngine(store, 1);
        // one worker: an export that kept it after its client left would hold up every query behind it
        server = QueryServer.start(store, engine, new ServerConfig("127.0.0.1", 0, 1, 16, 1 << 20, 10_000, null));
        http = new Http(server.port());
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
        store.close();
    }

    @Test
    void shouldStreamARangeAsParquetThatDuckDbReadsAsTheEngineAnswers() throws Exception {
        final long from = TestStores.START_NS + 3_600_000_000_000L;
        final long to = TestStores.START_NS + 3 * 3_600_000_000_000L + 123;
        final String fromText = Instant.ofEpochSecond(0, from).toString();
        final Path file = dir.resolve("range.parquet");
        final URI uri = URI.create("http://127.0.0.1:" + server.port() + "/v1/tables/trades/export?format=parquet"
            + "&from=" + fromText + "&to=" + to);
        final HttpResponse<Path> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).build(),
            HttpResponse.BodyHandlers.ofFile(file));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue(ExportStreams.PARQUET_TYPE);
        assertThat(r.headers().firstValue("content-disposition")).hasValue("attachment; filename=\"trades.parquet\"");
        final JsonNode engineAnswer = http.post("/v1/query?epochNanos=true", "{\"table\":\"trades\",\"time\":"
            + "{\"from\":" + from
            + ",\"to\":" + to + "},\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"px\",\"op\":\"sum\","
            + "\"col\":\"price\"},{\"name\":\"qty\",\"op\":\"sum\",\"col\":\"quantity\"},{\"name\":\"t0\",\"op\":"
            + "\"min\",\"col\":\"ts\"}]}").json().path("rows").path(0);
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement st = duck.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*), sum(price)::VARCHAR, sum(quantity), "
                 + "epoch_ns(min(ts)) FROM read_parquet('" + file + "')")) {
            rs.next();
            // a row every 100 ms for two hours, and the one at to - 123 ns
            assertThat(rs.getLong(1)).isEqualTo(engineAnswer.get(0).asLong()).isEqualTo(72_001);
            assertThat(rs.getString(2)).isEqualTo(engineAnswer.get(1).asText());
            assertThat(rs.getLong(3)).isEqualTo(engineAnswer.get(2).asLong());
            assertThat(rs.getLong(4)).isEqualTo(engineAnswer.get(3).asLong()).isEqualTo(from);
        }
    }

    @Test
    void shouldRefuseWhatItCannotExport() {
        assertThat(http.get("/v1/tables/nope/export").status()).isEqualTo(404);
        final Http.Response csv = http.get("/v1/tables/trades/export?format=csv");
        assertThat(csv.status()).isEqualTo(400);
        assertThat(csv.body()).contains("format=csv is not one this endpoint writes: parquet");
        assertThat(http.get("/v1/tables/trades/export?from=2026-11-18&to=2026-11-17").body())
            .contains("from must be before to");
        assertThat(http.get("/v1/tables/trades/export?from=yesterday").body()).contains("from=yesterday is not a date");
        assertThat(http.get("/v1/tables/trades/export?timestampUnit=days").status()).isEqualTo(400);
        assertThat(http.post("/v1/tables/trades/export", "").status()).isEqualTo(405);
    }

    @Test
    void shouldFreeTheWorkerWhenTheClientGoesAwayMidStream() throws Exception {
        try (LogCapture log = LogCapture.tradestore()) {
            LeavingClient.leave(server.port(), "GET /v1/tables/trades/export?compression=uncompressed HTTP/1.1", null,
                200_000);
            // the only worker takes this query: it was freed, not held until the stall timeout (a 504 then)
            final Http.Response q = http.post("/v1/query", "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\","
                + "\"op\":\"count\"}]}");
            assertThat(q.status()).isEqualTo(200);
            assertThat(q.json().path("rows").path(0).get(0).asLong()).isEqualTo(ROWS);
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (!log.text().contains("was cut off") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(log.text()).contains("a streamed answer to").contains("was cut off after");
        }
        assertThat(Files.exists(dir)).isTrue();
    }
}
