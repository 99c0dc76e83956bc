package io.tradestore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.server.TestStores;

/** More slow queries than workers plus queue: the surplus gets 503 at once; afterwards the server answers normally. */
class OverloadTest {
    private static final int THREADS = 2;
    private static final int QUEUE = 3;
    private static final int CLIENTS = 12;

    @TempDir
    Path dir;

    @Test
    void shouldAnswer503AtOnceWhenTheQueueIsFullThenRecover() throws Exception {
        TestStores.writeTrades(dir, 100, 1);
        final CountDownLatch release = new CountDownLatch(1);
        final ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try (Store store = Store.open(dir);
             QueryServer server = QueryServer.start(store, (json, timeoutMs) -> {
                 if (json.contains("slow")) {
                     try {
                         release.await(30, TimeUnit.SECONDS);
                     } catch (final InterruptedException e) {
                         Thread.currentThread().interrupt();
                     }
                 }
                 return new FixedResult(1);
             }, new ServerConfig("127.0.0.1", 0, THREADS, QUEUE, 4096, 20_000, null))) {
            final Http http = new Http(server.port());
            final List<CompletableFuture<Http.Response>> answers = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                answers.add(
                    CompletableFuture.supplyAsync(() -> http.post("/v1/query", "{\"table\":\"slow\"}"), clients));
            }
            // The surplus is answered while the admitted queries are still blocked: 503 does not wait for a worker.
            final int surplus = CLIENTS - THREADS - QUEUE;
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (answers.stream().filter(CompletableFuture::isDone).count() < surplus
                && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            final List<Http.Response> early = answers.stream().filter(CompletableFuture::isDone)
                .map(CompletableFuture::join).toList();
            assertThat(early).hasSize(surplus);
            for (final Http.Response r : early) {
                assertThat(r.status()).isEqualTo(503);
                assertThat(r.errorCode()).isEqualTo("OVERLOADED");
                assertThat(r.retryAfter()).isEqualTo("1");
            }
            assertThat(http.get("/metrics").body()).contains("tradestore_query_queue_depth " + QUEUE)
                .contains("tradestore_queries_active " + THREADS)
                .contains("tradestore_queries_rejected_total " + surplus);
            release.countDown();
            int ok = 0;
            for (final CompletableFuture<Http.Response> f : answers) {
                if (f.get(20, TimeUnit.SECONDS).status() == 200) {
                    ok++;
                }
            }
            assertThat(ok).isEqualTo(THREADS + QUEUE);
            for (int i = 0; i < 10; i++) {
                assertThat(http.post("/v1/query", "{\"table\":\"trades\"}").status()).isEqualTo(200);
            }
        } finally {
            release.countDown();
            clients.shutdownNow();
        }
    }
}
