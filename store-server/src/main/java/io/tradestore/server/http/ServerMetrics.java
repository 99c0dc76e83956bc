package io.tradestore.server.http;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The server's counters and latency histograms, rendered in the Prometheus text format. Request threads record into
 * HdrHistogram {@link Recorder}s (wait-free for writers); a scrape folds the interval into a cumulative histogram per
 * endpoint, so the quantiles cover the server's lifetime. Counters are found by array index (endpoint ordinal, status),
 * so recording a request builds no key and allocates nothing once its endpoint and status have been seen.
 */
final class ServerMetrics {
    /** Lowest HTTP status counted in its own slot. */
    private static final int MIN_STATUS = 100;
    /** Statuses counted: 100 to 599 (Netty sends nothing outside it). */
    private static final int STATUS_COUNT = 500;

    /** Quantiles exposed per endpoint. */
    private static final double[] QUANTILES = {0.5, 0.9, 0.99, 0.999};
    /** Highest latency tracked exactly: 1 hour in nanoseconds (longer values are clamped). */
    private static final long HIGHEST_TRACKABLE_NS = TimeUnit.HOURS.toNanos(1);

    /** Requests by {@code endpoint.ordinal() * STATUS_COUNT + status - MIN_STATUS}, each created when first counted. */
    private final AtomicReferenceArray<LongAdder> requests = new AtomicReferenceArray<>(Endpoint.COUNT * STATUS_COUNT);
    /** Latencies by endpoint ordinal, each created when first recorded (a histogram is a few hundred KiB). */
    private final AtomicReferenceArray<Latency> latencies = new AtomicReferenceArray<>(Endpoint.COUNT);
    private final LongAdder rowsScanned = new LongAdder();
    private final LongAdder rowsMatched = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder timedOut = new LongAdder();
    private final LongSupplier queueDepth;
    private final LongSupplier activeQueries;
    private final LongSupplier pipelinedRequests;
    private final LongSupplier mappedBytes;
    /** The engine's summaries: heap bytes, builds and evictions; all three null without an engine. */
    private final LongSupplier summaryBytes;
    private final LongSupplier summaryBuilds;
    private final LongSupplier summaryEvictions;

    /**
     * @param queueDepth        queries waiting for a worker.
     * @param activeQueries     queries running on a worker.
     * @param pipelinedRequests requests waiting behind an earlier one of their connection.
     * @param mappedBytes       off-heap bytes of mapped store files.
     * @param summaryBytes      heap bytes of the engine's value and bucket summaries, or null without an engine (then the
     *                          next two are null too and /metrics has no summary figures).
     * @param summaryBuilds     value and bucket summaries built.
     * @param summaryEvictions  summaries evicted to make room for others.
     */
    ServerMetrics(final LongSupplier queueDepth, final LongSupplier activeQueries, final LongSupplier pipelinedRequests,
                  final LongSupplier mappedBytes, final LongSupplier summaryBytes, final LongSupplier summaryBuilds,
                  final LongSupplier summaryEvictions) {
        this.queueDepth = queueDepth;
        this.activeQueries = activeQueries;
        this.pipelinedRequests = pipelinedRequests;
        this.mappedBytes = mappedBytes;
        this.summaryBytes = summaryBytes;
        this.summaryBuilds = summaryBuilds;
        this.summaryEvictions = summaryEvictions;
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
        slot(requests, endpoint.ordinal() * STATUS_COUNT + status - MIN_STATUS, LongAdder::new).increment();
        slot(latencies, endpoint.ordinal(), Latency::new).record(latencyNs);
        if (status == 503) {
            rejected.increment();
        } else if (status == 504) {
            timedOut.increment();
        }
    }

    /** @return the element at {@code i}, created on first use (by one of the threads that race for it). */
    private static <T> T slot(final AtomicReferenceArray<T> array, final int i, final Supplier<T> create) {
        final T t = array.get(i);
        if (t != null) {
            return t;
        }
        array.compareAndSet(i, null, create.get());
        return array.get(i);
    }

    void rows(final long scanned, final long matched) {
        rowsScanned.add(scanned);
        rowsMatched.add(matched);
    }

    /** @return total requests answered so far, for tests and logs. */
    long requestCount() {
        long n = 0;
        for (int i = 0; i < requests.length(); i++) {
            final LongAdder a = requests.get(i);
            n += a == null ? 0 : a.sum();
        }
        return n;
    }

