package io.tradestore.server.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.TestStores;
import io.tradestore.server.ingest.IngestConfig;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * QuestDB's own Python client, unchanged and in its default configuration, sends trades to a served store through the
 * documented script (examples/python/send_trades.py), which checks the count and the exact decimal sum. The client
 * first asks {@code GET /settings}, then posts text line protocol to {@code /write}. {@code .ci/run} installs the
 * client ({@code pip install questdb}).
 */
class QuestDbClientTest {
    private static final Path SCRIPT = Path.of("..", "examples", "python", "send_trades.py");

    @TempDir
    Path dir;

    @Test
    void shouldStoreEveryRowQuestDbsPythonClientSends() throws IOException, InterruptedException {
        TestStores.writeTrades(dir, TestStores.smallTrades().with("trades", io.tradestore.core.schema.Layout.COLUMN,
            1 << 14, 1 << 10), 10, 1);
        try (Store store = Store.open(dir); QueryEngine engine = new QueryEngine(store, 2);
             QueryServer server = QueryServer.start(store, engine, new ServerConfig("127.0.0.1", 0, 2, 16, 1 << 20,
                 30_000, null), IngestConfig.defaults())) {
            final Path out = dir.resolve("client.out");
            final Process p = new ProcessBuilder(List.of("python3", SCRIPT.toString(), "--port",
                Integer.toString(server.port()), "--rows", "100000")).redirectErrorStream(true)
                .redirectOutput(out.toFile()).start();
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the client finished").isTrue();
            final String printed = Files.readString(out, StandardCharsets.UTF_8);
            assertThat(p.exitValue()).as(printed).isZero();
            assertThat(printed).contains("server holds 100000 rows").contains("OK");
            // the client's default configuration asked for the settings first, and sent more than one request
            assertThat(server.metricsText()).contains("endpoint=\"/settings\"").contains("endpoint=\"/write\"")
                .contains("tradestore_rows_ingested_total 100000.0");
        }
    }
}
