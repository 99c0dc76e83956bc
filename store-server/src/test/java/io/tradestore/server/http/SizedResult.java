package io.tradestore.server.http;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import io.tradestore.query.QueryResult;
import io.tradestore.query.QueryStats;
import io.tradestore.query.ResultColumn;

/** A result whose JSON answer is exactly {@code bytes} long (one string row), for tests of large answers. */
final class SizedResult implements QueryResult {
    private static final byte[] HEAD = "{\"columns\":[],\"rows\":[[\"".getBytes(StandardCharsets.UTF_8);
    private static final byte[] TAIL = "\"]]}".getBytes(StandardCharsets.UTF_8);
    private final FixedResult fixed = new FixedResult(1);
    private final int bytes;

    SizedResult(final int bytes) {
        this.bytes = bytes;
    }

    @Override
    public List<ResultColumn> columns() {
        return fixed.columns();
    }

    @Override
    public int rowCount() {
        return fixed.rowCount();
    }

    @Override
    public Object value(final int row, final int column) {
        return fixed.value(row, column);
    }

    @Override
    public boolean truncated() {
        return false;
    }

    @Override
    public QueryStats stats() {
        return fixed.stats();
    }

    @Override
    public void writeJson(final OutputStream out, final boolean epochNanos) throws IOException {
        final byte[] filler = new byte[bytes - HEAD.length - TAIL.length];
        Arrays.fill(filler, (byte) 'x');
        out.write(HEAD);
        out.write(filler);
        out.write(TAIL);
    }
}
