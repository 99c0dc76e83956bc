package io.tradestore.server.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;

/**
 * The server's counters and latency histograms, kept and rendered in the Prometheus text format by the Prometheus Java
 * client library. Latency is a classic histogram per endpoint ({@link #LATENCY_BUCKETS_SECONDS}), which Prometheus can
 * aggregate across servers and rate over any window; HdrHistogram {@link Recorder}s (wait-free for writers) keep the
 * lifetime quantiles and the slowest request beside it. Each (endpoint, status) counter and each endpoint's histogram
 * is found by array index once created, so recording a request builds no label key; it allocates only the library's one
 * small object per observation (nothing per row). While a scrape collects the histogram, the library buffers the
 * observations made meanwhile, so a scrape sees every endpoint's buckets, sum and count consistent with each other.
 */
final class ServerMetrics {
    /** Lowest HTTP status counted in its own slot. */
    private static final int MIN_STATUS = 100;
    /** Statuses counted: 100 to 599 (Netty sends nothing outside it). */
    private static final int STATUS_COUNT = 500;

    /**
     * Upper bounds of the latency buckets, in seconds (and +Inf): 1-2.5-5 steps from 100 us, the fastest answers
     * (/health, a selective query answered from summaries), to 10 s, the default --timeout-ms, plus 30 s for a raised
     * one; a 504 at the default timeout lands in the 30 s bucket, apart from every answer in time.
     */
    static final double[] LATENCY_BUCKETS_SECONDS = {
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
    };
    /** Quantiles exposed per endpoint from the lifetime HdrHistogram. */
    private static final double[] QUANTILES = {0.5, 0.9, 0.99, 0.999};
    /** Highest latency tracked exactly: 1 hour in nanoseconds (longer values are clamped). */
    private static final long HIGHEST_TRACKABLE_NS = TimeUnit.HOURS.toNanos(1);
    private static final double NANOS_PER_SECOND = 1e9;
    /** Text format 0.0.4, the content type /metrics answers with. */
    private static final PrometheusTextFormatWriter WRITER = PrometheusTextFormatWriter.create();

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Counter requests;
    private final io.prometheus.metrics.core.metrics.Histogram duration;
    /** Requests by {@code endpoint.ordinal() * STATUS_COUNT + status - MIN_STATUS}, each created when first counted. */
    private final AtomicReferenceArray<CounterDataPoint> requestsBySlot =
        new AtomicReferenceArray<>(Endpoint.COUNT * STATUS_COUNT);
    /** Histogram data points by endpoint ordinal, each created when first recorded. */
    private final AtomicReferenceArray<DistributionDataPoint> durations = new AtomicReferenceArray<>(Endpoint.COUNT);
    /** Lifetime latencies by endpoint ordinal, each created when first recorded (a histogram is a few hundred KiB). */
    private final AtomicReferenceArray<Latency> latencies = new AtomicReferenceArray<>(Endpoint.COUNT);
    private final Counter rowsScanned;
    private final Counter rowsMatched;
    private final Counter rowsIngested;
    private final Counter rejected;
    private final Counter timedOut;
    private final Counter tablesDropped;
    private final Counter retentionSegments;
    private final Counter retentionRows;

