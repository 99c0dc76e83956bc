package io.tradestore.server.pg;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.server.http.ServerConfig;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded, replayable fuzzing of the wire protocol over raw sockets: mutated SQL texts in simple and extended queries,
 * framed messages of every type with random bodies and parameters, random bytes after a valid startup, truncated
 * messages, wrong lengths, unknown types and garbage in place of a startup. Every answer must be well-formed
 * messages ending in ReadyForQuery, a FATAL error then the close, or the close; the server must stay up (a JDBC
 * query works throughout) and give back every worker.
 */
class PgFuzzTest {
    private static final long SEED = 20_261_128L;
    private static final int CASES = 10_000;
    private static final int READ_TIMEOUT_MS = 30_000;
    private static final String FRONTEND_TYPES = "BCdcfDEHFPQS";
    private static final List<String> SQL = List.of(
        "SELECT count(*) AS n FROM trades",
        "SELECT venue, count(*) AS n, sum(price * quantity) AS notional FROM trades GROUP BY venue ORDER BY n DESC",
        "SELECT trade_id, ts, price, side FROM trades WHERE client_id = $1 ORDER BY ts DESC LIMIT 5",
        "SELECT instrument, avg(price) FROM trades WHERE price > $1 AND ts >= $2 GROUP BY 1 LIMIT $3",
        "SELECT date_trunc('minute', ts) AS m, max(price) FROM trades WHERE venue IN ($1, 'XLON') GROUP BY m",
        "SELECT ts, count(*) FROM trades SAMPLE BY 5m",
        "SELECT version()",
        "SHOW server_version",
        "SET extra_float_digits = 3",
        "BEGIN",
        "COMMIT",
        "SELECT * FROM pg_catalog.pg_type WHERE oid = $1",
        "SELECT table_name FROM information_schema.tables",
        "SELECT c.relname FROM pg_catalog.pg_class c WHERE c.relkind = 'r'",
        "SELECT current_schema()",
        "",
        "  ; -- nothing",
        "SELECT count(*) FROM trades; SELECT min(ts) FROM trades");
    private static final String NOISE = "'\"$;()*,.-+/ \n\t0123456789abcXYZ_é€\\:%[]{}=<>!?";

    @TempDir
    private Path dir;

    private int errors;
    private int internalErrors;
    private int fatals;
    private int closes;

    @Test
    void shouldAnswerEveryMalformedOrMutatedMessageWithAResultAnErrorOrAClose() throws Exception {
        final Random r = new Random(SEED);
        try (PgServed served = new PgServed(dir, 2_000,
            new ServerConfig("127.0.0.1", 0, 2, 16, 1 << 20, 10_000, null), 64, null)) {
            final int port = served.pg().port();
            PgRawClient session = null;
            for (int i = 0; i < CASES; i++) {
                final int kind = r.nextInt(10);
                final String what = "case " + i + " kind " + kind + " (seed " + SEED + ")";
                try {
                    if (kind < 5) {
                        if (session == null) {
                            session = new PgRawClient(port, READ_TIMEOUT_MS);
                            check(what, session.login(), true);
                        }
                        session.send(kind < 2 ? extended(r) : kind < 4 ? simple(r) : framed(r));
                        if (!check(what, session.readUntilReady(), false)) {
                            session.close();
                            session = null;
                        }
                    } else {
                        try (PgRawClient c = new PgRawClient(port, READ_TIMEOUT_MS)) {
                            if (kind != 9) {
                                check(what, c.login(), true);
                            }
                            c.send(broken(kind, r));
                            c.shutdownOutput();
                            check(what, c.readToEnd(), false);
                        }
                    }
                } catch (final IOException e) {
                    throw new AssertionError(what + ": " + e.getMessage(), e);
                }
                if (i % 1_000 == 999) {
                    assertServed(served);
                }
            }
            if (session != null) {
                session.close();
            }
            assertServed(served);
            PgCancelTest.awaitIdle(served);
            PgCancelTest.await(() -> served.pg().openConnections() == 0, "every fuzz connection to close");
            System.out.printf("pg fuzz: %d cases, %d errors, %d internal errors, %d fatal, %d closes%n", CASES,
                errors, internalErrors, fatals, closes);
            assertThat(internalErrors).as("XX000 answers (the server log has their stack traces)").isZero();
        }
    }

