package io.tradestore.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;
import io.tradestore.server.ChildJvm;
import io.tradestore.server.TestStores;
import io.tradestore.server.http.Http;

/**
 * {@code tradestore serve} in a child JVM, as operators run it: a SIGTERM while queries run longer than the grace exits
 * 0 with every client answered (it crashed the JVM: the store was unmapped under the running scan); a low descriptor
 * limit does not stop it accepting; the token from a file or the environment; the access log and log level; the cap on
 * groups.
 */
class ServeCommandTest {
    /** Threads of their own for blocking calls: the common pool may have a single thread on two cores. */
    private static final java.util.concurrent.ExecutorService BLOCKING =
        java.util.concurrent.Executors.newCachedThreadPool(r -> {
        final Thread t = new Thread(r, "test-blocking");
        t.setDaemon(true);
        return t;
    });
    /** Group by every trade: each query runs a few hundred milliseconds or more on one worker. */
    private static final String SLOW =
        "{\"table\":\"trades\",\"groupBy\":[\"trade_id\",\"client_id\"],\"aggs\":[{\"name\":\"p\","
        + "\"op\":\"percentile\",\"col\":\"price\",\"p\":50},{\"name\":\"d\",\"op\":\"countDistinct\",\"col\":\"quanti"
        + "ty\"}],\"limit\":5}";
    private static final String COUNT = "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";
    @TempDir
    static Path big;
    @TempDir
    static Path small;
    // token and access-log files live beside the stores, never in the system temp directory
    @TempDir
    static Path files;

    @BeforeAll
    static void stores() {
        TestStores.writeTrades(big, TradesSchema.SCHEMA.with("trades", Layout.COLUMN, 1 << 17, 4096), 400_000, 3);
        TestStores.writeTrades(small, 2000, 4);
    }

