package io.tradestore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;


/**
 * GET /metrics read by a real Prometheus text-format parser, the official Python client's
 * ({@code prometheus_client.parser.text_string_to_metric_families}, run through python3): every family declares its
 * type, each endpoint's latency histogram has the documented cumulative buckets, its +Inf bucket equals its count, and
 * the counts equal the requests this test made. The build installs prometheus_client into target/python when python3
 * lacks it; the test fails, never skips, when python3 or the package is missing.
 */
class PrometheusMetricsTest {
    private static final String QUERY =
        "{\"table\":\"trades\",\"groupBy\":[\"venue\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";
    private static final String HISTOGRAM = "tradestore_http_request_duration_seconds";
    @TempDir
    static Path dir;
    private static ServedEngine served;
    private static Http http;

    @BeforeAll
    static void start() {
        served = new ServedEngine(dir.resolve("store"), 3000, 5);
        http = served.http();
    }

    @AfterAll
    static void stop() {
        served.close();
    }

    @Test
    void shouldExposeHistogramsThatAPrometheusParserReadsAndThatCountEveryRequest() throws Exception {
        final Map<String, Long> requests = new HashMap<>();
        for (int i = 0; i < 7; i++) {
            assertThat(http.get("/health").status()).isEqualTo(200);
        }
        for (int i = 0; i < 3; i++) {
            assertThat(http.get("/v1/tables").status()).isEqualTo(200);
        }
        for (int i = 0; i < 5; i++) {
            assertThat(http.post("/v1/query", QUERY).status()).isEqualTo(200);
        }
        for (int i = 0; i < 2; i++) {
            assertThat(http.post("/v1/query", "{\"table\":\"nosuch\"}").status()).isEqualTo(404);
        }
        assertThat(http.get("/nowhere").status()).isEqualTo(404);
        assertThat(http.get("/metrics").status()).isEqualTo(200); // counted once answered: in the next scrape
        requests.put("/health 200", 7L);
        requests.put("/v1/tables 200", 3L);
        requests.put("/v1/query 200", 5L);
        requests.put("/v1/query 404", 2L);
        requests.put("other 404", 1L);
        requests.put("/metrics 200", 1L);
        final Map<String,
            Long> perEndpoint = Map.of("/health", 7L, "/v1/tables", 3L, "/v1/query", 7L, "other", 1L, "/metrics", 1L);

        final String text = http.get("/metrics").body();
        final JsonNode families = parse(text);

        assertFamilyTypes(families, text);

        final Map<String, Long> counted = new HashMap<>();
        for (final JsonNode s : family(families, "tradestore_http_requests").path("samples")) {
            counted.put(s.path("labels").path("endpoint").asText() + " " + s.path("labels").path("status").asText(),
                s.path("value").asLong());
        }
        assertThat(counted).as("requests by endpoint and status").isEqualTo(requests);

        final JsonNode histogram = family(families, HISTOGRAM);
        final Map<String, Long> counts = new HashMap<>();
        for (final JsonNode s : histogram.path("samples")) {
            if (s.path("name").asText().equals(HISTOGRAM + "_count")) {
                counts.put(s.path("labels").path("endpoint").asText(), s.path("value").asLong());
            }
        }
        assertThat(counts).as("requests by endpoint").isEqualTo(perEndpoint);
        for (final String endpoint : perEndpoint.keySet()) {
            assertHistogramOf(histogram, endpoint, counts.get(endpoint));
        }

        assertLifetimeQuantilesBelowMax(families);
        assertThat(family(families, "tradestore_rows_scanned").path("samples").get(0).path("value").asLong())
            .isPositive();
    }

    /** Asserts that every family the server exposes is there, with its type, and no other. */
    private static void assertFamilyTypes(final JsonNode families, final String text) {
        final Map<String, String> types = new HashMap<>();
        for (final JsonNode f : families) {
            types.put(f.path("name").asText(), f.path("type").asText());
        }
        // the parser names a counter's family without its _total
        assertThat(types).as(text).containsEntry(HISTOGRAM, "histogram")
            .containsEntry("tradestore_http_requests", "counter")
            .containsEntry("tradestore_http_request_duration_lifetime_seconds", "summary")
            .containsEntry("tradestore_http_request_duration_max_seconds", "gauge")
            .containsEntry("tradestore_rows_scanned", "counter")
            .containsEntry("tradestore_rows_matched", "counter")
            .containsEntry("tradestore_queries_rejected", "counter")
            .containsEntry("tradestore_queries_timed_out", "counter")
            .containsEntry("tradestore_query_queue_depth", "gauge")
            .containsEntry("tradestore_queries_active", "gauge")
            .containsEntry("tradestore_http_requests_pipelined", "gauge")
            .containsEntry("tradestore_mapped_bytes", "gauge")
            .containsEntry("tradestore_summary_bytes", "gauge")
            .containsEntry("tradestore_summary_builds", "counter")
            .containsEntry("tradestore_summary_evictions", "counter")
            .containsEntry("tradestore_http_connections", "gauge")
            .containsEntry("tradestore_http_connections_refused", "counter")
            .containsEntry("tradestore_http_accept_failures", "counter")
            .containsEntry("tradestore_http_request_timeouts", "counter")
            .containsEntry("tradestore_http_write_failures", "counter")
            .containsEntry("tradestore_http_answers_refused", "counter")
            .containsEntry("tradestore_http_unread_answer_bytes", "gauge")
            .containsEntry("tradestore_rows_ingested", "counter")
            .containsEntry("tradestore_tables_dropped", "counter")
            .containsEntry("tradestore_retired_segments", "gauge")
            // the retention counters, by table, appear with a TTL's first drop (TableLifecycleEndpointTest)
            .hasSize(25);
    }

