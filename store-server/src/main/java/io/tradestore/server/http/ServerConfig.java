package io.tradestore.server.http;

import java.net.InetAddress;
import java.net.UnknownHostException;

import io.tradestore.core.StoreException;

/**
 * How a {@link QueryServer} listens and how much work it accepts. Validated once, at construction.
 *
 * @param bind          address to listen on; anything but a loopback address requires a token.
 * @param port          TCP port; 0 picks a free one.
 * @param threads       query worker threads.
 * @param queue         queries that may wait for a worker; one more is answered 503 OVERLOADED at once.
 * @param maxBodyLength largest accepted request body (and {@code q=} parameter) in bytes; larger is 413.
 * @param timeoutMs     longest a query may run before the client gets 504 TIMEOUT.
 * @param token         bearer token every request must carry, or null for none (loopback only).
 */
public record ServerConfig(String bind, int port, int threads, int queue, int maxBodyLength, long timeoutMs, String token) {
    /** Default port. */
    public static final int DEFAULT_PORT = 8080;
    /** Default bind address. */
    public static final String DEFAULT_BIND = "127.0.0.1";
    /** Default queue length. */
    public static final int DEFAULT_QUEUE = 64;
    /** Default body limit: 1 MiB. */
    public static final int DEFAULT_MAX_BODY_LENGTH = 1 << 20;
    /** Default query time limit. */
    public static final long DEFAULT_TIMEOUT_MS = 10_000;

    /** Validates the values; throws {@link StoreException} with what is allowed. */
    public ServerConfig {
        if (port < 0 || port > 65535) {
            throw new StoreException("port=" + port + " must be between 0 and 65535");
        }
        if (threads < 1 || threads > 1024) {
            throw new StoreException("threads=" + threads + " must be between 1 and 1024");
        }
        if (queue < 0 || queue > 1_000_000) {
            throw new StoreException("queue=" + queue + " must be between 0 and 1000000");
        }
        if (maxBodyLength < 16) {
            throw new StoreException("maxBody=" + maxBodyLength + " must be at least 16 bytes");
        }
        if (timeoutMs < 1) {
            throw new StoreException("timeoutMs=" + timeoutMs + " must be positive");
        }
        if (token != null && token.isBlank()) {
            throw new StoreException("token must not be blank");
        }
        if (!isLoopback(bind) && token == null) {
            throw new StoreException("binding to " + bind + " exposes the store beyond this machine: give --token TOKEN "
                + "(clients then send 'Authorization: Bearer TOKEN'), or bind to 127.0.0.1");
        }
    }

    /**
     * The defaults: 127.0.0.1:8080, one worker per core, a queue of 64, 1 MiB bodies, 10 s per query, no token.
     *
     * @return the default configuration.
     */
    public static ServerConfig defaults() {
        return new ServerConfig(DEFAULT_BIND, DEFAULT_PORT, Runtime.getRuntime().availableProcessors(), DEFAULT_QUEUE,
            DEFAULT_MAX_BODY_LENGTH, DEFAULT_TIMEOUT_MS, null);
    }

    /**
     * @param newPort the port.
     * @return this configuration on another port.
     */
    public ServerConfig withPort(final int newPort) {
        return new ServerConfig(bind, newPort, threads, queue, maxBodyLength, timeoutMs, token);
    }

    private static boolean isLoopback(final String address) {
        if (address == null || address.isBlank()) {
            throw new StoreException("bind address is empty");
        }
        try {
            return InetAddress.getByName(address).isLoopbackAddress();
        } catch (final UnknownHostException e) {
            throw new StoreException("cannot resolve bind address '" + address + "'", e);
        }
    }
}
