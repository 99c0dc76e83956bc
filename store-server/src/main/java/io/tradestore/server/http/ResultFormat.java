package io.tradestore.server.http;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Locale;

import io.tradestore.query.RowStream;

/**
 * How a query's answer is written: JSON (whole, the default), or streamed as CSV or as an Apache Arrow IPC stream,
 * chosen by the {@code format} parameter or else the {@code Accept} header.
 */
enum ResultFormat {
    JSON(AnswerWriter.JSON_TYPE),
    CSV(CsvRows.TYPE),
    ARROW(ArrowRows.TYPE);

    private final String contentType;

    ResultFormat(final String contentType) {
        this.contentType = contentType;
    }

    /** A streamed answer's writer: batches, then the end; closed in every case, to free what it holds. */
    interface Writer extends RowStream, AutoCloseable {
        /** @throws IOException when the end cannot be written. */
        default void end() throws IOException {
        }

        @Override
        default void close() {
        }
    }

    String contentType() {
        return contentType;
    }

    /**
     * @param out        the answer's stream.
     * @param epochNanos timestamps as epoch nanoseconds (CSV; Arrow's are typed).
     * @return the writer of this format (not for JSON).
     */
    Writer writer(final OutputStream out, final boolean epochNanos) {
        return switch (this) {
            case CSV -> new CsvRows(out, epochNanos);
            case ARROW -> new ArrowRows(out);
            case JSON -> throw new IllegalStateException("JSON answers are written whole");
        };
    }

    /**
     * @param parameter the {@code format} parameter, or null.
     * @param accept    the {@code Accept} header, or null.
     * @return the format.
     * @throws IllegalArgumentException for a parameter that names no format.
     */
    static ResultFormat of(final String parameter, final String accept) {
        if (parameter != null) {
            switch (parameter.trim().toLowerCase(Locale.ROOT)) {
                case "json":
                    return JSON;
                case "csv":
                    return CSV;
                case "arrow":
                    return ARROW;
                default:
                    throw new IllegalArgumentException("format=" + parameter + " is not one of json, csv, arrow");
            }
        }
        if (accept != null) {
            final String a = accept.toLowerCase(Locale.ROOT);
            if (a.contains("application/vnd.apache.arrow.stream")) {
                return ARROW;
            }
            if (a.contains("text/csv")) {
                return CSV;
            }
        }
        return JSON;
    }
}
