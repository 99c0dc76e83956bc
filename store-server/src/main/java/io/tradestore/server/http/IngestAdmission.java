package io.tradestore.server.http;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufOutputStream;

import io.tradestore.core.Retention;
import io.tradestore.core.RetentionRule;
import io.tradestore.core.Store;
import io.tradestore.core.StoreException;
import io.tradestore.core.TableLockedException;
import io.tradestore.core.TableWriter;
import io.tradestore.core.ingest.CsvLoader;
import io.tradestore.core.ingest.LoadException;
import io.tradestore.core.ingest.LoadOptions;
import io.tradestore.core.ingest.LoadResult;
import io.tradestore.core.ingest.line.LineIngest;
import io.tradestore.core.ingest.line.LineProtocolException;
import io.tradestore.core.ingest.line.Precision;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.schema.SchemaCodec;
import io.tradestore.server.ingest.IngestConfig;
import io.tradestore.server.ingest.IngestRefusedException;
import io.tradestore.server.ingest.IngestTables;

/**
 * Ingest requests (line protocol at {@code /write} and {@code /api/v2/write}, CSV at
 * {@code /v1/tables/{name}/import}) on their own threads, apart from the query workers: at most threads running plus
 * queue waiting (beyond: 503 at once). Each request is one transaction, answered after its commit: 204 for line
 * protocol (as InfluxDB and QuestDB answer), 200 with counts for CSV; a bad line or field is 400 with its line and
 * column and nothing of the request kept.
 */
final class IngestAdmission {
    /** A worker keeps a body buffer up to this size between requests; a larger one is let go after its request. */
    private static final int KEPT_BUFFER_LENGTH = 8 << 20;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(QueryServer.class);
    private static final ObjectMapper SCHEMA_JSON = new ObjectMapper();

    private final IngestTables tables;
    private final IngestConfig config;
    private final AnswerWriter answers;
    private final ServerMetrics metrics;
    private final ThreadPoolExecutor workers;
    private final AtomicInteger admitted = new AtomicInteger();
    private final ThreadLocal<Worker> worker = ThreadLocal.withInitial(Worker::new);
    /**
     * Closes writers left unused ({@link IngestConfig#idleMs()}) and applies the tables' TTLs
     * ({@link IngestConfig#retentionMs()}); null when neither is asked for.
     */
    private final ScheduledExecutorService idleCheck;
    /** Told the name of each table dropped, after the drop: the readers of it are closed. */
    private volatile Consumer<String> onDropped = name -> { };
    /** Told the name of each table retention trimmed: its readers let go of the dropped segments. */
    private volatile Consumer<String> onRetained = name -> { };
    /** Set once the stop's grace is over: requests in flight roll back and answer 503. */
    private volatile boolean cancelling;

    /** A worker thread's parser and body buffer. */
    private static final class Worker {
        final LineIngest lines = new LineIngest();
        byte[] body = new byte[64 << 10];
    }

    IngestAdmission(final Store store, final IngestConfig config, final AnswerWriter answers,
        final ServerMetrics metrics) {
        this.tables = new IngestTables(store, config);
        this.config = config;
        this.answers = answers;
        this.metrics = metrics;
        this.workers = new ThreadPoolExecutor(config.threads(), config.threads(), 0, TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(), QueryAdmission.daemonThreads("tradestore-ingest-", 0),
            new ThreadPoolExecutor.AbortPolicy());
        if (config.idleMs() > 0 || config.retentionMs() > 0) {
            idleCheck = Executors.newSingleThreadScheduledExecutor(
                QueryAdmission.daemonThreads("tradestore-ingest-housekeeping-", 0));
        } else {
            idleCheck = null;
        }
        if (config.idleMs() > 0) {
            final long periodMs = Math.max(50, config.idleMs() / 4);
            idleCheck.scheduleWithFixedDelay(this::closeIdle, periodMs, periodMs, TimeUnit.MILLISECONDS);
        }
        if (config.retentionMs() > 0) {
            idleCheck.scheduleWithFixedDelay(this::applyTtls, Math.min(config.retentionMs(), 1000),
                config.retentionMs(), TimeUnit.MILLISECONDS);
        }
    }

