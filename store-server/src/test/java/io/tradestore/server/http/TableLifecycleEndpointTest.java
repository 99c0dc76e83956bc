package io.tradestore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Durability;
import io.tradestore.core.schema.PartitionBy;
import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.ingest.IngestConfig;

/**
 * Tables dropped with {@code DELETE /v1/tables/{name}} and trimmed by their TTL while the server ingests and answers
 * queries: queries in flight finish on their snapshot, later ones see the new state, nothing answers 500, and once the
 * queries end no mapping of a deleted file is left in this process (the disk space is back).
 */
class TableLifecycleEndpointTest {
    private static final int SEGMENT = 1024;
    private static final long MINUTE = 60_000_000_000L;
    /** 20 days ago, to the minute: the newest row is in the past, so the TTL's reference time is that row's. */
    private static final long T0 = (System.currentTimeMillis() / 60_000 - 20 * 24 * 60) * MINUTE;
    private static final String SCHEMA = "{\"layout\":\"COLUMN\",\"segmentRows\":" + SEGMENT + ",\"blockRows\":256,"
        + "\"timestamp\":\"ts\",\"columns\":[{\"name\":\"ts\",\"type\":\"timestamp\"},"
        + "{\"name\":\"venue\",\"type\":\"symbol\"},{\"name\":\"qty\",\"type\":\"i64\"}]}";

    @TempDir
    Path dir;
    private Store store;
    private QueryEngine engine;
    private QueryServer server;
    private Http http;

    @BeforeEach
    void start() {
        store = Store.open(dir);
        engine = new QueryEngine(store, 2);
        server = QueryServer.start(store, engine, new ServerConfig("127.0.0.1", 0, 2, 64, 1 << 20, 10_000, null),
            new IngestConfig(64 << 20, true, 2_000, Durability.NONE, 1, 16, SEGMENT, 10_000, 100, PartitionBy.NONE));
        http = new Http(server.port());
    }

    @AfterEach
    void stop() {
        server.close();
        engine.close();
        store.close();
    }

    /** Rows [from, to) of table t, row r at T0 + r minutes with qty r. */
    private void ingest(final String table, final int from, final int to) {
        final StringBuilder b = new StringBuilder();
        for (int r = from; r < to; r++) {
            b.append(table).append(",venue=V").append(r % 3).append(" qty=").append(r).append("i ")
                .append(T0 + r * MINUTE).append('\n');
        }
        final Http.Response w = http.send(http.builder("/write").POST(HttpRequest.BodyPublishers.ofString(b.toString()))
            .header("Content-Type", "text/plain"));
        assertThat(w.status()).as(w.body()).isEqualTo(204);
    }

    private Http.Response create(final String table) {
        return http.send(http.builder("/v1/tables/" + table).PUT(HttpRequest.BodyPublishers.ofString(SCHEMA))
            .header("Content-Type", "application/json"));
    }

    private Http.Response delete(final String table) {
        return http.send(http.builder("/v1/tables/" + table).DELETE());
    }

    private JsonNode countAndSum(final String table) {
        final Http.Response r = http.post("/v1/sql", "SELECT count(*), sum(qty) FROM " + table);
        return r.status() == 200 ? r.json().path("rows").get(0) : r.json();
    }

    /**
     * @return lines of this process's mappings that name a deleted file under the store, once there are none or after
     *     a few seconds (the engine unmaps dropped segments on its own thread, after the query that held them ends).
     */
    private List<String> deletedMappings() throws IOException, InterruptedException {
        final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<String> found = deletedMappingsNow();
        while (!found.isEmpty() && System.nanoTime() < until) {
            Thread.sleep(10);
            found = deletedMappingsNow();
        }
        return found;
    }

    private List<String> deletedMappingsNow() throws IOException {
        final List<String> found = new ArrayList<>();
        final String root = dir.toRealPath().toString();
        for (final String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            if (line.contains(root) && line.endsWith("(deleted)")) {
                found.add(line);
            }
        }
        return found;
    }

