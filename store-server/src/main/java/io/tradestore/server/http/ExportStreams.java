package io.tradestore.server.http;

import java.io.IOException;
import java.io.UncheckedIOException;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import io.tradestore.core.Store;
import io.tradestore.core.StoreException;
import io.tradestore.core.Table;
import io.tradestore.core.TableDroppedException;
import io.tradestore.parquet.ExportOptions;
import io.tradestore.parquet.ParquetExport;
import io.tradestore.parquet.TimestampUnit;
import io.tradestore.query.QueryException;
import io.tradestore.query.Timestamps;
import io.tradestore.server.admission.AdmittedQuery;

/**
 * {@code GET /v1/tables/{name}/export?format=parquet&from=&to=&timestampUnit=&compression=}: one Parquet file of the
 * table's committed rows whose designated timestamp is in {@code [from, to)}, streamed while it is written, on a query
 * worker (admitted as a query is: 503 when the workers are busy).
 */
final class ExportStreams {
    /** The media type registered for Parquet. */
    static final String PARQUET_TYPE = "application/vnd.apache.parquet";

    private final Store store;
    private final QueryAdmission admission;
    private final AnswerWriter answers;
    private final ServerConfig config;

    ExportStreams(final Store store, final QueryAdmission admission, final AnswerWriter answers,
        final ServerConfig config) {
        this.store = store;
        this.admission = admission;
        this.answers = answers;
        this.config = config;
    }

    /**
     * Checks the parameters, then streams the file from a worker.
     *
     * @param call the request.
     * @param name the table.
     */
    void get(final Call call, final String name) {
        if (!name.matches(HttpFrontEnd.TABLE_NAME_PATTERN) || !store.hasTable(name)) {
            answers.error(call, 404, "UNKNOWN_TABLE", "no table '" + StoreException.echo(name) + "'; tables are "
                + store.tableNames(), "");
            return;
        }
        final String format;
        final long from;
        final long to;
        final TimestampUnit unit;
        final CompressionCodecName codec;
        try {
            format = value(call, "format", "parquet");
            if (!"parquet".equals(format)) {
                throw new IllegalArgumentException("format=" + StoreException.echo(format) + " is not one this "
                    + "endpoint writes: parquet");
            }
            from = time(call, "from", Long.MIN_VALUE);
            to = time(call, "to", Long.MAX_VALUE);
            if (from != Long.MIN_VALUE && to != Long.MAX_VALUE && from >= to) {
                throw new IllegalArgumentException("from must be before to (the range is [from, to))");
            }
            unit = TimestampUnit.parse(value(call, "timestampUnit", "nanos"));
            codec = ExportOptions.parseCompression(value(call, "compression", "zstd"));
        } catch (final IllegalArgumentException e) {
            answers.error(call, 400, "INVALID_PARAMETER", e.getMessage(), "");
            return;
        }
        call.header("Content-Disposition", "attachment; filename=\"" + name + ".parquet\"");
        final StreamedAnswer out = new StreamedAnswer(answers, call, PARQUET_TYPE, config.timeoutMs());
        final AdmittedQuery job = new AdmittedQuery() {
            @Override
            public void run() {
                try {
                    final Table table = store.table(name);
                    ParquetExport.stream(table, from, to, unit, codec, out);
                    out.close();
                } catch (final UncheckedIOException | IOException e) {
                    out.abort(); // the client went away or stalled, or the stop: nobody is left to tell
                } catch (final TableDroppedException e) {
                    failed(out, call, 404, "UNKNOWN_TABLE", "table '" + name + "' was dropped", e);
                } catch (final StoreException e) {
                    failed(out, call, 400, "INVALID_PARAMETER", e.getMessage(), e);
                } catch (final RuntimeException e) {
                    out.abort();
                    if (!out.started()) {
                        answers.internal(call, e);
                    }
                }
            }

            @Override
            public void stopNow() {
                out.stop();
                if (!out.started()) {
                    call.header("Retry-After", Integer.toString(AnswerWriter.RETRY_AFTER_SECONDS));
                    answers.error(call, 503, "OVERLOADED", QueryAdmission.STOPPING_MESSAGE, "");
                }
            }
        };
        if (!admission.submit(job)) {
            call.header("Retry-After", Integer.toString(AnswerWriter.RETRY_AFTER_SECONDS));
            answers.error(call, 503, "OVERLOADED", admission.overloadedMessage(), "");
        }
    }

    private void failed(final StreamedAnswer out, final Call call, final int status, final String code,
        final String message, final RuntimeException e) {
        out.abort();
        if (!out.started()) {
            answers.error(call, status, code, message, "");
        }
    }

    private static String value(final Call call, final String name, final String absent) {
        final String v = QueryAdmission.parameter(call.rawQuery, name);
        return v == null || v.isBlank() ? absent : v.trim();
    }

    /** A date, an ISO-8601 timestamp (as a query's time range takes it) or nanoseconds since the epoch. */
    private static long time(final Call call, final String name, final long absent) {
        final String v = value(call, name, null);
        if (v == null) {
            return absent;
        }
        try {
            return v.matches("-?[0-9]{1,19}") ? Long.parseLong(v) : Timestamps.nanos(v);
        } catch (final QueryException | NumberFormatException e) {
            throw new IllegalArgumentException(name + "=" + StoreException.echo(v) + " is not a date (2026-11-17), "
                + "an instant (2026-11-17T09:30:00Z) or nanoseconds since 1970");
        }
    }
}