    @Test
    void shouldAnswerEveryClientAndExitZeroOnSigtermDuringQueriesLongerThanTheGrace() throws Exception {
        try (ChildJvm child =
            ChildJvm.start("serve", big.toString(), "--port", "0",
                "--pg-port", "0", "--threads", "1", "--scan-threads", "1",
            "--queue", "8", "--timeout-ms", "120000", "--stop-grace-ms", "200")) {
            final Http h = new Http(child.awaitPort());
            final List<CompletableFuture<Http.Response>> answers = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                answers.add(CompletableFuture.supplyAsync(() -> h.post("/v1/query", SLOW), BLOCKING));
            }
            // one query runs on the one worker, four wait behind it
            final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            String metrics = "";
            while (System.nanoTime() < until
                && !(metrics.contains("tradestore_queries_active 1") && metrics
                .contains("tradestore_query_queue_depth 4"))) {
                metrics = h.get("/metrics").body();
            }
            assertThat(metrics).contains("tradestore_queries_active 1").contains("tradestore_query_queue_depth 4");
            child.terminate();
            final int code = child.waitFor(60);
            assertThat(code).as(child.output()).isZero();
            assertThat(child.output()).doesNotContain("SIGSEGV").doesNotContain("fatal error")
                .contains("stopped after");
            assertThat(Path.of("hs_err_pid" + child.pid() + ".log")).doesNotExist();
            int refused = 0;
            for (final CompletableFuture<Http.Response> a : answers) {
                final Http.Response r = a.get(60, TimeUnit.SECONDS);
                assertThat(r.status()).as(r.body()).isIn(200, 503);
                if (r.status() == 503) {
                    refused++;
                    assertThat(r.body()).contains("stopping");
                    assertThat(r.retryAfter()).isEqualTo("1");
                }
            }
            assertThat(refused).as("queries past the grace are cancelled or never started").isPositive();
        }
    }

    @Test
    void shouldKeepAcceptingWhenConnectionsReachTheDescriptorLimit() throws Exception {
        try (ChildJvm child =
            ChildJvm.startCli(Map.of(), 256, "serve", small.toString(), "--port", "0",
                "--pg-port", "0", "--threads", "1")) {
            final int port = child.awaitPort();
            final List<Socket> open = new ArrayList<>();
            int refused = 0;
            try {
                // more connections than the process has descriptors, each with half a request sent
                for (int i = 0; i < 300; i++) {
                    final Socket s = new Socket("127.0.0.1", port);
                    s.getOutputStream().write("GET /health HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
                    open.add(s);
                }
                for (final Socket s : open) {
                    s.setSoTimeout(200);
                    try {
                        final byte[] head = s.getInputStream().readNBytes(12);
                        if (new String(head, StandardCharsets.US_ASCII).equals("HTTP/1.1 503")) {
                            refused++;
                        }
                    } catch (final IOException e) {
                        // accepted and waiting for the rest of its request
                    }
                }
            } finally {
                for (final Socket s : open) {
                    s.close();
                }
            }
            assertThat(refused).as("connections beyond the derived limit are refused with 503").isPositive();
            // the listener is alive once the connections are gone
            String health = "";
            for (int i = 0; i < 100 && !health.contains("\"ok\""); i++) {
                try {
                    health = new Http(port).get("/health").body();
                } catch (final RuntimeException e) {
                    Thread.sleep(50);
                }
            }
            assertThat(health).as(child.output()).contains("\"status\":\"ok\"");
            assertThat(child.isAlive()).isTrue();
            child.terminate();
            assertThat(child.waitFor(30)).as(child.output()).isZero();
        }
    }

    @Test
    void shouldTakeTheTokenFromAFileOrTheEnvironment() throws Exception {
        final Path file = files.resolve("token");
        Files.writeString(file, "from-a-file\n");
        try (ChildJvm child =
            ChildJvm.start("serve", small.toString(), "--port", "0",
                "--pg-port", "0", "--token-file", file.toString())) {
            final int port = child.awaitPort();
            assertThat(new Http(port).get("/health").status()).isEqualTo(401);
            assertThat(new Http(port, "from-a-file").get("/health").status()).isEqualTo(200);
            assertThat(child.output()).doesNotContain("from-a-file");
            child.terminate();
            assertThat(child.waitFor(30)).isZero();
        }
        try (ChildJvm child =
            ChildJvm.startCli(Map.of("TRADESTORE_TOKEN", "from-env"), 0, "serve", small.toString(), "--port", "0",
                "--pg-port", "0")) {
            final int port = child.awaitPort();
            assertThat(new Http(port).get("/health").status()).isEqualTo(401);
            assertThat(new Http(port, "from-env").get("/health").status()).isEqualTo(200);
            child.terminate();
            assertThat(child.waitFor(30)).isZero();
        }
        try (ChildJvm both =
            ChildJvm.startCli(Map.of("TRADESTORE_TOKEN", "from-env"), 0, "serve", small.toString(), "--port", "0",
                "--pg-port", "0",
            "--token-file", file.toString())) {
            assertThat(both.waitFor(30)).isEqualTo(2);
            assertThat(both.output()).contains("give the token one way only");
        }
    }

    @Test
    void shouldWriteTheAccessLogAndCapGroups() throws Exception {
        final Path access = files.resolve("access.log");
        try (ChildJvm child =
            ChildJvm.start("serve", small.toString(), "--port", "0",
                "--pg-port", "0", "--access-log", access.toString(),
            "--max-groups", "10", "--log-level", "warn")) {
            final Http h = new Http(child.awaitPort());
            assertThat(h.get("/health").status()).isEqualTo(200);
            assertThat(h.post("/v1/query", COUNT).status()).isEqualTo(200);
            final Http.Response tooMany = h
                .post("/v1/query", "{\"table\":\"trades\",\"groupBy\":[\"trade_id\"],\"aggs\":[{\"name\":\"n\","
                + "\"op\":\"count\"}],\"options\":{\"maxGroups\":100}}");
            assertThat(tooMany.status()).isEqualTo(400);
            assertThat(tooMany.body()).contains("\"path\":\"/options/maxGroups\"").contains("--max-groups");
            child.terminate();
            assertThat(child.waitFor(30)).isZero();
        }
        final List<String> lines = Files.readAllLines(access);
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0))
            .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z /127\\.0\\.0\\.1:\\d+ GET /health /health "
            + "200 \\d+ \\d+\\.\\d{3}");
        assertThat(lines.get(1)).contains(" POST /v1/query /v1/query 200 ");
        assertThat(lines.get(2)).contains(" POST /v1/query /v1/query 400 ");
        try (ChildJvm bad = ChildJvm.start("serve", small.toString(), "--port", "0",
            "--pg-port", "0", "--log-level", "loud")) {
            assertThat(bad.waitFor(30)).isEqualTo(2);
            assertThat(bad.output()).contains("log level 'loud' is not one of error, warn, info, debug, trace");
        }
    }
}
