package io.tradestore.server.http;

import java.math.BigDecimal;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Durability;
import io.tradestore.core.schema.PartitionBy;
import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.TestStores;
import io.tradestore.server.ingest.IngestConfig;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Line protocol and CSV over real HTTP into a serving store: one request one transaction, answered after its commit,
 * refused whole with the line and column, seen by queries only at commit.
 */
class IngestEndpointTest {
    private static final String TRADES = "trades";
    private static final int BODY_LIMIT = 256 << 10;
    private static final long IDLE_MS = 300;
    /** Reads decimals as BigDecimal, so that sums compare exactly. */
    private static final ObjectMapper EXACT = new ObjectMapper()
        .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    @TempDir
    Path dir;
    private Store store;
    private QueryEngine engine;
    private QueryServer server;
    private Http http;

    @BeforeEach
    void start() {
        TestStores.writeTrades(dir, 10, 1);
        store = Store.open(dir);
        engine = new QueryEngine(store, 2);
        server = QueryServer.start(store, engine, new ServerConfig("127.0.0.1", 0, 2, 16, 1 << 20, 10_000, null),
            new IngestConfig(BODY_LIMIT, true, 2_000, Durability.NONE, 1, 16, 1 << 12, IDLE_MS, 0, PartitionBy.DAY));
        http = new Http(server.port());
    }

    @AfterEach
    void stop() {
        server.close();
        engine.close();
        store.close();
    }

    private Http.Response write(final String path, final String body) {
        return http.send(http.builder(path).POST(HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "text/plain; charset=utf-8"));
    }