    /** @return the bytes of the files under the store. */
    private long storeBytes() throws IOException {
        try (var files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    @Test
    void shouldDropATableUnderQueriesAndIngestAndFreeItsFiles() throws Exception {
        assertThat(create("feed").status()).isEqualTo(201);
        ingest("feed", 0, 5 * SEGMENT);
        final long sum = (5L * SEGMENT - 1) * 5 * SEGMENT / 2;
        assertThat(countAndSum("feed").get(1).asLong()).isEqualTo(sum);
        final AtomicBoolean dropped = new AtomicBoolean();
        final ExecutorService pool = Executors.newFixedThreadPool(2);
        final List<Future<int[]>> readers = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            readers.add(pool.submit(() -> {
                // before the drop: the whole table; after it: 404 UNKNOWN_TABLE; never anything else
                final int[] seen = new int[2];
                final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (System.nanoTime() < until) {
                    final boolean after = dropped.get();
                    final Http.Response r = http.post("/v1/sql", "SELECT count(*), sum(qty) FROM feed");
                    if (r.status() == 200) {
                        assertThat(after).as("a query that started after the drop answered").isFalse();
                        assertThat(r.json().path("rows").get(0).get(1).asLong()).isEqualTo(sum);
                        seen[0]++;
                    } else {
                        assertThat(r.status()).as(r.body()).isEqualTo(404);
                        assertThat(r.errorCode()).isEqualTo("UNKNOWN_TABLE");
                        seen[1]++;
                        if (seen[1] > 20) {
                            break;
                        }
                    }
                }
                return seen;
            }));
        }
        Thread.sleep(200);
        final Http.Response d = delete("feed");
        assertThat(d.status()).as(d.body()).isEqualTo(204);
        dropped.set(true);
        for (final Future<int[]> f : readers) {
            final int[] seen = f.get(60, TimeUnit.SECONDS);
            assertThat(seen[0]).isPositive();
            assertThat(seen[1]).isPositive();
        }
        pool.shutdown();
        assertThat(http.get("/v1/tables/feed").status()).isEqualTo(404);
        assertThat(http.get("/v1/tables").json().path("tables")).isEmpty();
        assertThat(Files.exists(dir.resolve("feed"))).isFalse();
        assertThat(deletedMappings()).isEmpty();
        assertThat(server.metricsText()).contains("tradestore_tables_dropped_total 1.0");
        // the name is free: line protocol creates the table again, and queries see only its new rows
        ingest("feed", 0, 10);
        assertThat(countAndSum("feed").get(0).asLong()).isEqualTo(10);
        assertThat(delete("feed").status()).isEqualTo(204);
        assertThat(delete("feed").status()).isEqualTo(404);
        assertThat(delete("no_such").errorCode()).isEqualTo("UNKNOWN_TABLE");
        assertThat(delete("Bad-Name").status()).isEqualTo(404);
    }

    @Test
    void shouldCreateATableWithATtl() {
        final String withTtl = SCHEMA.substring(0, SCHEMA.length() - 1) + ",\"ttl\":\"2w\"}";
        final Http.Response r = http.send(http.builder("/v1/tables/kept").PUT(HttpRequest.BodyPublishers
            .ofString(withTtl)).header("Content-Type", "application/json"));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        assertThat(r.json().path("ttl").asText()).isEqualTo("2w");
        assertThat(store.table("kept").ttlNanos()).isEqualTo(TimeUnit.DAYS.toNanos(14));
        assertThat(http.get("/v1/tables/kept").json().path("ttl").asText()).isEqualTo("2w");
        final Http.Response bad = http.send(http.builder("/v1/tables/other").PUT(HttpRequest.BodyPublishers
            .ofString(SCHEMA.substring(0, SCHEMA.length() - 1) + ",\"ttl\":\"3 months\"}"))
            .header("Content-Type", "application/json"));
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().path("error").path("path").asText()).isEqualTo("/ttl");
        assertThat(store.hasTable("other")).isFalse();
        final String noTimestamp = "{\"columns\":[{\"name\":\"x\",\"type\":\"i64\"}],\"ttl\":\"1d\"}";
        assertThat(http.send(http.builder("/v1/tables/other").PUT(HttpRequest.BodyPublishers.ofString(noTimestamp))
            .header("Content-Type", "application/json")).body()).contains("designated timestamp");
        assertThat(store.hasTable("other")).isFalse();
    }