    /**
     * Asserts that one endpoint's latency histogram has the documented bucket bounds, cumulative counts ending in its
     * request count, and a positive sum.
     */
    private static void assertHistogramOf(final JsonNode histogram, final String endpoint, final Long count) {
        final List<Double> bounds = new ArrayList<>();
        final List<Long> cumulative = new ArrayList<>();
        double sum = -1;
        for (final JsonNode s : histogram.path("samples")) {
            if (!s.path("labels").path("endpoint").asText().equals(endpoint)) {
                continue;
            }
            if (s.path("name").asText().equals(HISTOGRAM + "_bucket")) {
                final String le = s.path("labels").path("le").asText();
                bounds.add(le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le));
                cumulative.add(s.path("value").asLong());
            } else if (s.path("name").asText().equals(HISTOGRAM + "_sum")) {
                sum = s.path("value").asDouble();
            }
        }
        final List<Double> documented = new ArrayList<>();
        for (final double b : ServerMetrics.LATENCY_BUCKETS_SECONDS) {
            documented.add(b);
        }
        documented.add(Double.POSITIVE_INFINITY);
        assertThat(bounds).as("bucket bounds of %s, in order", endpoint).isEqualTo(documented);
        assertThat(cumulative).as("buckets of %s are cumulative", endpoint).isSorted();
        assertThat(cumulative.get(cumulative.size() - 1)).as("+Inf bucket of %s equals its count", endpoint)
            .isEqualTo(count);
        assertThat(sum).as("latency sum of %s", endpoint).isPositive();
    }

    /** Asserts the lifetime quantiles (HdrHistogram) beside the histogram, and the slowest request above them. */
    private static void assertLifetimeQuantilesBelowMax(final JsonNode families) {
        final List<Double> quantiles = new ArrayList<>();
        for (final JsonNode s : family(families, "tradestore_http_request_duration_lifetime_seconds").path("samples")) {
            if (s.path("labels").path("endpoint").asText().equals("/v1/query")) {
                assertThat(s.path("labels").path("quantile").asText()).isIn("0.5", "0.9", "0.99", "0.999");
                quantiles.add(s.path("value").asDouble());
            }
        }
        assertThat(quantiles).hasSize(4).isSorted().allMatch(q -> q > 0);
        for (final JsonNode s : family(families, "tradestore_http_request_duration_max_seconds").path("samples")) {
            if (s.path("labels").path("endpoint").asText().equals("/v1/query")) {
                assertThat(s.path("value").asDouble()).isGreaterThanOrEqualTo(quantiles.get(3));
            }
        }
    }

    private static JsonNode family(final JsonNode families, final String name) {
        for (final JsonNode f : families) {
            if (f.path("name").asText().equals(name)) {
                return f;
            }
        }
        throw new AssertionError("no family " + name + " in " + families);
    }

    /**
     * @return the families {@code prometheus_client}'s parser reads from the text, as its samples (see
     * parse_metrics.py).
     */
    private static JsonNode parse(final String text) throws IOException, InterruptedException {
        final Path script = dir.resolve("parse_metrics.py");
        try (InputStream in = PrometheusMetricsTest.class.getResourceAsStream("parse_metrics.py")) {
            Files.write(script, in.readAllBytes());
        }
        final Path input = Files.writeString(dir.resolve("metrics.txt"), text);
        final Path output = dir.resolve("families.json");
        final Path errors = dir.resolve("parser-errors.txt");
        final Process p;
        try {
            final ProcessBuilder pb = new ProcessBuilder("python3", script.toString()).redirectInput(input.toFile())
                .redirectOutput(output.toFile())
                .redirectError(errors.toFile());
            // where the build puts the parser when python3 lacks it (store-server's pom, generate-test-resources)
            pb.environment().put("PYTHONPATH", Path.of("target", "python").toAbsolutePath().toString());
            p = pb.start();
        } catch (final IOException e) {
            throw new AssertionError(
                "this test needs python3 with prometheus_client (the build installs prometheus_client==0.26.0 into "
                + "target/python unless python3 has it): " + e.getMessage(), e);
        }
        if (!p.waitFor(2, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("python3 " + script + " did not end within 2 minutes");
        }
        assertThat(p.exitValue())
            .as("the parser's exit status; its errors: %s", Files.readString(errors, StandardCharsets.UTF_8)).isZero();
        return Http.MAPPER.readTree(output.toFile());
    }
}
