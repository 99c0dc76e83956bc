package io.tradestore.server.http;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryCancel;
import io.tradestore.query.QueryException;
import io.tradestore.query.QueryResult;

/**
 * An engine's query service, except that SQL naming venue {@code 'SLOW'} runs until it is cancelled (a minute at
 * most), as a scan that sees the cancel at its next batch would; for the tests of cancelling.
 */
final class UntilCancelled implements QueryService {
    /** Counted down when a SLOW statement starts. */
    final CountDownLatch started = new CountDownLatch(1);
    /** Counted down when a SLOW statement sees its cancel. */
    final CountDownLatch cancelled = new CountDownLatch(1);
    private final QueryService engine;

    UntilCancelled(final QueryService engine) {
        this.engine = engine;
    }

    @Override
    public QueryResult execute(final String json, final long timeoutMs) {
        return engine.execute(json, timeoutMs);
    }

    @Override
    public QueryResult execute(final String json, final long timeoutMs, final QueryCancel cancel) {
        return engine.execute(json, timeoutMs, cancel);
    }

    @Override
    public QueryResult execute(final java.io.InputStream json, final long timeoutMs, final QueryCancel cancel) {
        return engine.execute(json, timeoutMs, cancel);
    }

    @Override
    public void stream(final String text, final java.io.InputStream body, final boolean sql, final long timeoutMs,
        final QueryCancel cancel, final io.tradestore.query.RowStream out) throws java.io.IOException {
        engine.stream(text, body, sql, timeoutMs, cancel, out); // CSV and Arrow answers as the engine streams them
    }

    @Override
    public QueryResult executeSql(final String sql, final long timeoutMs, final QueryCancel cancel) {
        if (!sql.contains("'SLOW'")) {
            return engine.executeSql(sql, timeoutMs, cancel);
        }
        started.countDown();
        final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!cancel.isCancelled() && System.nanoTime() - end < 0) {
            LockSupport.parkNanos(1_000_000);
        }
        if (cancel.isCancelled()) {
            cancelled.countDown();
            throw cancel.failure();
        }
        throw new QueryException(ErrorCode.TIMEOUT, "not cancelled within a minute", "");
    }
}