    /**
     * Renders every metric in the Prometheus text exposition format (version 0.0.4).
     *
     * @return the text.
     */
    String render() {
        final StringBuilder sb = new StringBuilder(4096);
        sb.append("# HELP tradestore_http_requests_total HTTP requests answered, by endpoint and status.\n");
        sb.append("# TYPE tradestore_http_requests_total counter\n");
        for (final Endpoint ep : Endpoint.BY_LABEL) {
            for (int status = MIN_STATUS; status < MIN_STATUS + STATUS_COUNT; status++) {
                final LongAdder a = requests.get(ep.ordinal() * STATUS_COUNT + status - MIN_STATUS);
                if (a != null) {
                    sb.append("tradestore_http_requests_total{endpoint=\"").append(ep.label()).append("\",status=\"").append(status)
                        .append("\"} ").append(a.sum()).append('\n');
                }
            }
        }
        sb.append("# HELP tradestore_http_request_duration_seconds Latency from request receipt to response, by endpoint "
            + "(HdrHistogram, since start).\n");
        sb.append("# TYPE tradestore_http_request_duration_seconds summary\n");
        final StringBuilder max = new StringBuilder();
        for (final Endpoint endpoint : Endpoint.BY_LABEL) {
            final Latency latency = latencies.get(endpoint.ordinal());
            if (latency == null) {
                continue;
            }
            final Histogram h = latency.snapshot();
            final String ep = endpoint.label();
            for (final double q : QUANTILES) {
                sb.append("tradestore_http_request_duration_seconds{endpoint=\"").append(ep).append("\",quantile=\"").append(q)
                    .append("\"} ").append(seconds(h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(q * 100.0))).append('\n');
            }
            sb.append("tradestore_http_request_duration_seconds_sum{endpoint=\"").append(ep).append("\"} ")
                .append(seconds(latency.sumNs.sum())).append('\n');
            sb.append("tradestore_http_request_duration_seconds_count{endpoint=\"").append(ep).append("\"} ")
                .append(h.getTotalCount()).append('\n');
            max.append("tradestore_http_request_duration_max_seconds{endpoint=\"").append(ep).append("\"} ")
                .append(seconds(h.getTotalCount() == 0 ? 0 : h.getMaxValue())).append('\n');
        }
        sb.append("# HELP tradestore_http_request_duration_max_seconds Slowest request since start, by endpoint.\n");
        sb.append("# TYPE tradestore_http_request_duration_max_seconds gauge\n").append(max);
        counter(sb, "tradestore_rows_scanned_total", "Rows the query kernels looked at.", rowsScanned.sum());
        counter(sb, "tradestore_rows_matched_total", "Rows that passed the filters and time range.", rowsMatched.sum());
        counter(sb, "tradestore_queries_rejected_total", "Queries answered 503 OVERLOADED because the queue was full.", rejected.sum());
        counter(sb, "tradestore_queries_timed_out_total", "Queries answered 504 TIMEOUT.", timedOut.sum());
        gauge(sb, "tradestore_query_queue_depth", "Queries waiting for a worker.", queueDepth.getAsLong());
        gauge(sb, "tradestore_queries_active", "Queries running on a worker.", activeQueries.getAsLong());
        gauge(sb, "tradestore_http_requests_pipelined", "Requests read and waiting behind an earlier one of their connection.",
            pipelinedRequests.getAsLong());
        gauge(sb, "tradestore_mapped_bytes", "Off-heap bytes of store files mapped by this process.", mappedBytes.getAsLong());
        if (summaryBytes != null) {
            gauge(sb, "tradestore_summary_bytes", "Heap bytes held by the cached value and bucket summaries.", summaryBytes.getAsLong());
            counter(sb, "tradestore_summary_builds_total", "Value and bucket summaries built (a pass over a segment each).",
                summaryBuilds.getAsLong());
            counter(sb, "tradestore_summary_evictions_total", "Summaries idle for the idle time evicted to make room for others.",
                summaryEvictions.getAsLong());
        }
        return sb.toString();
    }

    private static void counter(final StringBuilder sb, final String name, final String help, final long value) {
        sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
        sb.append("# TYPE ").append(name).append(" counter\n").append(name).append(' ').append(value).append('\n');
    }

    private static void gauge(final StringBuilder sb, final String name, final String help, final long value) {
        sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
        sb.append("# TYPE ").append(name).append(" gauge\n").append(name).append(' ').append(value).append('\n');
    }

    private static String seconds(final long ns) {
        return String.format(Locale.ROOT, "%.9f", ns / 1e9);
    }

    /** One endpoint's latencies: recorded wait-free, folded into a lifetime histogram when scraped. */
    private static final class Latency {
        private final Recorder recorder = new Recorder(HIGHEST_TRACKABLE_NS, 3);
        private final Histogram total = new Histogram(HIGHEST_TRACKABLE_NS, 3);
        private final LongAdder sumNs = new LongAdder();
        private Histogram interval;

        void record(final long ns) {
            final long v = Math.max(1, Math.min(ns, HIGHEST_TRACKABLE_NS));
            recorder.recordValue(v);
            sumNs.add(v);
        }

        synchronized Histogram snapshot() {
            interval = recorder.getIntervalHistogram(interval);
            total.add(interval);
            return total.copy();
        }
    }
}
