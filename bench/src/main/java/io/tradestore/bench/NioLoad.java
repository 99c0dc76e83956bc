package io.tradestore.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;

/**
 * The fixed-rate load of {@link HttpBenchmark} and {@link SqlBenchmark} from one thread: {@code connections}
 * non-blocking keep-alive connections (HTTP/1.1, or PostgreSQL's wire protocol: {@link Wire}) on one selector, one
 * request in flight per connection (wrk2's model). Request {@code i} is due at {@code start + i / rate} and its
 * latency runs from that intended time to the last byte of its answer, so a request that waits for a free connection
 * is charged for the wait (coordinated omission corrected). One thread instead of one per connection: the generator
 * shares the two cores with the server, and 32 threads parking, waking and blocking on reads cost it ~50 us of CPU a
 * request (thread groups of the fixed-rate runs); a selector loop costs a fraction.
 *
 * <p>The connections and their receive buffers are opened once and kept across runs (reopened only after a run that
 * broke off with requests in flight), as a long-lived client's pool would be. The generator shares the server's JVM:
 * when every run opened 32 new connections with 64 KiB buffers, those buffers and both ends' connection state would
 * be copied by every young collection of the run until promoted, most of each of the server's pauses.
 */
final class NioLoad implements AutoCloseable {
    /** Below this, the loop parks for the next send instead of waiting in the selector (whose timeout is in ms). */
    private static final long PARK_BELOW_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /** The header name, lower case, as bytes (made once, not per answer). */
    private static final byte[] CONTENT_LENGTH = "content-length:".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final InetSocketAddress address;
    private final Wire wire;
    private final Conn[] conns;
    private Selector sel;

    /** What a protocol adds to the loop: a connection's setup, and where an answer ends. */
    interface Wire {
        /**
         * Readies a new connection, still in blocking mode, for requests (a login, a prepared statement).
         *
         * @param ch the connection.
         * @throws IOException when the server refuses or the connection breaks.
         */
        void handshake(SocketChannel ch) throws IOException;

        /**
         * @param in     the answer's bytes so far.
         * @param filled how many.
         * @return 0 while the answer is incomplete, 200 once it is complete and good, another positive code once it
         *         is complete and an error.
         * @throws IOException when the bytes are not a valid answer.
         */
        int status(byte[] in, int filled) throws IOException;
    }

    /** HTTP/1.1: no setup; an answer ends after its Content-Length; its status is the status line's. */
    static final Wire HTTP = new Wire() {
        @Override
        public void handshake(final SocketChannel ch) {
        }

        @Override
        public int status(final byte[] in, final int filled) throws IOException {
            return httpStatus(in, filled);
        }
    };

    /**
     * Opens HTTP/1.1 connections.
     *
     * @param address     the server.
     * @param connections keep-alive connections.
     * @throws IOException when a connection cannot be opened.
     */
    NioLoad(final InetSocketAddress address, final int connections) throws IOException {
        this(address, connections, HTTP);
    }

    /**
     * Opens the connections.
     *
     * @param address     the server.
     * @param connections keep-alive connections.
     * @param wire        the protocol.
     * @throws IOException when a connection cannot be opened.
     */
    NioLoad(final InetSocketAddress address, final int connections, final Wire wire) throws IOException {
        this.address = address;
        this.wire = wire;
        this.conns = new Conn[connections];
        open();
    }

    private void open() throws IOException {
        sel = Selector.open();
        for (int c = 0; c < conns.length; c++) {
            final SocketChannel ch = SocketChannel.open(address);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            wire.handshake(ch);
            ch.configureBlocking(false);
            conns[c] = new Conn(ch, conns[c] == null ? new byte[1 << 16] : conns[c].in);
            ch.register(sel, SelectionKey.OP_READ, conns[c]);
        }
    }

    /** Closes every connection (after a run that broke off, a fresh set is opened for the next). */
    @Override
    public void close() throws IOException {
        for (final Conn c : conns) {
            if (c != null) {
                c.ch.close();
            }
        }
        if (sel != null) {
            sel.close();
            sel = null;
        }
    }

    /** One connection: the request in flight, and its answer so far. */
    private static final class Conn {
        final SocketChannel ch;
        long intended;
        long index;
        boolean busy;
        final byte[] in;
        int filled;

        Conn(final SocketChannel ch, final byte[] in) {
            this.ch = ch;
            this.in = in;
        }
    }

    /** Counts and histograms of one run (nanoseconds). */
    static final class Outcome {
        final Histogram latency = new Histogram(TimeUnit.MINUTES.toNanos(5), 3);
        final Histogram firstHalf = new Histogram(TimeUnit.MINUTES.toNanos(5), 2);
        final Histogram secondHalf = new Histogram(TimeUnit.MINUTES.toNanos(5), 2);
        long ok;
        long errors;
        long lastEnd;
        boolean aborted;
        /** When tracing: per completed request, its index, intended send time and end (System.nanoTime). */
        long[] traceIndex;
        long[] traceIntended;
        long[] traceEnd;
        int traced;
    }

