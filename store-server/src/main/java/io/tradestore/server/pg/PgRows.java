package io.tradestore.server.pg;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.ByteBuf;

import io.tradestore.query.QueryResult;
import io.tradestore.query.ResultColumn;

/**
 * The rows a statement answers, from the engine's {@link QueryResult}s (typed values, read in place: no JSON between;
 * one batch of a stream, or the batches of an answer held for a portal) or from the catalog's {@link PgAnswer}
 * (text), written as DataRow messages in each column's format; a portal executed with a row limit resumes where the
 * last Execute stopped.
 */
final class PgRows {
    private final List<PgColumn> columns;
    private final List<QueryResult> parts;
    /** The first row of each part, and the total at the end. */
    private final int[] starts;
    private final PgAnswer answer;
    private final String tag;
    private int next;
    /** The part that holds row {@code next}. */
    private int part;
    /** The row after the last one written: the answer's count, or a FETCH window's end. */
    private int end = -1;
    /** A FETCH window's first row (its tag counts the rows written from there), -1 otherwise. */
    private int first = -1;

    private PgRows(final List<PgColumn> columns, final List<QueryResult> parts, final PgAnswer answer,
        final String tag) {
        this.columns = columns;
        this.parts = parts;
        this.answer = answer;
        this.tag = tag;
        this.starts = new int[parts.size() + 1];
        for (int i = 0; i < parts.size(); i++) {
            starts[i + 1] = starts[i] + parts.get(i).rowCount();
        }
    }

    /** @param result an engine answer. @return its rows. */
    static PgRows of(final QueryResult result) {
        return of(List.of(result));
    }

    /** @param parts an engine answer's batches (at least one: the first gives the columns). @return their rows. */
    static PgRows of(final List<QueryResult> parts) {
        return new PgRows(columns(parts.get(0).columns()), List.copyOf(parts), null, "SELECT");
    }

    /** @param answer a catalog answer. @return its rows. */
    static PgRows of(final PgAnswer answer) {
        return new PgRows(answer.columns(), List.of(), answer, answer.commandTag());
    }

    /**
     * @param engine the engine's columns.
     * @return them as PostgreSQL columns: integers int8, f64 float8, decimals numeric, timestamps timestamptz,
     *     symbols and chars text.
     */
    static List<PgColumn> columns(final List<ResultColumn> engine) {
        final List<PgColumn> out = new ArrayList<>(engine.size());
        for (final ResultColumn c : engine) {
            out.add(new PgColumn(c.name(), type(c.type())));
        }
        return List.copyOf(out);
    }

    /** @param engineType {@code i64}, {@code decimal(6)}... @return its PostgreSQL type. */
    static PgType type(final String engineType) {
        switch (engineType) {
            case "i8":
            case "i16":
            case "i32":
            case "i64":
                return PgType.INT8;
            case "f64":
                return PgType.FLOAT8;
            case "timestamp":
                return PgType.TIMESTAMPTZ;
            default:
                return engineType.startsWith("decimal") ? PgType.NUMERIC : PgType.TEXT;
        }
    }

    List<PgColumn> columns() {
        return columns;
    }

    /** @return whether the catalog found the statement empty (answered EmptyQueryResponse, not CommandComplete). */
    boolean empty() {
        return answer != null && answer.commandTag().isEmpty();
    }

    /** @return whether the statement returns rows (a SET does not: NoData, no RowDescription). */
    boolean hasRows() {
        return !columns.isEmpty();
    }

    /** @return rows of the whole answer. */
    int rowCount() {
        return answer == null ? starts[parts.size()] : answer.rows().size();
    }

    /**
     * @param from first row of the window.
     * @param to   the row after its last.
     * @return rows {@code [from, to)} of this answer, sharing its values, answered as a cursor's FETCH ({@code FETCH
     *     n}, with its columns described even when it holds no row).
     */
    PgRows window(final int from, final int to) {
        final PgRows w = new PgRows(columns, parts, answer, "FETCH");
        w.next = from;
        w.first = from;
        w.end = to;
        return w;
    }

    /**
     * Writes DataRows from where the last call stopped.
     *
     * @param out     where.
     * @param formats each column's format.
     * @param maxRows most rows to write; 0 for all.
     * @return whether rows are left (the portal is suspended).
     */
    boolean write(final PgOutput out, final short[] formats, final int maxRows) {
        final int count = end >= 0 ? end : rowCount();
        final int end = maxRows > 0 ? (int) Math.min(count, (long) next + maxRows) : count;
        final int width = columns.size();
        for (int r = next; r < end; r++) {
            out.begin('D').int16(width);
            try {
                row(out.buffer(), formats, r, width);
            } catch (final RuntimeException e) {
                out.abandon();
                throw e;
            }
            out.end();
        }
        next = end;
        return end < count;
    }

    private void row(final ByteBuf buf, final short[] formats, final int r, final int width) {
        while (answer == null && r >= starts[part + 1]) {
            part++; // rows are written in order: the next part begins where this one ends
        }
        final QueryResult result = answer == null ? parts.get(part) : null;
        final int inPart = answer == null ? r - starts[part] : r;
        for (int c = 0; c < width; c++) {
            final Object v = result != null ? result.value(inPart, c) : answer.rows().get(r).get(c);
            if (v == null) {
                buf.writeInt(-1);
            } else if (formats[c] == 1) {
                PgValues.binary(buf, columns.get(c).type(), v);
            } else {
                final String text = result != null ? PgValues.text(columns.get(c).type(), v) : (String) v;
                final int at = buf.writerIndex();
                buf.writeInt(0);
                final int length = buf.writeCharSequence(text, StandardCharsets.UTF_8);
                buf.setInt(at, length);
            }
        }
    }

    /** @return the CommandComplete tag: {@code SELECT n} with the rows written, or the catalog's tag. */
    String tag() {
        if (first >= 0) {
            return "FETCH " + (next - first);
        }
        if (tag.equals("SELECT") || tag.startsWith("SELECT ") && hasRows()) {
            return "SELECT " + next;
        }
        return tag;
    }

    /** @return rows the engine looked at and matched, for the metrics. */
    long scanned() {
        if (first >= 0) {
            return 0; // a FETCH's rows were scanned when its cursor was declared, and counted then
        }
        long n = 0;
        for (final QueryResult r : parts) {
            n += r.stats().rowsScanned();
        }
        return n;
    }

    long matched() {
        if (first >= 0) {
            return 0;
        }
        long n = 0;
        for (final QueryResult r : parts) {
            n += r.stats().rowsMatched();
        }
        return n;
    }
}