    /**
     * Checks one case's answer: well-formed messages (read() checked types and lengths) that end in ReadyForQuery, or
     * that end with the stream after a FATAL error, a Terminate or the client's own close.
     *
     * @return whether the connection is still open and ready.
     */
    private boolean check(final String what, final List<PgRawClient.Message> got, final boolean login) {
        boolean fatal = false;
        for (final PgRawClient.Message m : got) {
            if (m.type() == 'E') {
                errors++;
                final String state = m.field('C');
                assertThat(state).as(what + ": SQLSTATE").isNotNull().hasSize(5);
                assertThat(m.field('M')).as(what + ": message").isNotNull();
                if ("XX000".equals(state)) {
                    internalErrors++;
                    System.out.println(what + ": internal error: " + m.field('M'));
                }
                if ("FATAL".equals(m.field('S'))) {
                    fatal = true;
                    fatals++;
                }
            }
        }
        final boolean ready = !got.isEmpty() && got.get(got.size() - 1).type() == 'Z';
        if (!ready) {
            closes++;
        }
        if (login) {
            assertThat(ready).as(what + ": login " + got).isTrue();
        }
        return ready && !fatal;
    }

    private static void assertServed(final PgServed served) throws Exception {
        try (Connection c = served.connect(""); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM trades")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isEqualTo(2_000);
        }
    }

    // --------------------------------------------------------------------------------------------- generators

    private static String sql(final Random r) {
        String s = SQL.get(r.nextInt(SQL.size()));
        final int edits = r.nextInt(4);
        for (int e = 0; e < edits && !s.isEmpty(); e++) {
            final int at = r.nextInt(s.length());
            switch (r.nextInt(3)) {
                case 0:
                    s = s.substring(0, at) + s.substring(Math.min(s.length(), at + 1 + r.nextInt(6)));
                    break;
                case 1:
                    s = s.substring(0, at) + NOISE.charAt(r.nextInt(NOISE.length())) + s.substring(at);
                    break;
                default:
                    s = s.substring(0, at) + s.substring(at).toUpperCase(java.util.Locale.ROOT);
            }
        }
        return s;
    }

    private static byte[] simple(final Random r) {
        return PgRawClient.query(r.nextInt(5) == 0 ? sql(r) + ";" + sql(r) : sql(r));
    }

    /** Parse, Bind with random values and formats, Describe, Execute with a random row limit, Sync. */
    private static byte[] extended(final Random r) {
        final ByteArrayOutputStream o = new ByteArrayOutputStream();
        final String name = r.nextBoolean() ? "" : "s" + r.nextInt(3);
        final String text = sql(r);
        final int[] oids = {0, 20, 23, 21, 1700, 701, 25, 1043, 1184, 1114, 16, r.nextInt()};
        final int params = r.nextInt(4);
        final ByteArrayOutputStream types = new ByteArrayOutputStream();
        final int declared = r.nextInt(params + 1);
        types.writeBytes(PgRawClient.int16(declared));
        for (int i = 0; i < declared; i++) {
            types.writeBytes(PgRawClient.int32(oids[r.nextInt(oids.length)]));
        }
        o.writeBytes(PgRawClient.message('P', PgRawClient.cstring(name), PgRawClient.cstring(text),
            types.toByteArray()));
        final ByteArrayOutputStream bind = new ByteArrayOutputStream();
        bind.writeBytes(PgRawClient.cstring(""));
        bind.writeBytes(PgRawClient.cstring(name));
        final boolean binary = r.nextBoolean();
        bind.writeBytes(PgRawClient.int16(1));
        bind.writeBytes(PgRawClient.int16(binary ? 1 : 0));
        final int supplied = r.nextInt(5) == 0 ? r.nextInt(4) : Math.max(params, PgStatements.placeholders(text));
        bind.writeBytes(PgRawClient.int16(supplied));
        for (int i = 0; i < supplied; i++) {
            if (r.nextInt(8) == 0) {
                bind.writeBytes(PgRawClient.int32(-1));
                continue;
            }
            final byte[] v = binary ? randomBytes(r, new int[] {0, 1, 2, 4, 8, 10, 12}[r.nextInt(7)])
                : value(r).getBytes(StandardCharsets.UTF_8);
            bind.writeBytes(PgRawClient.int32(v.length));
            bind.writeBytes(v);
        }
        bind.writeBytes(PgRawClient.int16(1));
        bind.writeBytes(PgRawClient.int16(r.nextInt(3) == 0 ? 0 : 1));
        o.writeBytes(PgRawClient.message('B', bind.toByteArray()));
        if (r.nextBoolean()) {
            o.writeBytes(PgRawClient.message('D', new byte[] {(byte) (r.nextBoolean() ? 'P' : 'S')},
                PgRawClient.cstring(r.nextBoolean() ? "" : name)));
        }
        o.writeBytes(PgRawClient.message('E', PgRawClient.cstring(""), PgRawClient.int32(r.nextInt(4))));
        if (r.nextInt(4) == 0) {
            o.writeBytes(PgRawClient.message('C', new byte[] {(byte) 'S'}, PgRawClient.cstring(name)));
        }
        o.writeBytes(PgRawClient.message('S'));
        return o.toByteArray();
    }

