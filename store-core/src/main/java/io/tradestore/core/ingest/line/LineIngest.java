package io.tradestore.core.ingest.line;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import io.tradestore.core.StoreException;
import io.tradestore.core.TableWriter;
import io.tradestore.core.ingest.ParsedRows;
import io.tradestore.core.schema.Schema;

/**
 * Appends a request of InfluxDB line protocol to its tables as one transaction: every line is parsed, then every table
 * it touched takes its rows and is committed; the first bad line is reported with its line number, position and
 * column, and nothing of the request is kept. A table the request names that does not exist is created, when the
 * caller allows it, with a schema inferred from its first line (tags and strings as symbols, integers as i64, floats
 * as f64, booleans as i8, microsecond timestamps as timestamps, and a designated timestamp column {@value
 * #TIMESTAMP_COLUMN}), once the whole request parsed, so that a refused request creates no table.
 *
 * <p>One object per thread: it keeps its cursor and scratch space between requests.
 */
public final class LineIngest {
    /** The designated timestamp column of a table created from a line. */
    public static final String TIMESTAMP_COLUMN = "timestamp";
    private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    /** Lines between two {@link Tables#checkCancelled()} calls. */
    private static final int CANCEL_CHECK_LINES = 4096;

    private final LineCursor cursor = new LineCursor();
    private byte[] scratch = new byte[128];

    /** The tables a request writes to, as the caller holds them (the server: its writers and their locks). */
    public interface Tables {
        /**
         * @param name a table name.
         * @return its schema, or null when there is no such table.
         */
        Schema schema(String name);

        /**
         * Hands out a table's writer for the rest of the request (the caller serialises requests per table).
         *
         * @param name a table name.
         * @return the writer, or null when there is no such table.
         */
        TableWriter writer(String name);

        /** @return whether a table the request names and the store lacks may be created. */
        boolean mayCreate();

        /**
         * Creates a table (or finds it created meanwhile).
         *
         * @param schema the schema inferred from the table's first line.
         */
        void create(Schema schema);

        /** Throws when the request is to stop (the server stops); called every few thousand lines. */
        void checkCancelled();
    }

    /**
     * What a request stored.
     *
     * @param rows   rows committed, over all tables.
     * @param tables tables committed.
     */
    public record Result(long rows, int tables) {
    }

    /**
     * Stores a request's lines and commits them, or none of them. The lines are parsed whole first, without any
     * table's writer (so requests for one table parse on every ingest thread at once), into each table's rows; a
     * table the request names and the store lacks is created then, from the schema inferred from its first line; only
     * then is each table's writer taken, its rows copied in, and every table committed.
     *
     * @param body      the request body.
     * @param length    its length in bytes.
     * @param precision the unit of the lines' timestamps.
     * @param nowNanos  the designated timestamp of lines without one.
     * @param tables    where the tables come from.
     * @return what was committed.
     * @throws LineProtocolException on a bad line (nothing of the request is kept).
     */
    public Result ingest(final byte[] body, final int length, final Precision precision, final long nowNanos,
        final Tables tables) {
        for (int attempt = 1;; attempt++) {
            try {
                return ingestOnce(body, length, precision, nowNanos, tables);
            } catch (final SchemaChanged changed) {
                // dropped, or made again with other columns, by someone else while this request parsed: parse again
                // against what is there now (the lines may fit it, or be refused with their line numbers)
                if (attempt == 3) {
                    throw new StoreException("table '" + changed.getMessage() + "' kept being dropped or made again "
                        + "while this request was parsed; nothing of the request was kept: send it again");
                }
            }
        }
    }

