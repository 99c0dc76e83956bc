package io.tradestore.server.http;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.TimeStampNanoTZVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableReader;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.Timestamps;
import io.tradestore.server.LogCapture;
import io.tradestore.server.TestStores;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Query answers streamed as CSV and as an Arrow IPC stream over real HTTP: a 5,000,000-row scan (five times the cap of
 * a JSON answer) read by a client row by row equals the table; SQL with OFFSET and an aggregate equal their JSON
 * answers; the format is chosen by parameter or Accept header; a client that leaves frees the only worker.
 */
class StreamedResultsTest {
    private static final int ROWS = 5_000_000;
    private static final String ALL = "{\"table\":\"trades\",\"columns\":[\"trade_id\",\"ts\",\"client_id\",\"venue\","
        + "\"instrument\",\"side\",\"price\",\"quantity\"]}";
    @TempDir
    static Path dir;
    private static Store store;
    private static QueryEngine engine;
    private static QueryServer server;
    private static Http http;
    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    /** Decimals read as written, not through a double. */
    private static final ObjectMapper EXACT = JsonMapper.builder()
        .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
        .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES).build();

    @BeforeAll
    static void start() {
        TestStores.writeTrades(dir, TradesSchema.SCHEMA.with("trades", Layout.COLUMN, 1 << 20, 1 << 16), ROWS, 3);
        store = Store.open(dir);
        engine = new QueryEngine(store, 1);
        // one worker, as in the disconnect test; a stream must finish within the request timeout, long enough here for
        // 5M rows on a busy machine
        server = QueryServer.start(store, engine, new ServerConfig("127.0.0.1", 0, 1, 16, 1 << 20, 120_000, null));
        http = new Http(server.port());
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
        store.close();
    }

    private static HttpResponse<InputStream> post(final String path, final String body, final String accept)
        throws Exception {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
            .POST(HttpRequest.BodyPublishers.ofString(body));
        if (accept != null) {
            b.header("Accept", accept);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
    }

    @Test
    void shouldStreamFiveMillionRowsAsCsvEqualToTheTable() throws Exception {
        final HttpResponse<InputStream> r = post("/v1/query?format=csv", ALL, null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue(CsvRows.TYPE);
        long rows = 0;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8));
             TableReader reader = store.table("trades").reader()) {
            assertThat(in.readLine()).isEqualTo("trade_id,ts,client_id,venue,instrument,side,price,quantity");
            final TradeFlyweight t = new TradeFlyweight().bind(reader.snapshot());
            String line;
            while ((line = in.readLine()) != null) {
                assertThat(t.next()).isTrue();
                final String expected = t.tradeId() + "," + Timestamps.iso(t.ts()) + "," + t.clientId() + ","
                    + t.venueValue() + "," + t.instrumentValue() + "," + t.side() + ","
                    + BigDecimal.valueOf(t.price(), 6).toPlainString() + "," + t.quantity();
                if (!line.equals(expected)) {
                    assertThat(line).as("row %d", rows).isEqualTo(expected);
                }
                rows++;
            }
            assertThat(t.next()).isFalse();
        }
        assertThat(rows).isEqualTo(ROWS);
    }

    @Test
    void shouldStreamFiveMillionRowsAsArrowEqualToTheTable() throws Exception {
        final HttpResponse<InputStream> r = post("/v1/query", ALL, ArrowRows.TYPE);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue(ArrowRows.TYPE);
        long rows = 0;
        int batches = 0;
        try (RootAllocator allocator = new RootAllocator();
             ArrowStreamReader in = new ArrowStreamReader(r.body(), allocator);
             TableReader reader = store.table("trades").reader()) {
            final VectorSchemaRoot root = in.getVectorSchemaRoot();
            assertThat(root.getSchema().toString()).isEqualTo("Schema<trade_id: Int(64, true), ts: Timestamp("
                + "NANOSECOND, UTC), client_id: Int(64, true), venue: Utf8, instrument: Utf8, side: Utf8, price: "
                + "Decimal(38, 6, 128), quantity: Int(64, true)>");
            final TradeFlyweight t = new TradeFlyweight().bind(reader.snapshot());
            while (in.loadNextBatch()) {
                batches++;
                final BigIntVector id = (BigIntVector) root.getVector(0);
                final TimeStampNanoTZVector ts = (TimeStampNanoTZVector) root.getVector(1);
                final VarCharVector instrument = (VarCharVector) root.getVector(4);
                final DecimalVector price = (DecimalVector) root.getVector(6);
                final BigIntVector qty = (BigIntVector) root.getVector(7);
                for (int i = 0; i < root.getRowCount(); i++) {
                    assertThat(t.next()).isTrue();
                    if (id.get(i) != t.tradeId() || ts.get(i) != t.ts() || qty.get(i) != t.quantity()
                        || price.getObject(i).unscaledValue().longValueExact() != t.price()
                        || !new String(instrument.get(i), StandardCharsets.UTF_8).equals(t.instrumentValue())) {
                        assertThat(id.get(i)).as("row %d", rows + i).isEqualTo(-1);
                    }
                }
                rows += root.getRowCount();
            }
            assertThat(t.next()).isFalse();
        }
        assertThat(rows).isEqualTo(ROWS);
        assertThat(batches).isGreaterThan(1000);
    }

    @Test
    void shouldAnswerSqlAndAggregatesAsTheirJsonAnswers() throws Exception {
        final String sql = "SELECT instrument, count(*) AS n, sum(price * quantity) AS notional FROM trades "
            + "GROUP BY instrument ORDER BY instrument LIMIT 10 OFFSET 5";
        final JsonNode json = EXACT.readTree(http.get("/v1/sql?q=" + URLEncoder.encode(sql, StandardCharsets.UTF_8))
            .body());
        final HttpResponse<InputStream> r = post("/v1/sql", sql, "text/csv");
        assertThat(r.statusCode()).isEqualTo(200);
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            assertThat(in.readLine()).isEqualTo("instrument,n,notional");
            for (final JsonNode row : json.path("rows")) {
                assertThat(in.readLine()).isEqualTo(row.get(0).asText() + "," + row.get(1).asText() + ","
                    + row.get(2).decimalValue().toPlainString());
            }
            assertThat(in.readLine()).isNull();
        }
        final String scan = "SELECT trade_id, side FROM trades WHERE venue = 'XLON' LIMIT 3 OFFSET 100000";
        final JsonNode scanJson = http.get("/v1/sql?q=" + URLEncoder.encode(scan, StandardCharsets.UTF_8)).json();
        final HttpResponse<InputStream> s = post("/v1/sql?format=csv", scan, null);
        try (BufferedReader in = new BufferedReader(new InputStreamReader(s.body(), StandardCharsets.UTF_8))) {
            assertThat(in.readLine()).isEqualTo("trade_id,side");
            for (final JsonNode row : scanJson.path("rows")) {
                assertThat(in.readLine()).isEqualTo(row.get(0).asText() + "," + row.get(1).asText());
            }
            assertThat(in.readLine()).isNull();
        }
        final Http.Response bad = http.post("/v1/query?format=xml", ALL);
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.body()).contains("format=xml is not one of json, csv, arrow");
        final Http.Response error = http.post("/v1/query?format=csv", "{\"table\":\"nope\",\"columns\":[\"ts\"]}");
        assertThat(error.status()).isEqualTo(404);
        assertThat(error.errorCode()).isEqualTo("UNKNOWN_TABLE");
    }

    @Test
    void shouldFreeTheWorkerWhenTheClientGoesAwayMidStream() throws Exception {
        try (LogCapture log = LogCapture.tradestore()) {
            LeavingClient.leave(server.port(), "POST /v1/query?format=csv HTTP/1.1",
                ALL.getBytes(StandardCharsets.UTF_8), 200_000);
            final Http.Response q = http.post("/v1/query", "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\","
                + "\"op\":\"count\"}]}");
            assertThat(q.status()).isEqualTo(200);
            assertThat(q.json().path("rows").path(0).get(0).asLong()).isEqualTo(ROWS);
            final long deadline = System.nanoTime() + 20_000_000_000L;
            while (!log.text().contains("was cut off") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(log.text()).contains("was cut off after");
        }
    }
}
