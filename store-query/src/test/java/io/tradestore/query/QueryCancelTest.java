package io.tradestore.query;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TestRows;
import io.tradestore.core.schema.Layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A running query stops when another thread cancels it, and closing an engine cancels its running queries and waits for
 * them before it unmaps their tables (a server stopping under a long query crashed the JVM). Deterministic: the
 * engine's clock holds the query inside a batch until the test lets it go, so the cancel always lands mid-query.
 */
class QueryCancelTest {
    /** Threads of their own for blocking calls: the common pool may have a single thread on two cores. */
    private static final java.util.concurrent.ExecutorService BLOCKING =
        java.util.concurrent.Executors.newCachedThreadPool(r -> {
        final Thread t = new Thread(r, "test-blocking");
        t.setDaemon(true);
        return t;
    });
    private static final String SPLIT_QUERY = "{\"table\":\"trades\",\"groupBy\":[{\"col\":\"instrument\"}],"
        + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"v\",\"op\":\"sum\",\"col\":\"quantity\"}]}";
    @TempDir
    static Path dir;
    static Store store;

    @BeforeAll
    static void setUp() {
        store = Store.open(dir);
        new TradeData().write(store, TradeData.schema(Layout.COLUMN, 1 << 14, 1024), 5 * (1 << 14) + 77, 31, false);
    }

    @AfterAll
    static void tearDown() {
        store.close();
        TestRows.assertNoNativeLeaks();
    }

    /**
     * A clock that stands still; the first read inside a batch's deadline check (on whichever thread scans first: the
     * caller or a pool worker, as the scheduler has it) signals {@code inside}, waits for {@code release} and, as that
     * thread goes on with its batch, takes the next number of {@code order} into {@code resumed}. Any thread, not a
     * pool worker in particular: under CPU contention the caller may claim every morsel before a pool worker runs.
     */
    private static LongSupplier holdingInABatch(final CountDownLatch inside, final CountDownLatch release,
        final AtomicInteger order,
                                                final AtomicInteger resumed) {
        final AtomicBoolean held = new AtomicBoolean();
        final StackWalker walker = StackWalker.getInstance();
        return () -> {
            if (!held.get() && walker
                .walk(frames -> frames.anyMatch(f -> f.getClassName().equals("io.tradestore.query.exec.Executor")
                && f.getMethodName().equals("checkDeadline"))) && held.compareAndSet(false, true)) {
                inside.countDown();
                try {
                    assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                resumed.set(order.incrementAndGet());
            }
            return 1_000_000_000L;
        };
    }

    private static QueryEngine splitEngine(final CountDownLatch inside, final CountDownLatch release,
        final AtomicInteger order,
                                           final AtomicInteger resumed) {
        final QueryEngine engine = new QueryEngine(store, 2);
        engine.smallQueryRows(0);
        engine.morselRows(1024);
        engine.clock(holdingInABatch(inside, release, order, resumed));
        return engine;
    }

    @Test
    void shouldFailARunningQueryWithTheCancelsCodeAndMessage() throws Exception {
        final CountDownLatch inside = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        try (QueryEngine engine = splitEngine(inside, release, new AtomicInteger(), new AtomicInteger())) {
            final QueryCancel cancel = new QueryCancel();
            final CompletableFuture<QueryResult> query =
                CompletableFuture.supplyAsync(() -> engine.execute(SPLIT_QUERY, 60_000, cancel), BLOCKING);
            assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
            cancel.cancel(ErrorCode.OVERLOADED, "stopped by the test");
            release.countDown();
            final Throwable failure =
                catchThrowableOfType(java.util.concurrent.ExecutionException.class,
                () -> query.get(30, TimeUnit.SECONDS))
                .getCause();
            assertThat(failure).isInstanceOf(QueryException.class).hasMessage("stopped by the test");
            assertThat(((QueryException) failure).code()).isEqualTo(ErrorCode.OVERLOADED);
            // the engine answers the next query in full
            assertThat(engine.execute(SPLIT_QUERY, 60_000).rowCount()).isPositive();
        }
    }

    @Test
    void shouldCancelRunningQueriesAndWaitForThemBeforeClosing() throws Exception {
        final CountDownLatch inside = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger order = new AtomicInteger();
        final AtomicInteger workerResumed = new AtomicInteger();
        final AtomicInteger closeReturned = new AtomicInteger();
        final QueryEngine engine = splitEngine(inside, release, order, workerResumed);
        final QueryCancel cancel = new QueryCancel();
        final CompletableFuture<Throwable> query = CompletableFuture.supplyAsync(() -> {
            try {
                engine.execute(SPLIT_QUERY, 60_000, cancel);
                return null;
            } catch (final QueryException e) {
                return e;
            }
        }, BLOCKING);
        assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
        final CompletableFuture<Void> close = CompletableFuture.runAsync(() -> {
            engine.close();
            closeReturned.set(order.incrementAndGet());
        }, BLOCKING);
        // close() cancels the query it finds running, then must wait: the query is held inside a batch of a mapped
        // segment
        final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!cancel.isCancelled() && System.nanoTime() < until) {
            Thread.onSpinWait();
        }
        assertThat(cancel.isCancelled()).as("close() cancels the running query").isTrue();
        assertThat(close).isNotDone();
        release.countDown();
        close.get(30, TimeUnit.SECONDS);
        final Throwable failure = query.get(30, TimeUnit.SECONDS);
        assertThat(failure).isInstanceOf(QueryException.class).hasMessageContaining("closing");
        assertThat(((QueryException) failure).code()).isEqualTo(ErrorCode.OVERLOADED);
        // the held thread went on reading its batch of a mapped segment after the release: close waited for it
        assertThat(workerResumed.get()).isPositive();
        assertThat(closeReturned.get()).as("close returned after the held thread resumed")
            .isGreaterThan(workerResumed.get());
        // a closed engine refuses new queries with a clear error
        assertThat(catchThrowableOfType(QueryException.class, () -> engine.execute(SPLIT_QUERY, 1000)))
            .hasMessageContaining("closed");
    }
}