    private JsonNode sql(final String query) {
        final Http.Response r = http.send(http.builder("/v1/sql").POST(HttpRequest.BodyPublishers.ofString(query))
            .header("Content-Type", "text/plain"));
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        try {
            return EXACT.readTree(r.body()).path("rows");
        } catch (final java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String line(final long id, final long tsNanos, final String price, final long qty) {
        return "trades,venue=XLON,instrument=SYM007,side=B trade_id=" + id + "i,client_id=100001i,price=" + price
            + ",quantity=" + qty + "i " + tsNanos + "\n";
    }

    @Test
    void shouldCommitLinesAndAnswer204AtBothPaths() {
        final Http.Response r = write("/write?precision=n", line(1001, TestStores.START_NS, "101.25", 7)
            + line(1002, TestStores.START_NS + 1, "0.000001", 3));
        assertThat(r.status()).as(r.body()).isEqualTo(204);
        assertThat(r.body()).isEmpty();
        assertThat(write("/api/v2/write?precision=ms&org=o&bucket=b",
            line(1003, TestStores.START_NS / 1_000_000, "2", 1)).status()).isEqualTo(204);
        final JsonNode rows = sql("SELECT count(*), sum(price), sum(quantity) FROM trades WHERE trade_id > 1000");
        assertThat(rows.get(0).get(0).asLong()).isEqualTo(3);
        assertThat(rows.get(0).get(1).decimalValue()).isEqualByComparingTo("103.250001");
        assertThat(rows.get(0).get(2).asLong()).isEqualTo(11);
        assertThat(server.metricsText()).contains("tradestore_rows_ingested_total 3.0");
    }

    @Test
    void shouldRefuseABadLineWithItsPositionAndKeepNothing() {
        final Http.Response r = write("/write", line(1001, TestStores.START_NS, "1.5", 1)
            + "trades,venue=XLON trade_id=2i,price=1.1234567 5\n");
        assertThat(r.status()).isEqualTo(400);
        final JsonNode e = r.json().path("error");
        assertThat(e.path("code").asText()).isEqualTo("INVALID_LINE");
        assertThat(e.path("position").path("line").asInt()).isEqualTo(2);
        assertThat(e.path("position").path("column").asInt()).isEqualTo(37);
        assertThat(e.path("column").asText()).isEqualTo("price");
        assertThat(e.path("message").asText()).contains("7 fraction digits").contains("decimal(6)");
        assertThat(sql("SELECT count(*) FROM trades").get(0).get(0).asLong()).isEqualTo(10);
    }

    @Test
    void shouldRefuseAnUnknownPrecision() {
        final Http.Response r = write("/write?precision=d", line(1, 1, "1", 1));
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().path("error").path("message").asText()).contains("not one of n, u, ms, s");
    }

    @Test
    void shouldCreateATableFromItsFirstLine() {
        assertThat(write("/write", "quotes,sym=EURUSD bid=1.0841,ask=1.0843,size=1000000i 1700000000000000000\n")
            .status()).isEqualTo(204);
        final Http.Response t = http.get("/v1/tables/quotes");
        assertThat(t.status()).isEqualTo(200);
        assertThat(t.json().path("columns").toString()).contains("\"sym\"", "\"bid\"", "\"timestamp\"");
        assertThat(sql("SELECT sym, size FROM quotes").get(0).toString()).isEqualTo("[\"EURUSD\",1000000]");
        // this server partitions tables made from lines by day: a line of the next day (and a late one of the day
        // before) each start a segment, and every row counts once
        assertThat(t.json().path("partitionBy").asText()).isEqualTo("DAY");
        final long day = 86_400_000_000_000L;
        assertThat(write("/write", "quotes,sym=EURUSD size=2i " + (1700000000000000000L + day) + "\n"
            + "quotes,sym=GBPUSD size=3i " + (1700000000000000000L + 1) + "\n").status()).isEqualTo(204);
        final JsonNode after = http.get("/v1/tables/quotes").json();
        assertThat(after.path("rows").asLong()).isEqualTo(3);
        assertThat(after.path("segments").asLong()).isEqualTo(3);
        assertThat(sql("SELECT count(*), sum(size) FROM quotes").get(0).toString()).isEqualTo("[3,1000005]");
    }

    @Test
    void shouldTellQuestDbClientsToUseTextLineProtocol() {
        final Http.Response settings = http.get("/settings");
        assertThat(settings.status()).isEqualTo(200);
        assertThat(settings.json().path("config").path("line.proto.support.versions").toString()).isEqualTo("[1]");
        assertThat(http.get("/ping").status()).isEqualTo(204);
        assertThat(http.get("/write").status()).isEqualTo(405);
    }

    @Test
    void shouldAnswer413PastTheIngestLimitAndKeepTheQueryLimit() {
        final StringBuilder big = new StringBuilder();
        while (big.length() <= BODY_LIMIT) {
            big.append(line(1, 1, "1", 1));
        }
        assertThat(write("/write", big.toString()).status()).isEqualTo(413);
        // chunked: no Content-Length, so the limit is found while the body arrives
        final byte[] bytes = big.toString().getBytes(StandardCharsets.UTF_8);
        final Http.Response chunked = http.send(http.builder("/write").POST(HttpRequest.BodyPublishers.ofInputStream(
            () -> new java.io.ByteArrayInputStream(bytes))));
        assertThat(chunked.status()).isEqualTo(413);
        assertThat(chunked.json().path("error").path("message").asText()).contains("--max-ingest-body");
        // a body under the ingest limit but over the query limit (1 MiB here is above: use a smaller server) is
        // still a query's 413 on /v1/query
        final byte[] query = new byte[(1 << 20) + 10];
        java.util.Arrays.fill(query, (byte) ' ');
        assertThat(http.post("/v1/query", query).status()).isEqualTo(413);
        assertThat(sql("SELECT count(*) FROM trades").get(0).get(0).asLong()).isEqualTo(10);
    }

    @Test
    void shouldImportCsvAsOneTransactionOrRefuseItWithLineAndColumn() {
        final String header = "trade_id,ts,client_id,venue,instrument,side,price,quantity\n";
        final Http.Response ok = http.send(http.builder("/v1/tables/trades/import").POST(HttpRequest.BodyPublishers
            .ofString(header + "2001,2026-11-16T08:00:00Z,7,XLON,SYM001,B,10.5,100\n"
                + "2002,2026-11-16T08:00:01Z,7,XPAR,SYM002,S,20.25,200\n")).header("Content-Type", "text/csv"));
        assertThat(ok.status()).as(ok.body()).isEqualTo(200);
        assertThat(ok.json().path("rowsLoaded").asLong()).isEqualTo(2);
        final Http.Response bad = http.send(http.builder("/v1/tables/trades/import").POST(HttpRequest.BodyPublishers
            .ofString(header + "2003,2026-11-16T08:00:00Z,7,XLON,SYM001,B,10.5,100\n"
                + "2004,2026-11-16T08:00:01Z,7,XPAR,SYM002,S,20.255555555,200\n")));
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().path("error").path("position").path("line").asInt()).isEqualTo(3);
        assertThat(bad.json().path("error").path("message").asText()).contains("price");
        final JsonNode sum = sql("SELECT count(*), sum(price) FROM trades WHERE trade_id > 2000").get(0);
        assertThat(sum.get(0).asLong()).isEqualTo(2);
        assertThat(sum.get(1).decimalValue()).isEqualByComparingTo("30.75");
        assertThat(http.send(http.builder("/v1/tables/nope/import").POST(HttpRequest.BodyPublishers.ofString(header)))
            .status()).isEqualTo(404);
    }

