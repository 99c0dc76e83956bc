package io.tradestore.query.exec;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;

import io.tradestore.query.QueryResult;
import io.tradestore.query.QueryStats;
import io.tradestore.query.ResultColumn;

/** A materialised answer (groups or scan rows; never proportional to the rows scanned), streamed to JSON on request. */
public final class Result implements QueryResult {
    private static final JsonFactory JSON = JsonFactory.builder().enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
        .build();
    private static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'")
        .withZone(ZoneOffset.UTC);
    private final List<ResultColumn> columns;
    private final List<Object[]> rows;
    private final boolean truncated;
    private final QueryStats stats;
    private final boolean[] timestamp;
    private final boolean defaultEpochNanos;

    Result(final List<ResultColumn> columns, final List<Object[]> rows, final boolean truncated, final QueryStats stats,
           final boolean defaultEpochNanos) {
        this.columns = List.copyOf(columns);
        this.rows = rows;
        this.truncated = truncated;
        this.stats = stats;
        this.defaultEpochNanos = defaultEpochNanos;
        this.timestamp = new boolean[columns.size()];
        for (int i = 0; i < timestamp.length; i++) {
            timestamp[i] = columns.get(i).type().equals("timestamp");
        }
    }

    @Override
    public List<ResultColumn> columns() {
        return columns;
    }

    @Override
    public int rowCount() {
        return rows.size();
    }

    @Override
    public Object value(final int row, final int column) {
        if (row < 0 || row >= rows.size() || column < 0 || column >= columns.size()) {
            throw new IndexOutOfBoundsException("row=" + row + " rowCount=" + rows.size() + " column=" + column
                + " columnCount="
                + columns.size());
        }
        return rows.get(row)[column];
    }

    @Override
    public boolean truncated() {
        return truncated;
    }

    @Override
    public QueryStats stats() {
        return stats;
    }

    /** @return whether the query asked for epoch-nanosecond timestamps ({@code options.epochNanos}). */
    public boolean epochNanosRequested() {
        return defaultEpochNanos;
    }

    /** @param nanos epoch nanoseconds. @return ISO-8601 UTC with nine fraction digits. */
    public static String iso(final long nanos) {
        return ISO.format(
            Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L)));
    }

    @Override
    public void writeJson(final OutputStream out, final boolean epochNanos) throws IOException {
        final boolean nanos = epochNanos || defaultEpochNanos;
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.writeStartObject();
            g.writeArrayFieldStart("columns");
            for (final ResultColumn c : columns) {
                g.writeStartObject();
                g.writeStringField("name", c.name());
                g.writeStringField("type", c.type());
                if (c.approximate()) {
                    g.writeBooleanField("approximate", true);
                    g.writeNumberField("relativeError", c.relativeError());
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("rows");
            for (final Object[] row : rows) {
                g.writeStartArray();
                for (int i = 0; i < row.length; i++) {
                    writeValue(g, row[i], timestamp[i], nanos);
                }
                g.writeEndArray();
            }
            g.writeEndArray();
            g.writeBooleanField("truncated", truncated);
            g.writeObjectFieldStart("stats");
            g.writeNumberField("elapsedMicros", stats.elapsedMicros());
            g.writeNumberField("rowsScanned", stats.rowsScanned());
            g.writeNumberField("rowsMatched", stats.rowsMatched());
            g.writeNumberField("segmentsScanned", stats.segmentsScanned());
            g.writeNumberField("segmentsSkipped", stats.segmentsSkipped());
            g.writeNumberField("blocksSkipped", stats.blocksSkipped());
            g.writeNumberField("indexedSegments", stats.indexedSegments());
            g.writeNumberField("rowsSummarized", stats.rowsSummarized());
            g.writeEndObject();
            g.writeEndObject();
        }
    }

    private static void writeValue(final JsonGenerator g, final Object v, final boolean ts,
        final boolean nanos) throws IOException {
        if (v == null) {
            g.writeNull();
        } else if (ts) {
            if (nanos) {
                g.writeNumber((Long) v);
            } else {
                g.writeString(iso((Long) v));
            }
        } else if (v instanceof Long) {
            g.writeNumber((Long) v);
        } else if (v instanceof BigDecimal) {
            g.writeNumber((BigDecimal) v);
        } else if (v instanceof Double) {
            final double d = (Double) v;
            if (Double.isFinite(d)) {
                g.writeNumber(d);
            } else {
                g.writeString(Double.toString(d));
            }
        } else {
            g.writeString(v.toString());
        }
    }
}
