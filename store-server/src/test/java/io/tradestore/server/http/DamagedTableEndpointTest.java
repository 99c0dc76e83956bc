package io.tradestore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.FileDamage;
import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.txn.TxnDescriptor;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.TestStores;

/**
 * A store with damaged files behind the server: the caller learns which file (500 INTERNAL with the store's message and
 * an error id, never a 404 for a table that exists), the other tables stay listed and queryable, the server stays up.
 */
class DamagedTableEndpointTest {
    private static final String COUNT = "{\"table\":\"%s\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";
    private static final String BY_INSTRUMENT =
        "{\"table\":\"trades\",\"groupBy\":[\"instrument\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";

    @TempDir
    Path dir;

    @Test
    void shouldNameTheDamagedFileAndKeepServingTheOtherTables() throws IOException {
        TestStores.writeTrades(dir, 3000, 5);
        try (Store s = Store.open(dir); TableWriter w = s
            .openOrCreate(TestStores.smallTrades().with("sound", TestStores.smallTrades().layout(),
            1024, 128)).writer()) {
            w.appendRow();
            w.commit();
        }
        final Path txn = dir.resolve("trades").resolve(TxnDescriptor.FILE_NAME);
        FileDamage.truncate(txn, 20);
        try (Store store = Store.open(dir); QueryEngine engine = new QueryEngine(store, 2);
             QueryServer server =
                 QueryServer.start(store, engine, new ServerConfig("127.0.0.1", 0, 2, 16, 1 << 20, 10_000, null))) {
            final Http http = new Http(server.port());
            final Http.Response query = http.post("/v1/query", String.format(COUNT, "trades"));
            assertThat(query.status()).isEqualTo(500);
            assertThat(query.errorCode()).isEqualTo("INTERNAL");
            assertThat(query.json().path("error").path("message").asText()).contains(txn.toString())
                .contains("truncated")
                .contains("error id " + query.json().path("error").path("id").asText());
            final Http.Response table = http.get("/v1/tables/trades");
            assertThat(table.status()).isEqualTo(500);
            assertThat(table.json().path("error").path("message").asText()).contains(txn.toString());
            final Http.Response tables = http.get("/v1/tables");
            assertThat(tables.status()).isEqualTo(200);
            final JsonNode list = tables.json().path("tables");
            assertThat(list).hasSize(2);
            for (final JsonNode t : list) {
                if (t.path("name").asText().equals("trades")) {
                    assertThat(t.path("error").asText()).contains(txn.toString());
                    assertThat(t.has("rows")).isFalse();
                } else {
                    assertThat(t.path("name").asText()).isEqualTo("sound");
                    assertThat(t.path("rows").asLong()).isEqualTo(1);
                }
            }
            final Http.Response sound = http.post("/v1/query", String.format(COUNT, "sound"));
            assertThat(sound.status()).isEqualTo(200);
            assertThat(sound.json().path("rows").path(0).path(0).asLong()).isEqualTo(1);
        }
    }

    @Test
    void shouldShowWhereTheDataIsDamagedWhenAQueryTripsOnIt() throws IOException {
        TestStores.writeTrades(dir, 3000, 5);
        final Path codes = dir.resolve("trades").resolve("seg-000001").resolve("instrument.d");
        FileDamage.putInt(codes, 4L * 700, 0x4000_0000); // row 700 of segment 1: a code far past the 50 instruments
        try (Store store = Store.open(dir); QueryEngine engine = new QueryEngine(store, 2);
             QueryServer server =
                 QueryServer.start(store, engine, new ServerConfig("127.0.0.1", 0, 2, 16, 1 << 20, 10_000, null))) {
            final Http http = new Http(server.port());
            final Http.Response r = http.post("/v1/query", BY_INSTRUMENT);
            assertThat(r.status()).isEqualTo(500);
            assertThat(r.errorCode()).isEqualTo("INTERNAL");
            assertThat(r.json().path("error").path("message").asText())
                .startsWith("damaged data in trades: segment 1 block 5 column 'instrument'")
                .contains(codes.toString()).contains("outside the committed dictionary");
            assertThat(http.get("/health").status()).isEqualTo(200);
        }
    }
}