    @Test
    void shouldRefuseTheDropWhileAnotherWriterHoldsTheTable() {
        assertThat(create("held").status()).isEqualTo(201);
        try (Store other = Store.open(dir); TableWriter w = other.table("held").writer()) {
            final Http.Response d = delete("held");
            assertThat(d.status()).as(d.body()).isEqualTo(409);
            assertThat(d.errorCode()).isEqualTo("TABLE_LOCKED");
            assertThat(w.committedRows()).isZero();
        }
        assertThat(http.get("/v1/tables/held").status()).isEqualTo(200);
        assertThat(delete("held").status()).isEqualTo(204);
    }

    @Test
    void shouldApplyATtlOnItsScheduleUnderQueriesAndIngest() throws Exception {
        assertThat(create("ticks").status()).isEqualTo(201);
        ingest("ticks", 0, 20 * SEGMENT);
        // every row counts while no TTL is set
        assertThat(countAndSum("ticks").get(0).asLong()).isEqualTo(20L * SEGMENT);
        final long before = storeBytes();
        final AtomicBoolean stop = new AtomicBoolean();
        final ExecutorService pool = Executors.newFixedThreadPool(2);
        final Future<Integer> queries = pool.submit(() -> {
            int n = 0;
            while (!stop.get()) {
                // whatever a query sees is rows [first, last) with whole segments gone from the front and the feed's
                // request there whole or not at all: count and sum tell first and last
                final JsonNode row = countAndSum("ticks");
                final long count = row.get(0).asLong();
                final long first = (2 * row.get(1).asLong() / count - count + 1) / 2;
                assertThat(first % SEGMENT).as(row.toString()).isZero();
                assertThat(first + count).as(row.toString()).isIn(20L * SEGMENT, 21L * SEGMENT);
                assertThat(row.get(1).asLong()).as(row.toString()).isEqualTo((2 * first + count - 1) * count / 2);
                n++;
            }
            return n;
        });
        final Future<?> feed = pool.submit(() -> ingest("ticks", 20 * SEGMENT, 21 * SEGMENT));
        // 3 days of minutes kept before the newest row: the segments wholly before minute 21503 - 4320 go
        store.table("ticks").ttlNanos(TimeUnit.DAYS.toNanos(3));
        feed.get(30, TimeUnit.SECONDS);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        JsonNode info = http.get("/v1/tables/ticks").json();
        while (info.path("firstRow").asLong() < 16L * SEGMENT && System.nanoTime() < deadline) {
            Thread.sleep(20);
            info = http.get("/v1/tables/ticks").json();
        }
        // the counters move after the drop has deleted the segments' files, a while after the commit shows it
        final String dropped = "tradestore_retention_segments_dropped_total{table=\"ticks\"} 16.0";
        while (!server.metricsText().contains(dropped) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        stop.set(true);
        assertThat(queries.get(30, TimeUnit.SECONDS)).isPositive();
        pool.shutdown();
        // newest minute 21503; cut 21503 - 4320 = 17183: segments 0-15 end before it, segment 16 does not
        assertThat(info.path("firstRow").asLong()).isEqualTo(16L * SEGMENT);
        assertThat(info.path("rows").asLong()).isEqualTo(5L * SEGMENT);
        assertThat(info.path("ttl").asText()).isEqualTo("3d");
        assertThat(countAndSum("ticks").get(0).asLong()).isEqualTo(5L * SEGMENT);
        assertThat(server.metricsText())
            .contains(dropped)
            .contains("tradestore_retention_rows_dropped_total{table=\"ticks\"} " + 16.0 * SEGMENT);
        assertThat(Files.exists(dir.resolve("ticks").resolve("seg-000015"))).isFalse();
        // the queries have ended: the dropped segments are unmapped, their blocks free, the store a quarter its size
        assertThat(deletedMappings()).isEmpty();
        assertThat(engine.retiredSegments()).isZero();
        assertThat(storeBytes()).isLessThan(before * 6 / 21);
    }
}
