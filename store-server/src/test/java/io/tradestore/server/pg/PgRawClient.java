package io.tradestore.server.pg;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A raw protocol-v3 client for tests that send what no driver would: messages built byte by byte, read back as typed
 * messages with every length checked. Every read has a timeout, so a server that never answers fails the test.
 */
final class PgRawClient implements AutoCloseable {
    /** The backend message types a server may send. */
    static final String BACKEND_TYPES = "RSKZTDCEIN123ntsvAGHWdc";

    /** One backend message. @param type its type. @param body its body. */
    record Message(char type, byte[] body) {
        /** @return an ErrorResponse's field (S, V, C, M, P...), or null. */
        String field(final char code) {
            int at = 0;
            while (at < body.length && body[at] != 0) {
                final char c = (char) body[at];
                int end = at + 1;
                while (end < body.length && body[end] != 0) {
                    end++;
                }
                if (c == code) {
                    return new String(body, at + 1, end - at - 1, StandardCharsets.UTF_8);
                }
                at = end + 1;
            }
            return null;
        }
    }

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    PgRawClient(final int port, final int readTimeoutMs) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(readTimeoutMs);
        socket.setTcpNoDelay(true);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** @return a StartupMessage (protocol 3.0) for user tradestore. */
    static byte[] startup() {
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(cstring("user"));
        body.writeBytes(cstring("tradestore"));
        body.writeBytes(cstring("database"));
        body.writeBytes(cstring("tradestore"));
        body.write(0);
        final byte[] b = body.toByteArray();
        final ByteArrayOutputStream m = new ByteArrayOutputStream();
        writeInt(m, 8 + b.length);
        writeInt(m, 3 << 16);
        m.writeBytes(b);
        return m.toByteArray();
    }

    /** Sends the startup message and reads up to the first ReadyForQuery. */
    List<Message> login() throws IOException {
        send(startup());
        return readUntilReady();
    }

    static byte[] cstring(final String s) {
        final byte[] b = s.getBytes(StandardCharsets.UTF_8);
        final byte[] c = new byte[b.length + 1];
        System.arraycopy(b, 0, c, 0, b.length);
        return c;
    }

    static void writeInt(final ByteArrayOutputStream o, final int v) {
        o.write(v >>> 24);
        o.write(v >>> 16);
        o.write(v >>> 8);
        o.write(v);
    }

    /** @return a typed message: the type, its length, the body. */
    static byte[] message(final char type, final byte[]... parts) {
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (final byte[] p : parts) {
            body.writeBytes(p);
        }
        final ByteArrayOutputStream m = new ByteArrayOutputStream();
        m.write(type);
        writeInt(m, 4 + body.size());
        m.writeBytes(body.toByteArray());
        return m.toByteArray();
    }

    static byte[] int16(final int v) {
        return new byte[] {(byte) (v >>> 8), (byte) v};
    }

    static byte[] int32(final int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    static byte[] query(final String sql) {
        return message('Q', cstring(sql));
    }

    void send(final byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Half-closes: the server sees the end of the stream. */
    void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    /**
     * @return the next message, or null at the end of the stream.
     * @throws IOException on a read timeout (the server hangs) or a malformed message (type or length).
     */
    Message read() throws IOException {
        final int type = in.read();
        if (type < 0) {
            return null;
        }
        if (BACKEND_TYPES.indexOf(type) < 0) {
            throw new IOException("unknown backend message type " + type);
        }
        final int length;
        try {
            length = in.readInt();
        } catch (final EOFException e) {
            throw new IOException("the stream ends inside a message header of type " + (char) type);
        }
        if (length < 4 || length > 64 << 20) {
            throw new IOException("bad backend message length " + length);
        }
        final byte[] body = new byte[length - 4];
        in.readFully(body);
        return new Message((char) type, body);
    }

    /** @return the messages up to and with ReadyForQuery, or up to the end of the stream after a FATAL. */
    List<Message> readUntilReady() throws IOException {
        final List<Message> got = new ArrayList<>();
        while (true) {
            final Message m = read();
            if (m == null) {
                return got;
            }
            got.add(m);
            if (m.type() == 'Z') {
                return got;
            }
        }
    }

    /** @return every message up to the end of the stream. */
    List<Message> readToEnd() throws IOException {
        final List<Message> got = new ArrayList<>();
        try {
            for (Message m = read(); m != null; m = read()) {
                got.add(m);
            }
        } catch (final SocketTimeoutException e) {
            throw new IOException("no end of stream within the read timeout after " + got.size() + " messages", e);
        } catch (final java.net.SocketException e) {
            // a reset once the server has closed: the end as well
        }
        return got;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
