package io.tradestore.server.http;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The server's counters and latency histograms, rendered in the Prometheus text format. Request threads record into
 * HdrHistogram {@link Recorder}s (wait-free for writers); a scrape folds the interval into a cumulative histogram per
 * endpoint, so the quantiles cover the server's lifetime.
 */
final class ServerMetrics {
    /** Quantiles exposed per endpoint. */
    private static final double[] QUANTILES = {0.5, 0.9, 0.99, 0.999};
    /** Highest latency tracked exactly: 1 hour in nanoseconds (longer values are clamped). */
    private static final long HIGHEST_TRACKABLE_NS = TimeUnit.HOURS.toNanos(1);

    private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
    private final Map<String, Latency> latencies = new ConcurrentHashMap<>();
    private final LongAdder rowsScanned = new LongAdder();
    private final LongAdder rowsMatched = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder timedOut = new LongAdder();
    private final LongSupplier queueDepth;
    private final LongSupplier activeQueries;
    private final LongSupplier mappedBytes;

    ServerMetrics(final LongSupplier queueDepth, final LongSupplier activeQueries, final LongSupplier mappedBytes) {
        this.queueDepth = queueDepth;
        this.activeQueries = activeQueries;
        this.mappedBytes = mappedBytes;
    }

    /**
     * Counts a finished request and records its latency.
     *
     * @param endpoint  the endpoint label (a route template, never the raw path).
     * @param status    the HTTP status sent.
     * @param latencyNs time from receipt to the last byte written.
     */
    void record(final String endpoint, final int status, final long latencyNs) {
        requests.computeIfAbsent(endpoint + '\u0000' + status, k -> new LongAdder()).increment();
        latencies.computeIfAbsent(endpoint, k -> new Latency()).record(latencyNs);
        if (status == 503) {
            rejected.increment();
        } else if (status == 504) {
            timedOut.increment();
        }
    }

    void rows(final long scanned, final long matched) {
        rowsScanned.add(scanned);
        rowsMatched.add(matched);
    }

    /** @return total requests answered so far, for tests and logs. */
    long requestCount() {
        long n = 0;
        for (final LongAdder a : requests.values()) {
            n += a.sum();
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
        final Map<String, LongAdder> sorted = new TreeMap<>(requests);
        for (final Map.Entry<String, LongAdder> e : sorted.entrySet()) {
            final int sep = e.getKey().indexOf('\u0000');
            sb.append("tradestore_http_requests_total{endpoint=\"").append(e.getKey(), 0, sep).append("\",status=\"")
                .append(e.getKey(), sep + 1, e.getKey().length()).append("\"} ").append(e.getValue().sum()).append('\n');
        }
        sb.append("# HELP tradestore_http_request_duration_seconds Latency from request receipt to response, by endpoint "
            + "(HdrHistogram, since start).\n");
        sb.append("# TYPE tradestore_http_request_duration_seconds summary\n");
        final StringBuilder max = new StringBuilder();
        for (final Map.Entry<String, Latency> e : new TreeMap<>(latencies).entrySet()) {
            final Histogram h = e.getValue().snapshot();
            final String ep = e.getKey();
            for (final double q : QUANTILES) {
                sb.append("tradestore_http_request_duration_seconds{endpoint=\"").append(ep).append("\",quantile=\"").append(q)
                    .append("\"} ").append(seconds(h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(q * 100.0))).append('\n');
            }
            sb.append("tradestore_http_request_duration_seconds_sum{endpoint=\"").append(ep).append("\"} ")
                .append(seconds(e.getValue().sumNs.sum())).append('\n');
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
        gauge(sb, "tradestore_mapped_bytes", "Off-heap bytes of store files mapped by this process.", mappedBytes.getAsLong());
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
