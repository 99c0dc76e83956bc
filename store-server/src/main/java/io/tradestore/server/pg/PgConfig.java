package io.tradestore.server.pg;

import io.tradestore.core.StoreException;
import io.tradestore.server.http.ServerConfig;

/**
 * How the PostgreSQL front end listens: the HTTP server's address, token and time limits, its own port and connection
 * bound. Validated once, at construction.
 *
 * @param bind             address to listen on (the HTTP server's).
 * @param port             TCP port; 0 picks a free one.
 * @param maxConnections   open connections at most; one more gets 53300 after its startup message and closes.
 * @param token            the password every client must give (the HTTP server's token), or null: any password.
 * @param messageTimeoutMs longest a client may take to send one message from its first byte, and to log in.
 * @param writeTimeoutMs   longest an answer may wait for its client to take more bytes; then the connection closes.
 * @param maxMessageLength longest message accepted, in bytes; a longer one is a protocol violation.
 */
public record PgConfig(String bind, int port, int maxConnections, String token, long messageTimeoutMs,
                       long writeTimeoutMs, int maxMessageLength) {
    /** The default port, QuestDB's and tradestore's. */
    public static final int DEFAULT_PORT = 8812;
    /** The default connection bound. */
    public static final int DEFAULT_MAX_CONNECTIONS = 64;
    /** The default message length bound: 64 MiB. */
    public static final int DEFAULT_MAX_MESSAGE_LENGTH = 64 << 20;

    /** Validates the values; throws {@link StoreException} with what is allowed. */
    public PgConfig {
        if (port < 0 || port > 65535) {
            throw new StoreException("pgPort=" + port + " must be between 0 and 65535 (or -1 for no PostgreSQL port)");
        }
        if (maxConnections < 1) {
            throw new StoreException("pgMaxConnections=" + maxConnections + " must be at least 1");
        }
        if (messageTimeoutMs < 1 || writeTimeoutMs < 1) {
            throw new StoreException("messageTimeoutMs=" + messageTimeoutMs + " and writeTimeoutMs=" + writeTimeoutMs
                + " must be positive");
        }
        if (maxMessageLength < 1024) {
            throw new StoreException("maxMessageLength=" + maxMessageLength + " must be at least 1024");
        }
    }

    /**
     * @param http           the HTTP server's configuration: address, token and time limits are shared.
     * @param port           the PostgreSQL port (0: a free one).
     * @param maxConnections its connection bound.
     * @return the configuration.
     */
    public static PgConfig of(final ServerConfig http, final int port, final int maxConnections) {
        return new PgConfig(http.bind(), port, maxConnections, http.token(), http.limits().requestTimeoutMs(),
            http.limits().writeTimeoutMs(), DEFAULT_MAX_MESSAGE_LENGTH);
    }
}