    /**
     * @param queueDepth        queries waiting for a worker.
     * @param activeQueries     queries running on a worker.
     * @param pipelinedRequests requests waiting behind an earlier one of their connection.
     * @param mappedBytes       off-heap bytes of mapped store files.
     * @param summaryBytes      heap bytes of the engine's value and bucket summaries, or null without an engine
     *                          (then the next two are null too and /metrics has no summary figures).
     * @param summaryBuilds     value and bucket summaries built.
     * @param summaryEvictions  summaries evicted to make room for others.
     */
    ServerMetrics(final LongSupplier queueDepth, final LongSupplier activeQueries, final LongSupplier pipelinedRequests,
                  final LongSupplier mappedBytes, final LongSupplier summaryBytes, final LongSupplier summaryBuilds,
                  final LongSupplier summaryEvictions) {
        requests = counter("tradestore_http_requests_total", "HTTP requests answered, by endpoint and status.",
            "endpoint", "status");
        // classic buckets only: native histograms are not in the text format, and would cost a map lookup per request
        duration = io.prometheus.metrics.core.metrics.Histogram.builder()
            .name("tradestore_http_request_duration_seconds")
            .help("Latency from request receipt to the last byte of the response, by endpoint.").labelNames("endpoint")
            .classicOnly()
            .classicUpperBounds(LATENCY_BUCKETS_SECONDS).withoutExemplars().register(registry);
        registry.register((MultiCollector) this::lifetimeLatencies);
        rowsScanned = counter("tradestore_rows_scanned_total", "Rows the query kernels looked at.");
        rowsMatched = counter("tradestore_rows_matched_total", "Rows that passed the filters and time range.");
        rowsIngested = counter("tradestore_rows_ingested_total",
            "Rows committed by ingest requests (line protocol and CSV over HTTP).");
        rejected = counter("tradestore_queries_rejected_total",
            "Queries answered 503 OVERLOADED because the queue was full.");
        timedOut = counter("tradestore_queries_timed_out_total", "Queries answered 504 TIMEOUT.");
        tablesDropped = counter("tradestore_tables_dropped_total", "Tables dropped through DELETE /v1/tables/{name}.");
        retentionSegments = counter("tradestore_retention_segments_dropped_total",
            "Segments the tables' TTLs dropped, by table.", "table");
        retentionRows = counter("tradestore_retention_rows_dropped_total", "Rows the tables' TTLs dropped, by table.",
            "table");
        gauge("tradestore_query_queue_depth", "Queries waiting for a worker.", queueDepth);
        gauge("tradestore_queries_active", "Queries running on a worker.", activeQueries);
        gauge("tradestore_http_requests_pipelined",
            "Requests read and waiting behind an earlier one of their connection.", pipelinedRequests);
        gauge("tradestore_mapped_bytes", "Off-heap bytes of store files mapped by this process.", mappedBytes);
        if (summaryBytes != null) {
            gauge("tradestore_summary_bytes",
                "Heap bytes held by the cached value and bucket summaries and the bitmap indexes that could not "
                + "be written.", summaryBytes);
            counterWithCallback("tradestore_summary_builds_total",
                "Value and bucket summaries built (a pass over a segment each).", summaryBuilds);
            counterWithCallback("tradestore_summary_evictions_total",
                "Summaries idle for the idle time evicted to make room for others.",
                summaryEvictions);
        }
    }

    /**
     * Registers the figures of the limits that keep hostile or careless clients from holding the server's resources.
     *
     * @param openConnections     connections open now.
     * @param refusedConnections  connections answered 503 and closed for being beyond --max-connections.
     * @param acceptFailures      connections the listener failed to accept (descriptors ran out).
     * @param requestTimeouts     requests answered 408 for not arriving whole in time.
     * @param writeFailures       connections closed because an answer could not be written (its client took no bytes).
     * @param answersRefused      answers refused with 503 for the answer bytes clients hold unread.
     * @param unreadAnswerBytes   answer bytes handed to connections whose clients have not taken them yet.
     */
    void connectionLimits(final LongSupplier openConnections, final LongSupplier refusedConnections,
                          final LongSupplier acceptFailures, final LongSupplier requestTimeouts,
                          final LongSupplier writeFailures, final LongSupplier answersRefused,
                          final LongSupplier unreadAnswerBytes) {
        gauge("tradestore_http_connections", "Connections open.", openConnections);
        counterWithCallback("tradestore_http_connections_refused_total",
            "Connections answered 503 and closed: beyond --max-connections.",
            refusedConnections);
        counterWithCallback("tradestore_http_accept_failures_total",
            "Connections the listener failed to accept (out of file descriptors).",
            acceptFailures);
        counterWithCallback("tradestore_http_request_timeouts_total",
            "Requests answered 408: not received whole within --request-timeout-ms.",
            requestTimeouts);
        counterWithCallback("tradestore_http_write_failures_total",
            "Connections closed because an answer could not be written, mostly "
            + "clients that took no bytes for --write-timeout-ms.", writeFailures);
        counterWithCallback("tradestore_http_answers_refused_total",
            "Answers refused with 503 because clients held --max-answer-bytes unread.",
            answersRefused);
        gauge("tradestore_http_unread_answer_bytes",
            "Answer bytes handed to connections whose clients have not taken them yet.",
            unreadAnswerBytes);
    }

    /**
     * Registers the engine's count of segments retention dropped that stay mapped for queries in flight.
     *
     * @param retired the count now.
     */
    void retiredSegments(final LongSupplier retired) {
        gauge("tradestore_retired_segments", "Segments retention dropped that stay mapped until the queries reading "
            + "them end.", retired);
    }

    /** Counts a table dropped. */
    void tableDropped() {
        tablesDropped.inc();
    }

    /**
     * Counts what a TTL dropped.
     *
     * @param table     the table.
     * @param retention what went.
     */
    void retained(final String table, final io.tradestore.core.Retention retention) {
        retentionSegments.labelValues(table).inc(retention.segments());
        retentionRows.labelValues(table).inc(retention.rows());
    }

    private Counter counter(final String name, final String help, final String... labels) {
        return Counter.builder().name(name).help(help).labelNames(labels).withoutExemplars().register(registry);
    }

    private void gauge(final String name, final String help, final LongSupplier value) {
        GaugeWithCallback.builder().name(name).help(help).callback(c -> c.call(value.getAsLong())).register(registry);
    }

