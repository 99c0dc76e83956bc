package io.tradestore.query;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;

import io.tradestore.query.exec.Result;

/**
 * Writes any {@link QueryResult} as the answer object of docs/query-language.md ({@code columns, rows, truncated,
 * stats}) through its accessors: the engine's own answers and the views of them that the SQL front end makes.
 */
public final class ResultJson {
    private static final JsonFactory JSON = JsonFactory.builder().enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
        .build();

    private ResultJson() {
    }

    /**
     * @param r          the answer.
     * @param out        where to write; not closed.
     * @param epochNanos timestamps as integer epoch nanoseconds instead of ISO-8601 strings.
     * @throws IOException when writing fails.
     */
    public static void write(final QueryResult r, final OutputStream out, final boolean epochNanos)
        throws IOException {
        final int width = r.columns().size();
        final boolean[] timestamp = new boolean[width];
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.writeStartObject();
            g.writeArrayFieldStart("columns");
            for (int c = 0; c < width; c++) {
                final ResultColumn col = r.columns().get(c);
                timestamp[c] = col.type().equals("timestamp");
                g.writeStartObject();
                g.writeStringField("name", col.name());
                g.writeStringField("type", col.type());
                if (col.approximate()) {
                    g.writeBooleanField("approximate", true);
                    g.writeNumberField("relativeError", col.relativeError());
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("rows");
            for (int row = 0; row < r.rowCount(); row++) {
                g.writeStartArray();
                for (int c = 0; c < width; c++) {
                    value(g, r.value(row, c), timestamp[c], epochNanos);
                }
                g.writeEndArray();
            }
            g.writeEndArray();
            g.writeBooleanField("truncated", r.truncated());
            stats(g, r.stats());
            g.writeEndObject();
        }
    }

    private static void stats(final JsonGenerator g, final QueryStats s) throws IOException {
        g.writeObjectFieldStart("stats");
        g.writeNumberField("elapsedMicros", s.elapsedMicros());
        g.writeNumberField("rowsScanned", s.rowsScanned());
        g.writeNumberField("rowsMatched", s.rowsMatched());
        g.writeNumberField("segmentsScanned", s.segmentsScanned());
        g.writeNumberField("segmentsSkipped", s.segmentsSkipped());
        g.writeNumberField("blocksSkipped", s.blocksSkipped());
        g.writeNumberField("indexedSegments", s.indexedSegments());
        g.writeNumberField("rowsSummarized", s.rowsSummarized());
        g.writeEndObject();
    }

    private static void value(final JsonGenerator g, final Object v, final boolean ts, final boolean nanos)
        throws IOException {
        if (v == null) {
            g.writeNull();
        } else if (ts && v instanceof Long l) {
            if (nanos) {
                g.writeNumber(l);
            } else {
                g.writeString(Result.iso(l));
            }
        } else if (v instanceof Long l) {
            g.writeNumber(l);
        } else if (v instanceof BigDecimal b) {
            g.writeNumber(b);
        } else if (v instanceof Double d) {
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
