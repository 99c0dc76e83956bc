package io.tradestore.server.http;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

import io.tradestore.core.StoreException;

/**
 * How a {@link QueryServer} listens and how much work it accepts. Validated once, at construction.
 *
 * @param bind            address to listen on; anything but a loopback address requires a token.
 * @param port            TCP port; 0 picks a free one.
 * @param threads         query worker threads.
 * @param queue           queries that may wait for a worker; one more is answered 503 OVERLOADED at once.
 * @param maxBodyLength   largest accepted request body (and {@code q=} parameter) in bytes; larger is 413.
 * @param timeoutMs       longest a query may run before the client gets 504 TIMEOUT.
 * @param token           bearer token every request must carry, or null for none (loopback only).
 * @param limits          connection, time and memory limits that keep the server up under hostile or careless clients.
 */
public record ServerConfig(String bind, int port, int threads, int queue, int maxBodyLength, long timeoutMs,
    String token, Limits limits) {
    /**
     * Limits against clients that hold on to the server's resources.
     *
     * @param maxConnections   open connections at most; one more is answered 503 and closed (0: derived at start
     *                         from the process's file-descriptor limit, leaving room for the store's files).
     * @param requestTimeoutMs longest a client may take to send one whole request (head and body) from its first byte;
     *                         beyond that 408 and the connection closes.
     * @param writeTimeoutMs   longest an answer may wait for its client to take more bytes; beyond that the
     *                         connection closes.
     * @param maxAnswerBytes   answer bytes all connections together may hold while their clients read them; an answer
     *                         that would pass it is refused with 503 before its status line is sent.
     * @param maxGroups        most groups a query may ask for in {@code options.maxGroups}.
     * @param allowedHosts     host names, beyond loopback and the bound address, that a token-less server accepts in
     *                         {@code Host} and {@code Origin} headers.
     */
    public record Limits(int maxConnections, long requestTimeoutMs, long writeTimeoutMs, long maxAnswerBytes,
                         long maxGroups, List<String> allowedHosts) {
        /** Default time to send a whole request. */
        public static final long DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
        /** Default time an answer may wait for its client. */
        public static final long DEFAULT_WRITE_TIMEOUT_MS = 60_000;
        /** Default cap on groups per query asked for by {@code options.maxGroups}. */
        public static final long DEFAULT_MAX_GROUPS = 10_000_000;

        /** Validates the values; throws {@link StoreException} with what is allowed. */
        public Limits {
            if (maxConnections < 0) {
                throw new StoreException("maxConnections=" + maxConnections
                    + " must be 0 (derived from the file-descriptor limit) or more");
            }
            if (requestTimeoutMs < 1 || writeTimeoutMs < 1) {
                throw new StoreException("requestTimeoutMs=" + requestTimeoutMs + " and writeTimeoutMs="
                    + writeTimeoutMs + " must be positive");
            }
            if (maxAnswerBytes < 1 << 16) {
                throw new StoreException("maxAnswerBytes=" + maxAnswerBytes + " must be at least 65536");
            }
            if (maxGroups < 1) {
                throw new StoreException("maxGroups=" + maxGroups + " must be positive");
            }
            allowedHosts = List.copyOf(allowedHosts);
            for (final String h : allowedHosts) {
                if (h.isBlank() || h.contains(":") && !h.startsWith("[") || h.contains("/")) {
                    throw new StoreException("allowed host '" + h
                        + "' must be a host name or address without port or path");
                }
            }
        }

        /**
         * @return the defaults: connections from the descriptor limit, 30 s per request, 60 s per write, a quarter of
         * the heap for answers, 10M groups.
         */
        public static Limits defaults() {
            return new Limits(0, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_WRITE_TIMEOUT_MS,
                Math.max(1 << 16, Runtime.getRuntime().maxMemory() / 4), DEFAULT_MAX_GROUPS, List.of());
        }
    }

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

    /**
     * A configuration with the default {@link Limits}.
     *
     * @param bind          address to listen on.
     * @param port          TCP port.
     * @param threads       query worker threads.
     * @param queue         queries that may wait.
     * @param maxBodyLength largest request body.
     * @param timeoutMs     longest a query may run.
     * @param token         bearer token, or null.
     */
    public ServerConfig(final String bind, final int port, final int threads, final int queue, final int maxBodyLength,
                        final long timeoutMs, final String token) {
        this(bind, port, threads, queue, maxBodyLength, timeoutMs, token, Limits.defaults());
    }

    /** Validates the values; throws {@link StoreException} with what is allowed. */
    public ServerConfig {
        if (limits == null) {
            throw new StoreException("limits must be given");
        }
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
            throw new StoreException("binding to " + bind
                + " exposes the store beyond this machine: give --token TOKEN "
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
        return new ServerConfig(bind, newPort, threads, queue, maxBodyLength, timeoutMs, token, limits);
    }

    /**
     * @param newLimits the limits.
     * @return this configuration with other limits.
     */
    public ServerConfig withLimits(final Limits newLimits) {
        return new ServerConfig(bind, port, threads, queue, maxBodyLength, timeoutMs, token, newLimits);
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