    @Test
    void shouldAnswer409WhileAnotherWriterHoldsTheTable() {
        try (Store other = Store.open(dir); TableWriter w = other.table(TRADES).writer()) {
            final Http.Response r = write("/write", line(1, TestStores.START_NS, "1", 1));
            assertThat(r.status()).isEqualTo(409);
            assertThat(r.json().path("error").path("code").asText()).isEqualTo("TABLE_LOCKED");
            assertThat(w.committedRows()).isEqualTo(10);
        }
    }

    /** With a token, the line protocol paths also take InfluxDB's "Token" scheme, which its clients send. */
    @Test
    void shouldTakeInfluxDbsTokenSchemeOnTheWritePathsOnly() {
        try (QueryServer guarded = QueryServer.start(store, engine, new ServerConfig("127.0.0.1", 0, 2, 16, 1 << 20,
            10_000, "s3cret"), IngestConfig.defaults())) {
            final Http h = new Http(guarded.port());
            final java.util.function.BiFunction<String, String, Integer> post = (path, auth) -> h.send(h.builder(path)
                .header("Authorization", auth).POST(HttpRequest.BodyPublishers.ofString(line(7, TestStores.START_NS,
                    "1", 1)))).status();
            assertThat(post.apply("/api/v2/write", "Token s3cret")).isEqualTo(204);
            assertThat(post.apply("/write", "Bearer s3cret")).isEqualTo(204);
            assertThat(post.apply("/write", "Token wrong")).isEqualTo(401);
            assertThat(h.send(h.builder("/v1/tables").header("Authorization", "Token s3cret").GET()).status())
                .isEqualTo(401);
        }
    }

    @Test
    void shouldCreateATableFromASchemaPut() {
        final String schema = "{\"columns\":[{\"name\":\"sym\",\"type\":\"symbol\"},{\"name\":\"px\",\"type\":"
            + "\"decimal(4)\"},{\"name\":\"ts\",\"type\":\"timestamp\"}],\"timestamp\":\"ts\",\"segmentRows\":1024}";
        final Http.Response created = put("/v1/tables/quotes", schema);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(put("/v1/tables/quotes", schema).status()).isEqualTo(409);
        assertThat(put("/v1/tables/other", "{\"name\":\"quotes\",\"columns\":[]}").json().path("error")
            .path("code").asText()).isEqualTo("INVALID_SCHEMA");
        assertThat(put("/v1/tables/bad", "{\"columns\":[{\"name\":\"x\",\"type\":\"i65\"}]}").status())
            .isEqualTo(400);
        assertThat(put("/v1/tables/bad", "not json").status()).isEqualTo(400);
        assertThat(store.hasTable("bad")).isFalse();
        assertThat(write("/write", "quotes,sym=EURUSD px=1.0841 5\n").status()).isEqualTo(204);
        assertThat(http.get("/v1/tables/quotes").json().path("partitionBy").asText()).isEqualTo("NONE");
        final String hourly = schema.replace("\"segmentRows\":1024", "\"segmentRows\":1024,\"partitionBy\":\"HOUR\"");
        assertThat(put("/v1/tables/hourly", hourly).status()).isEqualTo(201);
        assertThat(http.get("/v1/tables/hourly").json().path("partitionBy").asText()).isEqualTo("HOUR");
        assertThat(put("/v1/tables/weekly", schema.replace("\"segmentRows\":1024", "\"partitionBy\":\"WEEK\""))
            .json().path("error").path("message").asText()).contains("/partitionBy", "WEEK");
        assertThat(sql("SELECT sym, px FROM quotes").get(0).get(1).decimalValue()).isEqualByComparingTo("1.0841");
        // dropped as it was made, over HTTP (TableLifecycleEndpointTest has the rest)
        assertThat(http.send(http.builder("/v1/tables/quotes").DELETE()).status()).isEqualTo(204);
        assertThat(store.hasTable("quotes")).isFalse();
    }