    private static String value(final Random r) {
        switch (r.nextInt(6)) {
            case 0:
                return Long.toString(r.nextLong() % 1_000);
            case 1:
                return "2026-11-17 08:0" + r.nextInt(10) + ":00+00";
            case 2:
                return "SYM0" + r.nextInt(50);
            case 3:
                return r.nextInt(200) + "." + r.nextInt(100);
            case 4:
                return "";
            default:
                return new String(randomBytes(r, r.nextInt(12)), StandardCharsets.ISO_8859_1);
        }
    }

    /** A well-framed message of any client type with a random body, then Sync. */
    private static byte[] framed(final Random r) {
        final ByteArrayOutputStream o = new ByteArrayOutputStream();
        final char type = FRONTEND_TYPES.charAt(r.nextInt(FRONTEND_TYPES.length()));
        o.writeBytes(PgRawClient.message(type, randomBytes(r, r.nextInt(40))));
        o.writeBytes(PgRawClient.message('S'));
        return o.toByteArray();
    }

    /** What a broken client sends after its startup (or instead of it, for kind 9); the caller half-closes after. */
    private static byte[] broken(final int kind, final Random r) {
        switch (kind) {
            case 5:
                return randomBytes(r, 1 + r.nextInt(200));
            case 6: {
                final byte[] whole = r.nextBoolean() ? extended(r) : simple(r);
                return java.util.Arrays.copyOf(whole, r.nextInt(whole.length));
            }
            case 7: {
                final byte[] m = r.nextBoolean() ? simple(r) : framed(r);
                final int length = new int[] {-1, 0, 3, Integer.MAX_VALUE, Integer.MIN_VALUE, 1 << 30,
                    r.nextInt(), m.length + r.nextInt(100)}[r.nextInt(8)];
                System.arraycopy(PgRawClient.int32(length), 0, m, 1, 4);
                return m;
            }
            case 8: {
                final byte[] m = simple(r);
                byte t;
                do {
                    t = (byte) r.nextInt(256);
                } while (t != 'X' && FRONTEND_TYPES.indexOf(t & 0xFF) >= 0);
                m[0] = t;
                return m;
            }
            default: {
                final byte[] s = PgRawClient.startup();
                switch (r.nextInt(3)) {
                    case 0:
                        return randomBytes(r, 1 + r.nextInt(64));
                    case 1:
                        s[r.nextInt(s.length)] = (byte) r.nextInt(256);
                        return s;
                    default:
                        return java.util.Arrays.copyOf(s, r.nextInt(s.length));
                }
            }
        }
    }

    private static byte[] randomBytes(final Random r, final int n) {
        final byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }
}
