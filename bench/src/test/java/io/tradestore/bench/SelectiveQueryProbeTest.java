package io.tradestore.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.sample.TradeGenerator;
import io.tradestore.query.QueryEngine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The probe's per-request mode times exactly the bodies the HTTP benchmark sends (HttpWorkload), one entry each, with
 * their rows.
 */
class SelectiveQueryProbeTest {
    @TempDir
    Path dir;

    @Test
    void shouldTimeEveryBodyTheHttpBenchmarkSendsWithItsRows() throws Exception {
        final String[] bodies = HttpWorkload.bodies("window");
        assertThat(bodies).hasSize(HttpWorkload.REQUEST_COUNT);
        // the benchmark sends exactly these bodies, in this order
        final byte[][] requests = HttpWorkload.requests("window", bodies);
        for (int i = 0; i < bodies.length; i++) {
            final String r = new String(requests[i], StandardCharsets.UTF_8);
            assertThat(r).startsWith("POST /v1/query HTTP/1.1\r\n").endsWith("\r\n\r\n" + bodies[i])
                .contains("Content-Length: " + bodies[i].getBytes(StandardCharsets.UTF_8).length + "\r\n");
        }
        assertThat(HttpWorkload.bodies("window")).as("the same bodies every time").isEqualTo(bodies);
        assertThat(new String(HttpWorkload.requests("health", null)[0], StandardCharsets.US_ASCII))
            .startsWith(HttpWorkload.HEALTH_REQUEST_LINE);
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store
                .createTable(TradesSchema.SCHEMA.with("trades", TradesSchema.SCHEMA.layout(), 1 << 14, 1 << 12))
                .writer()) {
                final java.io.ByteArrayOutputStream csv = new java.io.ByteArrayOutputStream();
                new TradeGenerator(20_000, 42).writeCsv(csv);
                io.tradestore.core.ingest.CsvLoader.load(w, "generated",
                    new java.io.ByteArrayInputStream(csv.toByteArray()),
                    io.tradestore.core.ingest.LoadOptions.defaults(), null);
            }
            try (QueryEngine engine = new QueryEngine(store, 1)) {
                final String[] some = java.util.Arrays.copyOf(bodies, 40);
                final SelectiveQueryProbe.RequestTime[] times = SelectiveQueryProbe.perRequest(engine, some, 3);
                assertThat(times).hasSize(40);
                long matched = 0;
                for (int i = 0; i < times.length; i++) {
                    assertThat(times[i].index()).isEqualTo(i);
                    assertThat(times[i].medianMs()).isPositive();
                    final long n = (Long) engine.execute(some[i]).value(0, 0); // the count aggregate
                    assertThat(times[i].rowsMatched()).as("body %d", i).isEqualTo(n);
                    matched += n;
                }
                assertThat(matched).as("the generated trades answer some windows").isPositive();
            }
        }
    }
}
