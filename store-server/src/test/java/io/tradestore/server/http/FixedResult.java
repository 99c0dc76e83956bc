package io.tradestore.server.http;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.tradestore.query.QueryResult;
import io.tradestore.query.QueryStats;
import io.tradestore.query.ResultColumn;

/** A one-row result ({@code n = value}) for server tests that must not depend on the engine. */
final class FixedResult implements QueryResult {
    private final long value;

    FixedResult(final long value) {
        this.value = value;
    }

    @Override
    public List<ResultColumn> columns() {
        return List.of(new ResultColumn("n", "i64"));
    }

    @Override
    public int rowCount() {
        return 1;
    }

    @Override
    public Object value(final int row, final int column) {
        return value;
    }

    @Override
    public boolean truncated() {
        return false;
    }

    @Override
    public QueryStats stats() {
        return new QueryStats(1, 10, 1, 1, 0, 0, 0, 0);
    }

    @Override
    public void writeJson(final OutputStream out, final boolean epochNanos) throws IOException {
        out.write(("{\"columns\":[{\"name\":\"n\",\"type\":\"i64\"}],\"rows\":[[" + value + "]],\"truncated\":false,"
            + "\"stats\":{\"elapsedMicros\":1,\"rowsScanned\":10,\"rowsMatched\":1}}")
            .getBytes(StandardCharsets.UTF_8));
    }
}