    /** A table's columns are not those the request was parsed against: its message is the table's name. */
    private static final class SchemaChanged extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SchemaChanged(final String table) {
            super(table, null, false, false);
        }
    }

    private Result ingestOnce(final byte[] body, final int length, final Precision precision, final long nowNanos,
        final Tables tables) {
        final Map<String, LineTable> parsed = new LinkedHashMap<>();
        final List<TableWriter> writers = new ArrayList<>();
        try {
            final List<Schema> created = new ArrayList<>();
            final long rows = parse(body, length, precision, nowNanos, tables, parsed, created);
            for (final Schema s : created) {
                tables.create(s);
            }
            for (final LineTable t : parsed.values()) {
                final String name = t.schema().name();
                final TableWriter w = tables.writer(name);
                if (w == null || w.schema().columnsHash() != t.schema().columnsHash()) {
                    throw new SchemaChanged(name);
                }
                writers.add(w);
                t.rows().appendTo(w);
            }
            for (final TableWriter w : writers) {
                w.commit();
            }
            return new Result(rows, writers.size());
        } catch (final RuntimeException | Error e) {
            for (final TableWriter w : writers) {
                try {
                    if (w.isOpen()) {
                        w.rollback();
                    }
                } catch (final RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        } finally {
            for (final LineTable t : parsed.values()) {
                t.rows().close();
            }
        }
    }

    /**
     * Parses every line into its table's rows ({@code parsed}, in order of first appearance), inferring the schema of
     * each table the store lacks from its first line (added to {@code created}).
     *
     * @return the lines parsed.
     */
    private long parse(final byte[] body, final int length, final Precision precision, final long nowNanos,
        final Tables tables, final Map<String, LineTable> parsed, final List<Schema> created) {
        final LineCursor c = cursor;
        c.reset(body, length);
        LineTable last = null;
        long rows = 0;
        while (c.next()) {
            if (++rows % CANCEL_CHECK_LINES == 0) {
                tables.checkCancelled();
            }
            LineTable t = last;
            if (t == null || c.measurementEscaped || !LineTable.matches(t.nameBytes, body, c.measurementStart,
                c.measurementEnd - c.measurementStart)) {
                t = table(c, tables, parsed, created);
                last = t;
            }
            t.append(c, precision, nowNanos);
        }
        return rows;
    }

    private LineTable table(final LineCursor c, final Tables tables, final Map<String, LineTable> parsed,
        final List<Schema> created) {
        final String name = measurement(c);
        final LineTable known = parsed.get(name);
        if (known != null) {
            return known;
        }
        Schema s = tables.schema(name);
        if (s == null) {
            if (!tables.mayCreate()) {
                throw c.error(c.measurementStart, "there is no table '" + name + "'; create it first (PUT "
                    + "/v1/tables/" + name + " or tradestore create), or let the server create tables from "
                    + "lines (--ingest-create=true)");
            }
            s = infer(c, name);
            created.add(s);
        }
        final LineTable t = new LineTable(s, new ParsedRows(s));
        parsed.put(name, t);
        return t;
    }

    /** @return the line's table name, unescaped and checked against the store's naming rule. */
    private String measurement(final LineCursor c) {
        final int length = c.measurementEnd - c.measurementStart;
        final String name;
        if (c.measurementEscaped) {
            final byte[] to = scratch(length);
            name = new String(to, 0, c.unescape(c.measurementStart, c.measurementEnd, false, to),
                StandardCharsets.UTF_8);
        } else {
            name = new String(c.buffer(), c.measurementStart, length, StandardCharsets.UTF_8);
        }
        if (!NAME.matcher(name).matches()) {
            throw c.error(c.measurementStart, "'" + c.text(c.measurementStart, c.measurementEnd) + "' is not a valid "
                + "table name: lower-case letters, digits and _, starting with a letter or _, at most 63");
        }
        return name;
    }

    /** The schema of a table created from its first line. */
    private Schema infer(final LineCursor c, final String table) {
        final Schema.Builder b = Schema.builder(table);
        final Set<String> names = new HashSet<>();
        for (int i = 0; i < c.entryCount; i++) {
            final int length = c.keyEnd[i] - c.keyStart[i];
            final byte[] to = scratch(length);
            final String key = new String(to, 0, c.unescape(c.keyStart[i], c.keyEnd[i], false, to),
                StandardCharsets.UTF_8);
            if (!NAME.matcher(key).matches()) {
                throw c.error(c.keyStart[i], "'" + key + "' cannot name a column of the new table '" + table
                    + "': lower-case letters, digits and _, starting with a letter or _, at most 63", key);
            }
            if (key.equals(TIMESTAMP_COLUMN)) {
                throw c.error(c.keyStart[i], "'" + TIMESTAMP_COLUMN + "' is the designated timestamp of a table "
                    + "created from lines: give it as the line's timestamp", key);
            }
            if (!names.add(key)) {
                throw c.error(c.keyStart[i], "'" + key + "' appears twice on the line", key);
            }
            b.column(key, inferredType(c.kind[i]));
        }
        b.column(TIMESTAMP_COLUMN, "timestamp").timestamp(TIMESTAMP_COLUMN);
        return b.build();
    }

    private static String inferredType(final byte kind) {
        switch (kind) {
            case LineCursor.TAG:
            case LineCursor.STRING:
                return "symbol";
            case LineCursor.INTEGER:
            case LineCursor.UNSIGNED:
                return "i64";
            case LineCursor.BOOLEAN:
                return "i8";
            case LineCursor.MICROS:
                return "timestamp";
            default:
                return "f64";
        }
    }

    private byte[] scratch(final int length) {
        if (scratch.length < length) {
            scratch = new byte[Math.max(length, scratch.length * 2)];
        }
        return scratch;
    }
}
