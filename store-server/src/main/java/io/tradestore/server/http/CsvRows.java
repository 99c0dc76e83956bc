package io.tradestore.server.http;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.tradestore.query.QueryResult;
import io.tradestore.query.ResultColumn;
import io.tradestore.query.Timestamps;

/**
 * An answer as CSV (RFC 4180 quoting, LF line ends, UTF-8): a header of the column names, then one line per row, each
 * batch written as it comes. Nulls are empty fields; decimals keep their scale; timestamps are ISO-8601 in UTC, or
 * integer epoch nanoseconds with {@code epochNanos=true}, as in the JSON answer.
 */
final class CsvRows implements ResultFormat.Writer {
    static final String TYPE = "text/csv; charset=utf-8";

    private final OutputStream out;
    private final boolean epochNanos;
    private boolean[] timestamps;
    private final StringBuilder line = new StringBuilder(256);

    CsvRows(final OutputStream out, final boolean epochNanos) {
        this.out = out;
        this.epochNanos = epochNanos;
    }

    @Override
    public void rows(final QueryResult batch) throws IOException {
        final List<ResultColumn> columns = batch.columns();
        final StringBuilder b = line;
        if (timestamps == null) {
            timestamps = new boolean[columns.size()];
            b.setLength(0);
            for (int c = 0; c < columns.size(); c++) {
                timestamps[c] = "timestamp".equals(columns.get(c).type());
                if (c > 0) {
                    b.append(',');
                }
                text(b, columns.get(c).name());
            }
            b.append('\n');
            out.write(b.toString().getBytes(StandardCharsets.UTF_8));
        }
        for (int r = 0; r < batch.rowCount(); r++) {
            b.setLength(0);
            for (int c = 0; c < timestamps.length; c++) {
                if (c > 0) {
                    b.append(',');
                }
                final Object v = batch.value(r, c);
                if (v == null) {
                    continue;
                }
                if (timestamps[c] && v instanceof Long l && !epochNanos) {
                    b.append(Timestamps.iso(l));
                } else if (v instanceof BigDecimal d) {
                    b.append(d.toPlainString());
                } else if (v instanceof String s) {
                    text(b, s);
                } else {
                    b.append(v);
                }
            }
            b.append('\n');
            out.write(b.toString().getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Appends text, quoted when it holds a comma, quote, line break or edge space (quotes doubled). */
    private static void text(final StringBuilder b, final String s) {
        boolean quote = !s.isEmpty() && (s.charAt(0) == ' ' || s.charAt(s.length() - 1) == ' ');
        for (int i = 0; i < s.length() && !quote; i++) {
            final char ch = s.charAt(i);
            quote = ch == ',' || ch == '"' || ch == '\n' || ch == '\r';
        }
        if (!quote) {
            b.append(s);
            return;
        }
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            final char ch = s.charAt(i);
            if (ch == '"') {
                b.append('"');
            }
            b.append(ch);
        }
        b.append('"');
    }
}