    /** @return the largest ingest body. */
    int maxBodyLength() {
        return config.maxBodyLength();
    }

    void tooLarge(final Call call) {
        answers.error(call, 413, "PAYLOAD_TOO_LARGE", "the body is larger than the server's ingest limit of "
            + config.maxBodyLength() + " bytes (--max-ingest-body); send the rows in several requests", "");
    }

    /**
     * {@code POST /write?precision=}: line protocol.
     *
     * @param call the request.
     */
    void postLines(final Call call) {
        final Precision precision;
        try {
            precision = Precision.of(QueryAdmission.parameter(call.rawQuery, "precision"));
        } catch (final IllegalArgumentException e) {
            answers.error(call, 400, "INVALID_PARAMETER", e.getMessage(), "");
            return;
        }
        submit(call, () -> lines(call, precision));
    }

    /**
     * {@code POST /v1/tables/{name}/import}: CSV with a header row, into an existing table.
     *
     * @param call  the request.
     * @param table the table name.
     */
    void postCsv(final Call call, final String table) {
        submit(call, () -> csv(call, table));
    }

    /**
     * {@code PUT /v1/tables/{name}}: creates a table from a schema (the JSON of {@code tradestore create --schema};
     * its {@code name} may be left out, or must be the path's). 201 with the table's description; 409 when it exists.
     *
     * @param call  the request.
     * @param table the table name.
     */
    void putTable(final Call call, final String table) {
        submit(call, () -> create(call, table));
    }

    /** @param listener told the name of each table dropped, after the drop. */
    void onDropped(final Consumer<String> listener) {
        this.onDropped = listener;
    }

    /** @param listener told the name of each table retention trimmed, after the drop. */
    void onRetained(final Consumer<String> listener) {
        this.onRetained = listener;
    }

    /**
     * {@code DELETE /v1/tables/{name}}: drops a table (see {@link IngestTables#dropTable}). 204 once it is gone; 409
     * while another process writes it; 503 when this server's requests keep its writer busy.
     *
     * @param call  the request.
     * @param table the table name.
     */
    void deleteTable(final Call call, final String table) {
        submit(call, () -> drop(call, table));
    }

    private void drop(final Call call, final String table) {
        if (!tables.store().hasTable(table)) {
            answers.error(call, 404, "UNKNOWN_TABLE", "no table '" + table + "'; tables are "
                + tables.store().tableNames(), "");
            return;
        }
        try {
            tables.dropTable(table, call.startNs);
        } catch (final TableLockedException e) {
            answers.error(call, 409, "TABLE_LOCKED", e.getMessage() + "; stop the other writer first", "");
            return;
        } catch (final RuntimeException e) {
            refused(call, e);
            return;
        }
        onDropped.accept(table);
        metrics.tableDropped();
        LOG.info("dropped table {}", table);
        answers.noContent(call);
    }

    /** Applies each table's TTL, if it has one, with the table's writer (see {@link IngestTables#retain}). */
    private void applyTtls() {
        final Store store = tables.store();
        try {
            for (final String name : store.tableNames()) {
                try {
                    final long ttl = store.hasTable(name) ? store.table(name).ttlNanos() : 0;
                    if (ttl > 0) {
                        final Retention r = tables.retain(name, ttl, nowNanos(), System.nanoTime());
                        if (r.segments() > 0) {
                            onRetained.accept(name);
                            metrics.retained(name, r);
                            LOG.info("retention dropped {} segments ({} rows) of table {}, older than its TTL of {}",
                                r.segments(), r.rows(), name, RetentionRule.format(ttl));
                        }
                    }
                } catch (final TableLockedException | IngestRefusedException e) {
                    LOG.debug("TTL of table {} not applied this time: {}", name, e.getMessage());
                } catch (final RuntimeException e) {
                    LOG.warn("applying the TTL of table {} failed: {}", name, e.getMessage());
                }
            }
        } catch (final RuntimeException e) {
            LOG.warn("applying the tables' TTLs failed: {}", e.getMessage());
        }
    }

