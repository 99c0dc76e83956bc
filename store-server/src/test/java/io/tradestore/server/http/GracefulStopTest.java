package io.tradestore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryCancel;
import io.tradestore.query.QueryException;
import io.tradestore.query.QueryResult;
import io.tradestore.server.TestStores;

/**
 * What a client sees while the server stops: an answer a worker produced reaches it whole, however late in the stop it
 * was made; past the grace, queries still queued or running are cancelled and answered 503 with Retry-After, and stop
 * returns only once the workers have let go of them.
 */
class GracefulStopTest {
    /** Threads of their own for blocking calls: the common pool may have a single thread on two cores. */
    private static final java.util.concurrent.ExecutorService BLOCKING =
        java.util.concurrent.Executors.newCachedThreadPool(r -> {
        final Thread t = new Thread(r, "test-blocking");
        t.setDaemon(true);
        return t;
    });
    private static final String QUERY = "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";
    /** Larger than loopback's socket buffers, so the answer is still being written when the stop goes on. */
    private static final int LARGE_ANSWER_BYTES = 48 << 20;
    @TempDir
    static Path dir;
    private static Store store;

    @BeforeAll
    static void open() {
        TestStores.writeTrades(dir, 100, 1);
        store = Store.open(dir);
    }

    @AfterAll
    static void close() {
        store.close();
    }

    /**
     * A raw HTTP/1.1 exchange: the status line, the Content-Length header and how many body bytes arrived before the
     * close.
     */
    private record Raw(String statusLine, long contentLength, long bodyBytes, String head) {
    }

    private static Raw exchange(final int port, final String body) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(60_000);
            s.getOutputStream()
                .write(("POST /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                + "application/json\r\nContent-Length: "
                + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
            final InputStream in = s.getInputStream();
            final StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                final int b = in.read();
                if (b < 0) {
                    return new Raw(head.toString().lines().findFirst().orElse(""), -1, 0, head.toString());
                }
                head.append((char) b);
            }
            long length = -1;
            for (final String line : head.toString().split("\r\n")) {
                if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                    length = Long.parseLong(line.substring(15).trim());
                }
            }
            final byte[] buf = new byte[1 << 16];
            long got = 0;
            for (int n = in.read(buf); n > 0; n = in.read(buf)) {
                got += n;
            }
            return new Raw(head.toString().lines().findFirst().orElse(""), length, got, head.toString());
        }
    }

    @Test
    void shouldWriteAWholeAnswerMadeWhileTheServerStops() throws Exception {
        final CountDownLatch running = new CountDownLatch(1);
        final CountDownLatch stopping = new CountDownLatch(1);
        final QueryServer s = QueryServer.start(store, (json, timeoutMs) -> {
            running.countDown();
            try {
                assertThat(stopping.await(30, TimeUnit.SECONDS)).isTrue();
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new SizedResult(LARGE_ANSWER_BYTES);
        }, new ServerConfig("127.0.0.1", 0, 1, 1, 4096, 30_000, null));
        final CompletableFuture<Raw> answer = CompletableFuture.supplyAsync(() -> {
            try {
                return exchange(s.port(), QUERY);
            } catch (final IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, BLOCKING);
        assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
        final CompletableFuture<Void> stop = CompletableFuture.runAsync(() -> s.stop(Duration.ofSeconds(20)), BLOCKING);
        // the answer is made once the stop has begun: a new request is refused with 503 from then on
        final Http other = new Http(s.port());
        final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (other.get("/health").status() != 503 && System.nanoTime() < until) {
            Thread.onSpinWait();
        }
        stopping.countDown();
        final Raw r = answer.get(60, TimeUnit.SECONDS);
        stop.get(60, TimeUnit.SECONDS);
        assertThat(r.statusLine()).as(r.head()).startsWith("HTTP/1.1 200");
        assertThat(r.head()).containsIgnoringCase("connection: close");
        assertThat(r.bodyBytes()).as("body bytes received of Content-Length " + r.contentLength())
            .isEqualTo(r.contentLength())
            .isEqualTo(LARGE_ANSWER_BYTES);
    }

    @Test
    void shouldCancelAndAnswer503EveryQueryStillQueuedOrRunningPastTheGrace() throws Exception {
        final AtomicInteger started = new AtomicInteger();
        final AtomicInteger cancelled = new AtomicInteger();
        final AtomicInteger finished = new AtomicInteger();
        final CountDownLatch firstRunning = new CountDownLatch(1);
        // a query that runs until it is cancelled, as the engine's do at their next batch
        final QueryService untilCancelled = new QueryService() {
            @Override
            public QueryResult execute(final String json, final long timeoutMs) {
                throw new AssertionError("the server passes its cancel");
            }

            @Override
            public QueryResult execute(final InputStream utf8Json, final long timeoutMs, final QueryCancel cancel) {
                started.incrementAndGet();
                firstRunning.countDown();
                try {
                    final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (!cancel.isCancelled() && System.nanoTime() < until) {
                        Thread.sleep(1);
                    }
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                if (cancel.isCancelled()) {
                    cancelled.incrementAndGet();
                    finished.incrementAndGet();
                    throw cancel.failure();
                }
                finished.incrementAndGet();
                throw new QueryException(ErrorCode.INTERNAL, "never cancelled", "");
            }
        };
        final QueryServer s =
            QueryServer.start(store, untilCancelled, new ServerConfig("127.0.0.1", 0, 1, 8, 4096, 60_000, null));
        final Http h = new Http(s.port());
        final List<CompletableFuture<Http.Response>> answers = new ArrayList<>();
        answers.add(CompletableFuture.supplyAsync(() -> h.post("/v1/query", QUERY), BLOCKING));
        assertThat(firstRunning.await(30, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < 4; i++) {
            answers.add(CompletableFuture.supplyAsync(() -> h.post("/v1/query", QUERY), BLOCKING));
        }
        // the four wait behind the one worker: admitted, queued
        final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!s.metricsText().contains("tradestore_query_queue_depth 4") && System.nanoTime() < until) {
            Thread.sleep(1);
        }
        assertThat(s.metricsText()).contains("tradestore_query_queue_depth 4");
        s.stop(Duration.ofMillis(200));
        // stop returned: the running query saw its cancel and ended; the queued ones never started
        assertThat(finished.get()).isEqualTo(started.get()).isEqualTo(cancelled.get()).isEqualTo(1);
        for (final CompletableFuture<Http.Response> a : answers) {
            final Http.Response r = a.get(30, TimeUnit.SECONDS);
            assertThat(r.status()).as(r.body()).isEqualTo(503);
            assertThat(r.errorCode()).isEqualTo("OVERLOADED");
            assertThat(r.body()).contains("stopping");
            assertThat(r.retryAfter()).isEqualTo("1");
        }
    }
}
