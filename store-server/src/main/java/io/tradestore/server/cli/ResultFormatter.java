package io.tradestore.server.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

import io.tradestore.query.QueryResult;

/** Prints a query result as an aligned table, CSV, or the HTTP API's JSON. */
final class ResultFormatter {
    /** The output formats of {@code tradestore query}. */
    enum Format { table, json, csv }

    private ResultFormatter() {
    }

    /**
     * Prints a result.
     *
     * @param r          the result.
     * @param format     the format.
     * @param epochNanos timestamps as integer epoch nanos instead of ISO-8601.
     * @param out        where to print.
     * @throws IOException when writing fails.
     */
    static void print(final QueryResult r, final Format format, final boolean epochNanos,
        final PrintWriter out) throws IOException {
        switch (format) {
            case json: {
                final ByteArrayOutputStream buf = new ByteArrayOutputStream();
                r.writeJson(buf, epochNanos);
                out.println(buf.toString(StandardCharsets.UTF_8));
                break;
            }
            case csv:
                csv(r, epochNanos, out);
                break;
            case table:
            default:
                table(r, epochNanos, out);
                break;
        }
        out.flush();
    }

    static String text(final QueryResult r, final int row, final int col, final boolean epochNanos) {
        final Object v = r.value(row, col);
        if (v == null) {
            return "";
        }
        if (v instanceof BigDecimal) {
            return ((BigDecimal) v).toPlainString();
        }
        if (v instanceof Long && "timestamp".equals(r.columns().get(col).type()) && !epochNanos) {
            final long ns = (Long) v;
            return Instant.ofEpochSecond(Math.floorDiv(ns, 1_000_000_000L),
                Math.floorMod(ns, 1_000_000_000L)).toString();
        }
        return v.toString();
    }

    private static void csv(final QueryResult r, final boolean epochNanos, final PrintWriter out) {
        final int cols = r.columns().size();
        for (int c = 0; c < cols; c++) {
            out.print(c == 0 ? "" : ",");
            out.print(csvField(r.columns().get(c).name()));
        }
        out.println();
        for (int row = 0; row < r.rowCount(); row++) {
            for (int c = 0; c < cols; c++) {
                out.print(c == 0 ? "" : ",");
                out.print(csvField(text(r, row, c, epochNanos)));
            }
            out.println();
        }
    }

    private static String csvField(final String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }

    private static void table(final QueryResult r, final boolean epochNanos, final PrintWriter out) {
        final int cols = r.columns().size();
        final int rows = r.rowCount();
        final String[][] cells = new String[rows][cols];
        final int[] width = new int[cols];
        final boolean[] right = new boolean[cols];
        for (int c = 0; c < cols; c++) {
            width[c] = r.columns().get(c).name().length();
            final String t = r.columns().get(c).type();
            right[c] = !("symbol".equals(t) || "char".equals(t) || "timestamp".equals(t));
        }
        for (int row = 0; row < rows; row++) {
            for (int c = 0; c < cols; c++) {
                cells[row][c] = text(r, row, c, epochNanos);
                width[c] = Math.max(width[c], cells[row][c].length());
            }
        }
        final StringBuilder line = new StringBuilder();
        for (int c = 0; c < cols; c++) {
            line.append(c == 0 ? "" : "  ").append(pad(r.columns().get(c).name(), width[c], right[c]));
        }
        out.println(line.toString().stripTrailing());
        line.setLength(0);
        for (int c = 0; c < cols; c++) {
            line.append(c == 0 ? "" : "  ").append("-".repeat(width[c]));
        }
        out.println(line);
        for (int row = 0; row < rows; row++) {
            line.setLength(0);
            for (int c = 0; c < cols; c++) {
                line.append(c == 0 ? "" : "  ").append(pad(cells[row][c], width[c], right[c]));
            }
            out.println(line.toString().stripTrailing());
        }
    }

    private static String pad(final String s, final int width, final boolean right) {
        final String fill = " ".repeat(width - s.length());
        return right ? fill + s : s + fill;
    }
}
