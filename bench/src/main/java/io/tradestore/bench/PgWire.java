package io.tradestore.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * PostgreSQL's wire protocol (v3) for {@link NioLoad}: each connection logs in and prepares one named statement, then
 * each request is the Bind, Execute and Sync that a JDBC driver sends to run a statement it has prepared (with {@code
 * prepareThreshold} reached), parameters in text, results in text. An answer ends with its ReadyForQuery; it is an
 * error when an ErrorResponse came before it. Only for a server that asks for no password (loopback without a token).
 */
final class PgWire implements NioLoad.Wire {
    private static final String STATEMENT = "bench";

    private final String sql;
    private final int[] parameterTypes;

    /**
     * @param sql            the statement, parameters as {@code $1, $2, ...}.
     * @param parameterTypes each parameter's type OID, as the JDBC driver declares it (int8 20, varchar 1043,
     *                       timestamptz 1184).
     */
    PgWire(final String sql, final int... parameterTypes) {
        this.sql = sql;
        this.parameterTypes = parameterTypes.clone();
    }

    @Override
    public void handshake(final SocketChannel ch) throws IOException {
        final Msg startup = new Msg();
        startup.int32(0).int32(196_608).cstring("user").cstring("tradestore").cstring("database")
            .cstring("tradestore").cstring("application_name").cstring("SqlBenchmark").int8(0);
        write(ch, startup.untyped());
        awaitReady(ch, "startup");
        final Msg parse = new Msg().cstring(STATEMENT).cstring(sql).int16(parameterTypes.length);
        for (final int oid : parameterTypes) {
            parse.int32(oid);
        }
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(parse.typed('P'));
        out.writeBytes(new Msg().typed('S'));
        write(ch, out.toByteArray());
        awaitReady(ch, "Parse of " + sql);
    }

    /**
     * @param parameters the parameters' text forms.
     * @return the bytes of one execution: Bind, Execute, Sync.
     */
    byte[] request(final String... parameters) {
        final Msg bind = new Msg().cstring("").cstring(STATEMENT).int16(0).int16(parameters.length);
        for (final String p : parameters) {
            final byte[] b = p.getBytes(StandardCharsets.UTF_8);
            bind.int32(b.length).bytes(b);
        }
        bind.int16(0);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(bind.typed('B'));
        out.writeBytes(new Msg().cstring("").int32(0).typed('E'));
        out.writeBytes(new Msg().typed('S'));
        return out.toByteArray();
    }

    @Override
    public int status(final byte[] in, final int filled) throws IOException {
        boolean error = false;
        int at = 0;
        while (at + 5 <= filled) {
            final byte type = in[at];
            final int length = ByteBuffer.wrap(in, at + 1, 4).getInt();
            if (length < 4) {
                throw new IOException("a message of type '" + (char) type + "' claims " + length + " bytes");
            }
            final int end = at + 1 + length;
            if (end > filled) {
                return 0;
            }
            error |= type == 'E';
            if (type == 'Z') {
                if (end != filled) {
                    throw new IOException("the server sent more after ReadyForQuery");
                }
                return error ? 500 : 200;
            }
            at = end;
        }
        return 0;
    }

    private static void write(final SocketChannel ch, final byte[] bytes) throws IOException {
        final ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    /** Reads (blocking) up to ReadyForQuery; fails with the server's message on an ErrorResponse. */
    private static void awaitReady(final SocketChannel ch, final String what) throws IOException {
        final ByteBuffer head = ByteBuffer.allocate(5);
        String error = null;
        while (true) {
            head.clear();
            readFully(ch, head);
            final byte type = head.get(0);
            final ByteBuffer body = ByteBuffer.allocate(head.getInt(1) - 4);
            readFully(ch, body);
            if (type == 'R' && body.getInt(0) != 0) {
                throw new IOException(what + ": the server asks for a password (authentication " + body.getInt(0)
                    + "); the load runs against a server without a token");
            }
            if (type == 'E' && error == null) {
                error = new String(body.array(), StandardCharsets.UTF_8).replace('\0', ' ').trim();
            }
            if (type == 'Z') {
                if (error != null) {
                    throw new IOException(what + " failed: " + error);
                }
                return;
            }
        }
    }

    private static void readFully(final SocketChannel ch, final ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new IOException("the server closed the connection");
            }
        }
    }

    /** A message under construction; its length is filled in when it is taken. */
    private static final class Msg {
        private final ByteArrayOutputStream b = new ByteArrayOutputStream();

        Msg int8(final int v) {
            b.write(v);
            return this;
        }

        Msg int16(final int v) {
            b.write(v >>> 8);
            b.write(v);
            return this;
        }

        Msg int32(final int v) {
            b.write(v >>> 24);
            b.write(v >>> 16);
            b.write(v >>> 8);
            b.write(v);
            return this;
        }

        Msg bytes(final byte[] v) {
            b.writeBytes(v);
            return this;
        }

        Msg cstring(final String v) {
            b.writeBytes(v.getBytes(StandardCharsets.UTF_8));
            b.write(0);
            return this;
        }

        /** @return the body with its length in the first four bytes (the startup message has no type byte). */
        byte[] untyped() {
            final byte[] out = b.toByteArray();
            ByteBuffer.wrap(out).putInt(0, out.length);
            return out;
        }

        /** @return the type byte, the length (itself and the body) and the body. */
        byte[] typed(final char type) {
            final byte[] body = b.toByteArray();
            final ByteBuffer out = ByteBuffer.allocate(5 + body.length);
            out.put((byte) type).putInt(4 + body.length).put(body);
            return out.array();
        }
    }
}