    private void counterWithCallback(final String name, final String help, final LongSupplier value) {
        CounterWithCallback.builder().name(name).help(help).callback(c -> c.call(value.getAsLong())).register(registry);
    }

    /**
     * Counts a finished request and records its latency.
     *
     * @param endpoint  the route the request was answered on.
     * @param status    the HTTP status sent, 100 to 599.
     * @param latencyNs time from receipt to the last byte written.
     */
    void record(final Endpoint endpoint, final int status, final long latencyNs) {
        assert status >= MIN_STATUS && status < MIN_STATUS + STATUS_COUNT : "status=" + status;
        final int slot = endpoint.ordinal() * STATUS_COUNT + status - MIN_STATUS;
        CounterDataPoint count = requestsBySlot.get(slot);
        if (count == null) {
            // the library keeps one data point per label values: every thread that races here gets the same one
            requestsBySlot.compareAndSet(slot, null, requests.labelValues(endpoint.label(), Integer.toString(status)));
            count = requestsBySlot.get(slot);
        }
        count.inc();
        DistributionDataPoint d = durations.get(endpoint.ordinal());
        if (d == null) {
            durations.compareAndSet(endpoint.ordinal(), null, duration.labelValues(endpoint.label()));
            d = durations.get(endpoint.ordinal());
        }
        final long ns = Math.max(1, Math.min(latencyNs, HIGHEST_TRACKABLE_NS));
        d.observe(ns / NANOS_PER_SECOND);
        Latency latency = latencies.get(endpoint.ordinal());
        if (latency == null) {
            latencies.compareAndSet(endpoint.ordinal(), null, new Latency());
            latency = latencies.get(endpoint.ordinal());
        }
        latency.recorder.recordValue(ns);
        if (status == 503) {
            rejected.inc();
        } else if (status == 504) {
            timedOut.inc();
        }
    }

    void rows(final long scanned, final long matched) {
        rowsScanned.inc(scanned);
        rowsMatched.inc(matched);
    }

    void ingested(final long rows) {
        rowsIngested.inc(rows);
    }

    /** @return total requests answered so far, for tests and logs. */
    long requestCount() {
        long n = 0;
        for (int i = 0; i < requestsBySlot.length(); i++) {
            final CounterDataPoint c = requestsBySlot.get(i);
            n += c == null ? 0 : c.getLongValue();
        }
        return n;
    }

    /**
     * Renders every metric in the Prometheus text exposition format (version 0.0.4).
     *
     * @return the text.
     */
    String render() {
        final ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        try {
            WRITER.write(out, registry.scrape());
        } catch (final IOException e) {
            throw new UncheckedIOException("writing metrics to memory", e); // a ByteArrayOutputStream does not throw
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /**
     * The lifetime quantiles and the slowest request of each endpoint, from one fold of its HdrHistogram per scrape so
     * that both families describe the same requests.
     */
    private MetricSnapshots lifetimeLatencies() {
        final SummarySnapshot.Builder quantiles = SummarySnapshot.builder()
            .name("tradestore_http_request_duration_lifetime_seconds")
            .help("Latency quantiles since start, by endpoint (HdrHistogram, 3 significant digits).");
        final GaugeSnapshot.Builder max = GaugeSnapshot.builder().name("tradestore_http_request_duration_max_seconds")
            .help("Slowest request since start, by endpoint.");
        for (final Endpoint endpoint : Endpoint.BY_LABEL) {
            final Latency latency = latencies.get(endpoint.ordinal());
            if (latency == null) {
                continue;
            }
            final Histogram h = latency.snapshot();
            final Labels labels = Labels.of("endpoint", endpoint.label());
            final Quantiles.Builder q = Quantiles.builder();
            for (final double quantile : QUANTILES) {
                q.quantile(new Quantile(quantile, h.getValueAtPercentile(quantile * 100.0) / NANOS_PER_SECOND));
            }
            quantiles.dataPoint(SummarySnapshot.SummaryDataPointSnapshot.builder().labels(labels).quantiles(q.build())
                .build());
            max.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels)
                .value(h.getMaxValue() / NANOS_PER_SECOND).build());
        }
        return MetricSnapshots.of(quantiles.build(), max.build());
    }

    /** One endpoint's latencies: recorded wait-free, folded into a lifetime histogram when scraped. */
    private static final class Latency {
        private final Recorder recorder = new Recorder(HIGHEST_TRACKABLE_NS, 3);
        private final Histogram total = new Histogram(HIGHEST_TRACKABLE_NS, 3);
        private Histogram interval;

        synchronized Histogram snapshot() {
            interval = recorder.getIntervalHistogram(interval);
            total.add(interval);
            return total.copy();
        }
    }
}
