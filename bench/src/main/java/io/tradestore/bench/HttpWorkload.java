package io.tradestore.bench;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import io.tradestore.core.sample.TradeGenerator;

/**
 * The HTTP benchmark's workloads and the one place their request bodies come from: {@link HttpBenchmark} sends them,
 * {@link SelectiveQueryProbe} runs them on the engine alone, and the tests check both against these.
 *
 * <pre>
 *  client  one random client's count and volume (the client_id index)
 *  window  one random instrument over two hours of the five generated days (time pruning, the instrument bitmap)
 *  pruned  a time range after the data: every segment pruned, i.e. HTTP plus planning
 *  health  GET /health: HTTP alone, no body
 * </pre>
 */
final class HttpWorkload {
    /** Every workload, in the order the options list them. */
    static final List<String> KINDS = List.of("client", "window", "pruned", "health");
    /** Requests a workload sends round-robin. */
    static final int REQUEST_COUNT = 4096;
    /** Seed of the bodies a workload sends: every run, and the probe, see the same bodies in the same order. */
    static final long SEED = 7;
    /** What the health workload sends, and how its requests are shown in logs and traces. */
    static final String HEALTH_REQUEST_LINE = "GET /health HTTP/1.1";

    private HttpWorkload() {
    }

    /**
     * @param kind a workload.
     * @return whether its requests carry a query body (all but health).
     */
    static boolean hasBody(final String kind) {
        return !"health".equals(kind);
    }

    /**
     * @param kind client, window or pruned.
     * @return the JSON bodies of its {@link #REQUEST_COUNT} requests, in the order they are sent.
     */
    static String[] bodies(final String kind) {
        final Random rnd = new Random(SEED);
        final String[] out = new String[REQUEST_COUNT];
        for (int i = 0; i < out.length; i++) {
            out[i] = queryJson(kind, rnd);
        }
        return out;
    }

    /**
     * @param kind  a workload.
     * @param index a request's index among the {@link #REQUEST_COUNT} it sends.
     * @param bodies its bodies ({@link #bodies}), or null for health.
     * @return how the request is shown in logs and traces: its body, or its request line.
     */
    static String shown(final String kind, final int index, final String[] bodies) {
        return hasBody(kind) ? bodies[index] : HEALTH_REQUEST_LINE;
    }

    /**
     * @param kind   a workload.
     * @param bodies its bodies ({@link #bodies}), or null for health.
     * @return its ready-to-send HTTP/1.1 requests: a POST /v1/query of each body, or GET /health.
     */
    static byte[][] requests(final String kind, final String[] bodies) {
        final byte[][] out = new byte[REQUEST_COUNT][];
        for (int i = 0; i < out.length; i++) {
            if (!hasBody(kind)) {
                out[i] = (HEALTH_REQUEST_LINE + "\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
                continue;
            }
            final byte[] body = bodies[i].getBytes(StandardCharsets.UTF_8);
            final byte[] head =
                ("POST /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            out[i] = new byte[head.length + body.length];
            System.arraycopy(head, 0, out[i], 0, head.length);
            System.arraycopy(body, 0, out[i], head.length, body.length);
        }
        return out;
    }

    /**
     * One query of a workload.
     *
     * @param kind client, window or pruned.
     * @param rnd  the random source (the client, or the instrument and start of the window).
     * @return the query's JSON.
     */
    static String queryJson(final String kind, final Random rnd) {
        if ("pruned".equals(kind)) {
            return "{\"table\":\"trades\",\"time\":{\"from\":\"2027-01-0" + (1 + rnd.nextInt(9))
                + "T00:00:00Z\",\"to\":\"2027-01-10T00:00:00Z\"},"
                + "\"aggs\":[{\"name\":\"trades\",\"op\":\"count\"}]}";
        } else if ("client".equals(kind)) {
            return "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"client_id\",\"value\":"
                + (TradeGenerator.FIRST_CLIENT_ID + rnd.nextInt(TradeGenerator.CLIENTS)) + "},"
                + "\"aggs\":[{\"name\":\"trades\",\"op\":\"count\"},{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quan"
                + "tity\"}]}";
        } else if ("window".equals(kind)) {
            final int day = 16 + rnd.nextInt(5);
            final int hour = 8 + rnd.nextInt(7);
            return String.format(Locale.ROOT, "{\"table\":\"trades\","
                + "\"time\":{\"from\":\"2026-11-%02dT%02d:00:00Z\",\"to\":\"2026-11-%02dT%02d:00:00Z\"},"
                + "\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM%03d\"},\"aggs\":[{\"name\":\"trade"
                + "s\",\"op\":\"count\"},"
                + "{\"name\":\"vwap\",\"op\":\"vwap\"},{\"name\":\"high\",\"op\":\"max\",\"col\":\"price\"},"
                + "{\"name\":\"low\",\"op\":\"min\",\"col\":\"price\"}]}",
                day, hour, day, hour + 2, rnd.nextInt(TradeGenerator.INSTRUMENTS));
        }
        throw new IllegalArgumentException("--query takes client, window, pruned or health (comma-separated)");
    }
}