    private Http.Response put(final String path, final String body) {
        return http.send(http.builder(path).PUT(HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json"));
    }

    /** A writer the feed has left unused is closed, so that another process can write the table meanwhile. */
    @Test
    void shouldHandTheTableBackOnceItsWriterIsIdle() throws InterruptedException {
        assertThat(write("/write", line(1, TestStores.START_NS, "1", 1)).status()).isEqualTo(204);
        final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        TableWriter taken = null;
        try (Store other = Store.open(dir)) {
            while (taken == null && System.nanoTime() < until) {
                try {
                    taken = other.table(TRADES).writer();
                } catch (final io.tradestore.core.TableLockedException stillHeld) {
                    Thread.sleep(20);
                }
            }
            assertThat(taken).as("the server's writer was closed after %d ms unused", IDLE_MS).isNotNull();
            assertThat(taken.committedRows()).isEqualTo(11);
            taken.close();
        }
        // the next request opens the writer again
        assertThat(write("/write", line(2, TestStores.START_NS, "1", 1)).status()).isEqualTo(204);
        assertThat(sql("SELECT count(*) FROM trades").get(0).get(0).asLong()).isEqualTo(12);
    }

    /**
     * Many requests of 500 rows while queries run: every query sees whole requests only, and at the end the count and
     * the exact decimal sum equal what was sent.
     */
    @Test
    void shouldShowQueriesWholeRequestsOnlyWhileASenderWrites() throws Exception {
        final int requests = 60;
        final int perRequest = 500;
        final Random rnd = new Random(42);
        BigDecimal sent = BigDecimal.ZERO;
        final List<String> bodies = new ArrayList<>();
        long id = 100_000;
        for (int r = 0; r < requests; r++) {
            final StringBuilder b = new StringBuilder();
            for (int i = 0; i < perRequest; i++) {
                final BigDecimal price = BigDecimal.valueOf(rnd.nextInt(1_000_000_000), 6);
                sent = sent.add(price);
                b.append(line(++id, TestStores.START_NS + id, price.toPlainString(), 1));
            }
            bodies.add(b.toString());
        }
        final AtomicBoolean sending = new AtomicBoolean(true);
        final ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            final Future<Integer> sender = pool.submit(() -> {
                int accepted = 0;
                for (final String body : bodies) {
                    final Http.Response r = write("/write", body);
                    assertThat(r.status()).as(r.body()).isEqualTo(204);
                    accepted++;
                }
                sending.set(false);
                return accepted;
            });
            final Future<Integer> reader = pool.submit(() -> {
                int queries = 0;
                while (sending.get() || queries == 0) {
                    final long n = sql("SELECT count(*) FROM trades WHERE trade_id > 100000").get(0).get(0).asLong();
                    assertThat(n % perRequest).as("rows seen: %d", n).isZero();
                    queries++;
                }
                return queries;
            });
            assertThat(sender.get(120, TimeUnit.SECONDS)).isEqualTo(requests);
            assertThat(reader.get(120, TimeUnit.SECONDS)).isPositive();
        } finally {
            pool.shutdownNow();
        }
        final JsonNode rows = sql("SELECT count(*), sum(price) FROM trades WHERE trade_id > 100000");
        assertThat(rows.get(0).get(0).asLong()).isEqualTo((long) requests * perRequest);
        assertThat(rows.get(0).get(1).decimalValue()).isEqualByComparingTo(sent);
    }
}
