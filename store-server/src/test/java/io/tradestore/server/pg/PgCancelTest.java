package io.tradestore.server.pg;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryCancel;
import io.tradestore.query.QueryException;
import io.tradestore.query.QueryResult;
import io.tradestore.query.ResultColumn;
import io.tradestore.query.sql.SqlParameters;
import io.tradestore.server.http.QueryService;
import io.tradestore.server.http.ServerConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Statements that run long: cancelled by the client's CancelRequest (JDBC's Statement.cancel), stopped by the server's
 * timeout, or left by a client that disconnects; each frees its worker and, but for the last, leaves the connection
 * working.
 */
class PgCancelTest {
    private static final String SLOW = "SELECT count(*) FROM trades WHERE venue = 'SLOW'";
    private static final long WAIT_MS = 30_000;

    @TempDir
    private Path dir;

    /** Counted down when a SLOW statement starts; a new one for each statement a test waits for. */
    private volatile CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final AtomicInteger cancels = new AtomicInteger();

    /** Runs the engine, except that a statement naming venue SLOW runs until it is cancelled or times out. */
    private QueryService slow(final QueryService engine) {
        return new QueryService() {
            @Override
            public QueryResult execute(final String json, final long timeoutMs) {
                return engine.execute(json, timeoutMs);
            }

            @Override
            public QueryResult executeSql(final String sql, final SqlParameters parameters, final long timeoutMs,
                final QueryCancel cancel) {
                if (!sql.contains("'SLOW'")) {
                    return engine.executeSql(sql, parameters, timeoutMs, cancel);
                }
                entered.countDown();
                final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.min(timeoutMs, WAIT_MS));
                try {
                    // the engine sees a cancel at its next batch of rows: this stands for a scan that never ends
                    while (!cancel.isCancelled() && System.nanoTime() - end < 0) {
                        Thread.onSpinWait();
                        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
                    }
                    if (cancel.isCancelled()) {
                        cancels.incrementAndGet();
                        throw cancel.failure();
                    }
                    throw new QueryException(ErrorCode.TIMEOUT, "the query did not finish within the server's limit "
                        + "of " + timeoutMs + " ms", "");
                } finally {
                    stopped.countDown();
                }
            }

            @Override
            public List<ResultColumn> describeSql(final String sql, final SqlParameters parameters) {
                return engine.describeSql(sql, parameters);
            }
        };
    }

    private PgServed serve(final long timeoutMs) {
        return new PgServed(dir, 1_000, new ServerConfig("127.0.0.1", 0, 2, 4, 1 << 20, timeoutMs, null), 8,
            this::slow);
    }

    @Test
    void shouldCancelALongStatementWith57014AndGoOn() throws Exception {
        try (PgServed served = serve(60_000)) {
            for (final String mode : new String[] {"", "preferQueryMode=simple", "prepareThreshold=-1"}) {
                entered = new CountDownLatch(1);
                try (Connection c = served.connect(mode); Statement s = c.createStatement()) {
                    final CompletableFuture<SQLException> failure = CompletableFuture.supplyAsync(() -> {
                        try {
                            s.executeQuery(SLOW).close();
                            return null;
                        } catch (final SQLException e) {
                            return e;
                        }
                    });
                    assertThat(entered.await(WAIT_MS, TimeUnit.MILLISECONDS)).as("the statement started").isTrue();
                    s.cancel();
                    final SQLException e = failure.get(WAIT_MS, TimeUnit.MILLISECONDS);
                    assertThat((Object) e).as(mode).isNotNull();
                    assertThat(e.getSQLState()).as(mode).isEqualTo("57014");
                    assertThat(e.getMessage()).contains("canceling statement due to user request");
                    assertCountIsServed(c);
                }
                awaitIdle(served);
            }
            assertThat(cancels.get()).isEqualTo(3);
        }
    }

    @Test
    void shouldStopAStatementPastTheTimeoutWith57014() throws Exception {
        try (PgServed served = serve(300); Connection c = served.connect("")) {
            assertThatThrownBy(() -> {
                try (Statement s = c.createStatement()) {
                    s.executeQuery(SLOW).close();
                }
            }).isInstanceOfSatisfying(SQLException.class, e -> {
                assertThat(e.getSQLState()).isEqualTo("57014");
                // the limit left once the batch has waited for its worker (a few ms less than 300 on a busy machine)
                assertThat(e.getMessage()).containsPattern("limit of [0-9]+ ms");
            });
            assertCountIsServed(c);
            awaitIdle(served);
        }
    }

    @Test
    void shouldStopAStatementPastTheSessionsStatementTimeoutOnlyInThatSession() throws Exception {
        try (PgServed served = serve(60_000); Connection c = served.connect("");
            Connection other = served.connect("")) {
            try (Statement s = c.createStatement()) {
                s.execute("SET statement_timeout = '200ms'");
            }
            final long startNs = System.nanoTime();
            assertThatThrownBy(() -> {
                try (Statement s = c.createStatement()) {
                    s.executeQuery(SLOW).close();
                }
            }).isInstanceOfSatisfying(SQLException.class, e -> {
                assertThat(e.getSQLState()).isEqualTo("57014");
                assertThat(e.getMessage()).contains("canceling statement due to statement timeout");
            });
            // stopped by the session's 200 ms, long before the server's minute
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs)).isLessThan(WAIT_MS);
            assertCountIsServed(c);
            try (Statement s = other.createStatement(); ResultSet rs = s.executeQuery("SHOW statement_timeout")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("0");
            }
            awaitIdle(served);
        }
    }

    @Test
    void shouldFreeTheWorkerOfAClientThatDisconnectsMidStatement() throws Exception {
        try (PgServed served = serve(60_000)) {
            try (PgRawClient raw = new PgRawClient(served.pg().port(), (int) WAIT_MS)) {
                raw.login();
                raw.send(PgRawClient.query(SLOW));
                assertThat(entered.await(WAIT_MS, TimeUnit.MILLISECONDS)).isTrue();
                assertThat(served.http().workers().admitted()).isEqualTo(1);
            }
            assertThat(stopped.await(WAIT_MS, TimeUnit.MILLISECONDS)).as("the statement stopped").isTrue();
            assertThat(cancels.get()).isEqualTo(1);
            awaitIdle(served);
            try (Connection c = served.connect("")) {
                assertCountIsServed(c);
            }
        }
    }

    private static void assertCountIsServed(final Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM trades")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isEqualTo(1_000);
        }
    }

    /** Waits, bounded, until no statement holds or waits for a worker. */
    static void awaitIdle(final PgServed served) {
        await(() -> served.http().workers().admitted() == 0, "the workers to be idle");
    }

    static void await(final BooleanSupplier condition, final String what) {
        final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("waited " + WAIT_MS + " ms for " + what);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
        }
    }
}
