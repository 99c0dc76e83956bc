package io.tradestore.server.http;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * The default connection limit: what the process's file-descriptor limit leaves once the descriptors already open (the
 * JVM's jars, the store's files) and a reserve for files opened later (segments, index files, logs) are set aside. A
 * server that runs out of descriptors cannot accept, open a segment or write a log line; one that refuses the
 * connection beyond its limit with 503 keeps working.
 */
final class ConnectionBudget {
    /** Connections allowed when the descriptor limit cannot be read. */
    static final int UNKNOWN_LIMIT_CONNECTIONS = 1024;
    /**
     * Descriptors kept free beyond those open at start: at least this many, or an eighth of the limit if that is more.
     */
    static final int MIN_RESERVE = 64;
    /** Connections allowed however high the descriptor limit is (each holds buffers and a Netty channel). */
    static final int MAX_CONNECTIONS = 1 << 16;

    private ConnectionBudget() {
    }

    /** @return the connection limit for this process's descriptor limit (at least 1). */
    static int fromDescriptorLimit() {
        final OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (!(os instanceof com.sun.management.UnixOperatingSystemMXBean)) {
            return UNKNOWN_LIMIT_CONNECTIONS;
        }
        final com.sun.management.UnixOperatingSystemMXBean unix = (com.sun.management.UnixOperatingSystemMXBean) os;
        return forLimit(unix.getMaxFileDescriptorCount(), unix.getOpenFileDescriptorCount());
    }

    /**
     * @param limit the descriptor limit.
     * @param open  descriptors open now.
     * @return connections allowed: the limit less those open and the reserve, between 1 and {@link #MAX_CONNECTIONS}.
     */
    static int forLimit(final long limit, final long open) {
        if (limit <= 0) {
            return UNKNOWN_LIMIT_CONNECTIONS;
        }
        final long reserve = Math.max(MIN_RESERVE, limit / 8);
        return (int) Math.max(1, Math.min(MAX_CONNECTIONS, limit - open - reserve));
    }
}
