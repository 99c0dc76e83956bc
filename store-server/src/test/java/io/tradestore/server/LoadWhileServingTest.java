package io.tradestore.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.sample.TradeGenerator;
import io.tradestore.server.http.Http;

/**
 * {@code tradestore load} processes and a {@code tradestore serve} process on the same store at once: every answer
 * during the loads shows a committed row count (a multiple of the commit batch), counts never go down, and the end
 * shows every row, without a restart.
 */
class LoadWhileServingTest {
    private static final int FILES = 6;
    private static final int ROWS_PER_FILE = 20_000;
    private static final int COMMIT_EVERY = 5000;
    private static final String COUNT = "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
        + "{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"}]}";

    @TempDir
    Path dir;

    @Test
    void shouldSeeGrowingConsistentRowCountsWhileAnotherProcessLoads() throws Exception {
        final Path storeDir = dir.resolve("store");
        try (Store store = Store.open(storeDir)) {
            store.createTable(TradesSchema.SCHEMA.with("trades", Layout.COLUMN, 1 << 15, 1 << 12));
        }
        final List<Path> files = new ArrayList<>();
        for (int i = 0; i < FILES; i++) {
            final Path csv = dir.resolve("t" + i + ".csv");
            TradeGenerator.writeCsv(csv, ROWS_PER_FILE, i);
            files.add(csv);
        }
        final long total = (long) FILES * ROWS_PER_FILE;
        try (ChildJvm serve = ChildJvm.start("serve", storeDir.toString(), "--port", "0",
            "--pg-port", "0", "--threads", "2")) {
            final Http http = new Http(serve.awaitPort());
            final TreeSet<Long> seen = new TreeSet<>();
            long last = 0;
            long lastQueried = 0;
            // one `tradestore load` process per file, one after the other, each committing every COMMIT_EVERY rows
            for (final Path csv : files) {
                try (ChildJvm load = ChildJvm.start("load", storeDir.toString(), csv.toString(), "--commit-every",
                    Integer.toString(COMMIT_EVERY))) {
                    boolean done = false;
                    while (!done) {
                        done = !load.isAlive();
                        final long rows = http.get("/v1/tables/trades").json().path("rows").asLong();
                        assertThat(rows % COMMIT_EVERY == 0).as("committed count " + rows).isTrue();
                        assertThat(rows).as("never goes down").isGreaterThanOrEqualTo(last);
                        last = rows;
                        seen.add(rows);
                        final Http.Response q = http.post("/v1/query", COUNT);
                        assertThat(q.status()).as(q.body()).isEqualTo(200);
                        final long n = q.json().path("rows").get(0).get(0).asLong();
                        assertThat(n % COMMIT_EVERY == 0).as("query sees a commit: " + n).isTrue();
                        assertThat(n).isGreaterThanOrEqualTo(lastQueried).isLessThanOrEqualTo(total);
                        lastQueried = n;
                    }
                    assertThat(load.waitFor(60)).as(load.output()).isZero();
                }
            }
            assertThat(http.get("/v1/tables/trades").json().path("rows").asLong()).isEqualTo(total);
            final Http.Response end = http.post("/v1/query", COUNT);
            assertThat(end.json().path("rows").get(0).get(0).asLong()).isEqualTo(total);
            assertThat(seen.size()).as("distinct counts seen while loading: " + seen).isGreaterThanOrEqualTo(3);
            serve.terminate();
            assertThat(serve.waitFor(20)).isZero();
        }
    }
}
