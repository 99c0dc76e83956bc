package io.tradestore.server.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.TestStores;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console's files over HTTP: the page at {@code /} and its script, style and charting library under
 * {@code /console/}, each with the Content-Security-Policy that lets the page run only them, served without the
 * token that every API call of the page must carry.
 */
class ConsoleAssetsTest {
    @TempDir
    Path dir;

    @Test
    void shouldServeThePageAndItsFilesWithTheirPolicyAndWithoutTheToken() throws Exception {
        TestStores.writeTrades(dir, 100, 3);
        try (Store store = Store.open(dir); QueryEngine engine = new QueryEngine(store, 1);
             QueryServer server = QueryServer.start(store, engine,
                 new ServerConfig("127.0.0.1", 0, 1, 4, 1 << 20, 10_000, "s3cret"))) {
            final HttpClient http = HttpClient.newHttpClient();
            final String base = "http://127.0.0.1:" + server.port();
            final HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(base + "/")).build(),
                HttpResponse.BodyHandlers.ofString());
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
            assertThat(page.headers().firstValue("content-security-policy")).hasValue(
                ConsoleAssets.CONTENT_SECURITY_POLICY);
            assertThat(ConsoleAssets.CONTENT_SECURITY_POLICY).contains("script-src 'self';")
                .doesNotContain("unsafe-inline").doesNotContain("unsafe-eval");
            // no inline script or style: every script and style is a file of this server
            assertThat(page.body()).contains("<script src=\"/console/console.js\" defer></script>")
                .doesNotContainPattern("<script>|<script [^>]*>[^<]|<style|style=\"|\\son[a-z]+=\"")
                .contains("data-testid=\"editor\"", "data-testid=\"run\"", "data-testid=\"results\"",
                    "data-testid=\"chart\"");
            for (final String file : new String[] {"console.js", "console.css", "echarts.min.js"}) {
                final HttpResponse<String> f = http.send(HttpRequest.newBuilder(URI.create(base + "/console/" + file))
                    .build(), HttpResponse.BodyHandlers.ofString());
                assertThat(f.statusCode()).as(file).isEqualTo(200);
                assertThat(f.body()).as(file).hasSizeGreaterThan(1000);
                assertThat(f.headers().firstValue("x-content-type-options")).hasValue("nosniff");
            }
            assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/console/nothing.js")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(404);
            // the API still asks for the token, which the page sends from what the user typed
            assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/v1/tables")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
            assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/v1/tables"))
                .header("Authorization", "Bearer s3cret").build(), HttpResponse.BodyHandlers.ofString())
                .statusCode()).isEqualTo(200);
            // only GET and HEAD
            assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/")).POST(
                HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString())
                .statusCode()).isEqualTo(405);
        }
    }
}