    private void create(final Call call, final String table) {
        final Schema schema;
        long ttl = 0;
        try {
            final JsonNode root = SCHEMA_JSON.readTree(new ByteBufInputStream(call.request.content().duplicate()));
            if (root == null || !root.isObject()) {
                answers.error(call, 400, "INVALID_SCHEMA", "the body must be a schema: a JSON object with columns, "
                    + "as tradestore create --schema takes", "");
                return;
            }
            final ObjectNode o = (ObjectNode) root;
            if (!o.has("name")) {
                o.put("name", table);
            } else if (!table.equals(o.path("name").asText())) {
                answers.error(call, 400, "INVALID_SCHEMA", "the schema names table '" + StoreException.echo(
                    o.path("name").asText()) + "' but the path names '" + table + "'", "/name");
                return;
            }
            final JsonNode ttlNode = o.remove("ttl"); // the table's, not the schema's: kept beside it
            if (ttlNode != null) {
                try {
                    ttl = RetentionRule.parse(ttlNode.isTextual() ? ttlNode.asText() : ttlNode.toString());
                } catch (final IllegalArgumentException e) {
                    answers.error(call, 400, "INVALID_SCHEMA", e.getMessage(), "/ttl");
                    return;
                }
            }
            schema = SchemaCodec.parse(o, "schema");
            if (ttl > 0 && schema.timestampIndex() < 0) {
                answers.error(call, 400, "INVALID_SCHEMA", "a ttl needs a designated timestamp (\"timestamp\"): "
                    + "retention drops by time", "/ttl");
                return;
            }
        } catch (final IOException e) {
            answers.error(call, 400, "INVALID_SCHEMA", "the body is not JSON: " + StoreException.echo(
                String.valueOf(e.getMessage())), "");
            return;
        } catch (final StoreException e) {
            answers.error(call, 400, "INVALID_SCHEMA", e.getMessage(), "");
            return;
        }
        try {
            if (!tables.createTable(schema)) {
                answers.error(call, 409, "TABLE_EXISTS", "table '" + table + "' exists already", "");
                return;
            }
            if (ttl > 0) {
                tables.store().table(table).ttlNanos(ttl);
            }
        } catch (final StoreException e) {
            answers.error(call, 500, "WRITE_FAILED", e.getMessage(), "");
            return;
        }
        final ByteBufOutputStream buf = AnswerWriter.body(128);
        try (JsonGenerator g = AnswerWriter.JSON.createGenerator((OutputStream) buf)) {
            g.writeStartObject();
            g.writeStringField("name", table);
            g.writeBooleanField("created", true);
            g.writeStringField("schema", SchemaCodec.toJson(schema, false));
            if (ttl > 0) {
                g.writeStringField("ttl", RetentionRule.format(ttl));
            }
            g.writeEndObject();
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        answers.send(call, 201, AnswerWriter.JSON_TYPE, buf.buffer());
    }

    private void submit(final Call call, final Runnable work) {
        if (answers.stopping) {
            overloaded(call, QueryAdmission.STOPPING_MESSAGE);
            return;
        }
        if (admitted.incrementAndGet() > config.threads() + config.queue()) {
            admitted.decrementAndGet();
            overloaded(call, "all " + config.threads() + " ingest threads are busy and " + config.queue()
                + " requests are waiting; retry later");
            return;
        }
        final ByteBuf body = call.request.content().retain();
        try {
            workers.execute(() -> {
                try {
                    if (cancelling) {
                        overloaded(call, QueryAdmission.STOPPING_MESSAGE);
                    } else {
                        work.run();
                    }
                } catch (final Throwable t) {
                    answers.internal(call, t);
                } finally {
                    body.release();
                    admitted.decrementAndGet();
                }
            });
        } catch (final RejectedExecutionException e) { // stopping
            body.release();
            admitted.decrementAndGet();
            overloaded(call, QueryAdmission.STOPPING_MESSAGE);
        }
    }

    private void lines(final Call call, final Precision precision) {
        final ByteBuf content = call.request.content();
        final int length = content.readableBytes();
        final Worker w = worker.get();
        if (w.body.length < length) {
            w.body = new byte[(int) Math.max(length, Math.min(Integer.MAX_VALUE - 8, 2L * w.body.length))];
        }
        content.getBytes(content.readerIndex(), w.body, 0, length);
        try (IngestTables.Request r = tables.request(call.startNs, () -> cancelling)) {
            final LineIngest.Result result = w.lines.ingest(w.body, length, precision, nowNanos(), r);
            metrics.ingested(result.rows());
            answers.noContent(call);
        } catch (final LineProtocolException e) {
            answers.lineError(call, e);
        } catch (final RuntimeException e) {
            refused(call, e);
        } finally {
            if (w.body.length > KEPT_BUFFER_LENGTH) {
                w.body = new byte[64 << 10];
            }
        }
    }

    private void csv(final Call call, final String table) {
        final Store store = tables.store();
        if (!store.hasTable(table)) {
            answers.error(call, 404, "UNKNOWN_TABLE", "no table '" + StoreException.echo(table) + "'; tables are "
                + store.tableNames() + " (create it first: tradestore create)", "");
            return;
        }
        try (IngestTables.Request r = tables.request(call.startNs, () -> cancelling)) {
            final TableWriter writer = r.writer(table);
            final LoadResult result;
            try (ByteBufInputStream in = new ByteBufInputStream(call.request.content().duplicate())) {
                // one commit at the end: the request is one transaction (the loader rolls back on a bad row)
                result = CsvLoader.load(writer, "body", in, LoadOptions.defaults().withThreads(config.threads())
                    .withDurability(config.durability()), null);
            }
            metrics.ingested(result.rowsLoaded());
            final ByteBufOutputStream buf = AnswerWriter.body(128);
            try (JsonGenerator g = AnswerWriter.JSON.createGenerator((OutputStream) buf)) {
                g.writeStartObject();
                g.writeStringField("table", table);
                g.writeNumberField("rowsLoaded", result.rowsLoaded());
                g.writeNumberField("bytesRead", result.bytesRead());
                g.writeNumberField("rows", writer.committedRows());
                g.writeEndObject();
            }
            answers.send(call, 200, AnswerWriter.JSON_TYPE, buf.buffer());
        } catch (final LoadException e) {
            answers.csvError(call, e);
        } catch (final IOException e) {
            answers.internal(call, e);
        } catch (final RuntimeException e) {
            refused(call, e);
        }
    }

    /** Answers a request that could not be stored: busy (503), locked by another process (409), or failed (500). */
    private void refused(final Call call, final RuntimeException e) {
        if (e instanceof IngestRefusedException) {
            overloaded(call, e.getMessage());
        } else if (e instanceof TableLockedException) {
            answers.error(call, 409, "TABLE_LOCKED", e.getMessage() + "; stop the other writer, or send the rows to "
                + "it", "");
        } else if (e instanceof StoreException) {
            LOG.warn("ingest request failed, nothing of it kept: {}", e.getMessage());
            answers.error(call, 500, "WRITE_FAILED", e.getMessage() + "; nothing of this request was kept", "");
        } else {
            answers.internal(call, e);
        }
    }

    private void closeIdle() {
        try {
            tables.closeIdle();
        } catch (final RuntimeException e) {
            LOG.warn("closing an unused table writer failed: {}", e.getMessage());
        }
    }

    private void overloaded(final Call call, final String message) {
        call.header("Retry-After", Integer.toString(AnswerWriter.RETRY_AFTER_SECONDS));
        answers.error(call, 503, "OVERLOADED", message, "");
    }

    private static long nowNanos() {
        final Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /**
     * The stop: requests in flight may finish for {@code grace}; past it they roll back at their next few thousand
     * lines and answer 503; then every writer closes.
     *
     * @param grace how long requests in flight may take.
     */
    void drain(final Duration grace) {
        if (idleCheck != null) {
            idleCheck.shutdownNow();
        }
        workers.shutdown();
        try {
            if (!workers.awaitTermination(grace.toNanos(), TimeUnit.NANOSECONDS)) {
                cancelling = true;
                if (!workers.awaitTermination(QueryAdmission.FLUSH_WAIT_MS * 5, TimeUnit.MILLISECONDS)) {
                    LOG.warn("stopping with ingest requests still running after their cancel");
                }
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        tables.close();
    }

    /** Ends the workers at once, for a server that never started. */
    void shutdownNow() {
        if (idleCheck != null) {
            idleCheck.shutdownNow();
        }
        workers.shutdownNow();
        tables.close();
    }
}
