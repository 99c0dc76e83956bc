package io.tradestore.server.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.TestStores;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code DELETE /v1/queries/{id}}: a query sent with {@code queryId} is cancelled by it while it runs (and answered
 * 504, cancelled), while other queries go on; an id no query has is 404, a malformed one 400, another method 405.
 */
class CancelByIdTest {
    @TempDir
    Path dir;

    @Test
    void shouldCancelTheQueryRunningUnderAnId() throws Exception {
        TestStores.writeTrades(dir, 1_000, 5);
        try (Store store = Store.open(dir); QueryEngine engine = new QueryEngine(store, 1)) {
            final UntilCancelled slow = new UntilCancelled(QueryService.of(engine));
            try (QueryServer server = QueryServer.start(store, slow,
                new ServerConfig("127.0.0.1", 0, 2, 4, 1 << 20, 120_000, null))) {
                final HttpClient http = HttpClient.newHttpClient();
                final String base = "http://127.0.0.1:" + server.port();
                final CompletableFuture<HttpResponse<String>> running = http.sendAsync(HttpRequest.newBuilder(
                    URI.create(base + "/v1/sql?queryId=q-1_a")).POST(HttpRequest.BodyPublishers.ofString(
                    "SELECT count(*) FROM trades WHERE venue = 'SLOW'")).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(slow.started.await(30, TimeUnit.SECONDS)).isTrue();
                // another id, and another query, are left alone
                assertThat(delete(http, base + "/v1/queries/q-2").statusCode()).isEqualTo(404);
                assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/v1/sql?queryId=q-3")).POST(
                    HttpRequest.BodyPublishers.ofString("SELECT count(*) AS n FROM trades")).build(),
                    HttpResponse.BodyHandlers.ofString()).body()).contains("[[1000]]");
                assertThat(running).isNotDone();
                assertThat(delete(http, base + "/v1/queries/q-1_a").statusCode()).isEqualTo(204);
                final HttpResponse<String> answer = running.get(30, TimeUnit.SECONDS);
                assertThat(answer.statusCode()).isEqualTo(504);
                assertThat(answer.body()).contains("cancelled by DELETE /v1/queries/q-1_a");
                // once it is over, the id names nothing
                assertThat(delete(http, base + "/v1/queries/q-1_a").statusCode()).isEqualTo(404);
                assertThat(delete(http, base + "/v1/queries/bad%20id").statusCode()).isEqualTo(400);
                assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/v1/queries/q-1_a")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(405);
                final HttpResponse<String> badId = http.send(HttpRequest.newBuilder(URI.create(base
                    + "/v1/sql?queryId=" + "x".repeat(65))).POST(HttpRequest.BodyPublishers.ofString(
                    "SELECT count(*) FROM trades")).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(badId.statusCode()).isEqualTo(400);
                assertThat(badId.body()).contains("queryId must be 1 to 64 letters");
            }
        }
    }

    private static HttpResponse<String> delete(final HttpClient http, final String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).DELETE().build(),
            HttpResponse.BodyHandlers.ofString());
    }
}
