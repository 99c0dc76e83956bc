package io.tradestore.server.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** A small java.net.http client for the end-to-end tests. */
public final class Http {
    public static final ObjectMapper MAPPER = new ObjectMapper();
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final String token;

    public Http(final int port) {
        this(port, null);
    }

    public Http(final int port, final String token) {
        this.base = "http://127.0.0.1:" + port;
        this.token = token;
    }

    /** A response: status, body text, and the Retry-After header if any. */
    public record Response(int status, String body, String retryAfter, String contentType) {
        public JsonNode json() {
            try {
                return MAPPER.readTree(body);
            } catch (final IOException e) {
                throw new UncheckedIOException("not JSON: " + body, e);
            }
        }

        public String errorCode() {
            return json().path("error").path("code").asText();
        }
    }

    public Response get(final String path) {
        return send(builder(path).GET());
    }

    public Response post(final String path, final String body) {
        return post(path, body.getBytes(StandardCharsets.UTF_8));
    }

    public Response post(final String path, final byte[] body) {
        return send(builder(path).POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .header("Content-Type", "application/json"));
    }

    public Response send(final HttpRequest.Builder b) {
        try {
            final HttpResponse<String> r = client
                .send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Response(r.statusCode(), r.body(), r.headers().firstValue("Retry-After").orElse(null),
                r.headers().firstValue("Content-Type").orElse(null));
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public HttpRequest.Builder builder(final String path) {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b;
    }
}