    /**
     * Sends {@code total} requests at a fixed rate and waits for every answer.
     *
     * @param requests request bytes, used round-robin.
     * @param total    requests to send.
     * @param periodNs nanoseconds between intended sends.
     * @param start    intended time of request 0.
     * @param giveUp   the run is aborted when it is still going then.
     * @param trace    whether to keep each answered request's index, intended send time and end ({@link
     *                 Outcome#traceIndex}).
     * @return what happened.
     * @throws IOException when a connection fails or cannot be reopened.
     */
    Outcome run(final byte[][] requests, final long total, final double periodNs, final long start, final long giveUp,
        final boolean trace)
        throws IOException {
        final Outcome o = new Outcome();
        o.lastEnd = start;
        if (trace) {
            final int n = (int) Math.min(total, 10_000_000);
            o.traceIndex = new long[n];
            o.traceIntended = new long[n];
            o.traceEnd = new long[n];
        }
        if (sel == null) {
            open();
        }
        final ArrayDeque<Conn> idle = new ArrayDeque<>(conns.length);
        for (final Conn c : conns) {
            idle.add(c);
        }
        long done = 0;
        try {
            long sent = 0;
            while (done < total) {
                final long now = System.nanoTime();
                if (now > giveUp) {
                    o.aborted = true;
                    break;
                }
                while (sent < total && !idle.isEmpty() && start + (long) (sent * periodNs) <= now) {
                    final Conn c = idle.poll();
                    c.intended = start + (long) (sent * periodNs);
                    c.index = sent;
                    c.busy = true;
                    c.filled = 0;
                    final ByteBuffer b = ByteBuffer.wrap(requests[(int) (sent % requests.length)]);
                    while (b.hasRemaining()) {
                        c.ch.write(b);
                    }
                    sent++;
                }
                final long wait = sent < total && !idle.isEmpty() ? start
                    + (long) (sent * periodNs) - System.nanoTime() : Long.MAX_VALUE;
                final int ready;
                if (wait <= 0) {
                    ready = sel.selectNow();
                } else if (wait < PARK_BELOW_NS) {
                    ready = sel.selectNow();
                    if (ready == 0) {
                        LockSupport.parkNanos(wait);
                        continue;
                    }
                } else {
                    ready = sel.select(Math.max(1, Math.min(wait, giveUp - now) / 1_000_000));
                }
                if (ready == 0) {
                    continue;
                }
                final var keys = sel.selectedKeys().iterator();
                while (keys.hasNext()) {
                    final SelectionKey k = keys.next();
                    keys.remove();
                    final Conn c = (Conn) k.attachment();
                    final int status = read(c, wire);
                    if (status == 0) {
                        continue;
                    }
                    final long end = System.nanoTime();
                    final long ns = Math.min(end - c.intended, o.latency.getHighestTrackableValue());
                    o.latency.recordValue(ns);
                    (done < total / 2 ? o.firstHalf : o.secondHalf).recordValue(ns);
                    if (status == 200) {
                        o.ok++;
                    } else {
                        o.errors++;
                    }
                    if (status < 0) {
                        o.aborted = true;
                        return o;
                    }
                    if (o.traceIndex != null && o.traced < o.traceIndex.length) {
                        o.traceIndex[o.traced] = c.index;
                        o.traceIntended[o.traced] = c.intended;
                        o.traceEnd[o.traced++] = end;
                    }
                    o.lastEnd = Math.max(o.lastEnd, end);
                    done++;
                    c.busy = false;
                    idle.add(c);
                }
            }
        } finally {
            if (o.aborted || done < total) {
                close(); // answers may still be on their way: the next run starts on fresh connections
            }
        }
        return o;
    }

    /** @return the answer's status once it is complete, 0 while it is not, -1 when the connection broke. */
    private static int read(final Conn c, final Wire wire) throws IOException {
        final int n = c.ch.read(ByteBuffer.wrap(c.in, c.filled, c.in.length - c.filled));
        if (n < 0 || !c.busy) {
            return -1;
        }
        c.filled += n;
        final int status = wire.status(c.in, c.filled);
        if (status == 0 && c.filled == c.in.length) {
            throw new IOException("an answer does not fit the " + c.in.length + "-byte buffer");
        }
        return status;
    }

    private static int httpStatus(final byte[] in, final int filled) throws IOException {
        final int head = headEnd(in, filled);
        if (head < 0) {
            return 0;
        }
        final long length = contentLength(in, head);
        if (head + length > in.length) {
            throw new IOException("an answer of " + (head + length) + " bytes does not fit the " + in.length
                + "-byte buffer");
        }
        if (filled < head + length) {
            return 0;
        }
        if (filled > head + length) {
            throw new IOException("the server sent more than one answer to one request");
        }
        return (in[9] - '0') * 100 + (in[10] - '0') * 10 + (in[11] - '0');
    }

    /** @return the index after the blank line ending the headers, or -1. */
    static int headEnd(final byte[] b, final int n) {
        for (int i = 3; i < n; i++) {
            if (b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r') {
                return i + 1;
            }
        }
        return -1;
    }

    /** @return the Content-Length header's value (0 when absent). */
    static long contentLength(final byte[] b, final int head) {
        final byte[] name = CONTENT_LENGTH;
        int line = 0;
        while (line < head) {
            int end = line;
            while (end < head && b[end] != '\n') {
                end++;
            }
            if (end - line > name.length && matches(b, line, name)) {
                long v = 0;
                for (int i = line + name.length; i < end; i++) {
                    if (b[i] >= '0' && b[i] <= '9') {
                        v = v * 10 + b[i] - '0';
                    }
                }
                return v;
            }
            line = end + 1;
        }
        return 0;
    }

    private static boolean matches(final byte[] b, final int at, final byte[] lowerName) {
        for (int i = 0; i < lowerName.length; i++) {
            if (Character.toLowerCase(b[at + i]) != lowerName[i]) {
                return false;
            }
        }
        return true;
    }
}
