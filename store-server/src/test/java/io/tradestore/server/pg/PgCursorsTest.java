package io.tradestore.server.pg;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.tradestore.query.QueryResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Cursors over the wire protocol with the JDBC driver, in its extended and simple query modes: DECLARE, FETCH and
 * MOVE forward, CLOSE, a declared query's bound parameters, the life of cursors with and without hold across COMMIT
 * and ROLLBACK, and the errors PostgreSQL gives (SQLSTATEs) for what is not there or not allowed. The rows fetched
 * are checked against the engine's answer to the same query.
 */
class PgCursorsTest {
    private static final String ORDERED = "SELECT trade_id FROM trades ORDER BY trade_id";

    @TempDir
    private static Path dir;
    private static PgServed served;

    @BeforeAll
    static void serve() {
        served = new PgServed(dir, 5_000);
    }

    @AfterAll
    static void stop() {
        served.close();
    }

    /** @return the JDBC driver's extended and simple query modes. */
    static List<String> modes() {
        return List.of("prepareThreshold=1", "preferQueryMode=simple");
    }

    /** @return the engine's answer to {@link #ORDERED}, every row. */
    private static List<Long> orderedIds() {
        return engineIds(ORDERED + " LIMIT 100000");
    }

    private static List<Long> engineIds(final String sql) {
        final QueryResult r = served.engine().executeSql(sql);
        final List<Long> ids = new ArrayList<>(r.rowCount());
        for (int i = 0; i < r.rowCount(); i++) {
            ids.add(((Number) r.value(i, 0)).longValue());
        }
        return ids;
    }

    private static List<Long> fetch(final Statement s, final String sql) throws SQLException {
        final List<Long> ids = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }

    @ParameterizedTest
    @MethodSource("modes")
    void shouldFetchAndMoveForwardThroughTheDeclaredAnswer(final String mode) throws Exception {
        final List<Long> all = orderedIds();
        assertThat(all).hasSize(5_000);
        try (Connection c = served.connect(mode); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("DECLARE c CURSOR FOR " + ORDERED);
            assertThat(fetch(s, "FETCH 3 FROM c")).isEqualTo(all.subList(0, 3));
            assertThat(fetch(s, "FETCH FORWARD 5 IN c")).isEqualTo(all.subList(3, 8));
            assertThat(s.executeUpdate("MOVE 2 c")).isEqualTo(2);
            assertThat(fetch(s, "FETCH NEXT FROM c")).isEqualTo(all.subList(10, 11));
            assertThat(fetch(s, "FETCH FORWARD 0 FROM c")).as("the current row again").isEqualTo(all.subList(10, 11));
            assertThat(fetch(s, "fetch c")).isEqualTo(all.subList(11, 12));
            assertThat(fetch(s, "FETCH ALL FROM c")).isEqualTo(all.subList(12, 5_000));
            assertThat(fetch(s, "FETCH NEXT FROM c")).isEmpty();
            assertThat(fetch(s, "FETCH FORWARD 0 FROM c")).as("past the end: no current row").isEmpty();
            assertThat(s.executeUpdate("MOVE FORWARD ALL IN c")).isZero();
            s.execute("CLOSE c");
            c.commit();
        }
    }

    @ParameterizedTest
    @MethodSource("modes")
    void shouldRunTheDeclaredQueryWithItsBoundParameter(final String mode) throws Exception {
        final long client = engineIds("SELECT client_id FROM trades LIMIT 1").get(0);
        final List<Long> expected = engineIds("SELECT trade_id FROM trades WHERE client_id = " + client
            + " ORDER BY trade_id LIMIT 100000");
        assertThat(expected).isNotEmpty();
        try (Connection c = served.connect(mode)) {
            c.setAutoCommit(false);
            try (PreparedStatement p = c.prepareStatement("DECLARE \"By Client\" CURSOR FOR SELECT trade_id FROM trades"
                + " WHERE client_id = ? ORDER BY trade_id")) {
                p.setLong(1, client);
                p.execute();
            }
            try (Statement s = c.createStatement()) {
                assertThat(fetch(s, "FETCH ALL FROM \"By Client\"")).isEqualTo(expected);
                assertThatThrownBy(() -> fetch(s, "FETCH ALL FROM by_client")).isInstanceOfSatisfying(
                    SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("34000"));
            }
            c.rollback();
        }
    }

    @ParameterizedTest
    @MethodSource("modes")
    void shouldKeepCursorsWithHoldAcrossCommitAndDropTheOthers(final String mode) throws Exception {
        final List<Long> all = orderedIds();
        try (Connection c = served.connect(mode); Statement s = c.createStatement()) {
            // outside a transaction block only a cursor with hold may be declared, as in PostgreSQL
            assertThat(sqlState(() -> s.execute("DECLARE loose CURSOR FOR " + ORDERED))).isEqualTo("25P01");
            s.execute("DECLARE kept CURSOR WITH HOLD FOR " + ORDERED);
            assertThat(fetch(s, "FETCH 2 FROM kept")).isEqualTo(all.subList(0, 2));
            c.setAutoCommit(false);
            s.execute("DECLARE inner_cursor NO SCROLL CURSOR WITHOUT HOLD FOR " + ORDERED);
            s.execute("DECLARE held_inside INSENSITIVE CURSOR WITH HOLD FOR " + ORDERED);
            assertThat(fetch(s, "FETCH 1 FROM inner_cursor")).isEqualTo(all.subList(0, 1));
            c.commit();
            assertThat(sqlState(() -> fetch(s, "FETCH 1 FROM inner_cursor"))).isEqualTo("34000");
            c.rollback();
            assertThat(fetch(s, "FETCH 1 FROM held_inside")).isEqualTo(all.subList(0, 1));
            s.execute("DECLARE rolled_back CURSOR WITH HOLD FOR " + ORDERED);
            c.rollback();
            // a rollback drops the cursors its block declared, not those declared before it
            assertThat(sqlState(() -> fetch(s, "FETCH 1 FROM rolled_back"))).isEqualTo("34000");
            c.rollback();
            assertThat(fetch(s, "FETCH 2 FROM kept")).isEqualTo(all.subList(2, 4));
            c.rollback();
            assertThat(fetch(s, "FETCH 1 FROM held_inside")).isEqualTo(all.subList(1, 2));
            s.execute("CLOSE ALL");
            c.commit();
            assertThat(sqlState(() -> fetch(s, "FETCH 1 FROM kept"))).isEqualTo("34000");
            c.rollback();
        }
    }

    @ParameterizedTest
    @MethodSource("modes")
    void shouldRefuseWhatIsNotThereOrNotAllowedWithPostgresqlsStates(final String mode) throws Exception {
        try (Connection c = served.connect(mode); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("DECLARE c CURSOR FOR " + ORDERED);
            final String[][] cases = {
                {"DECLARE c CURSOR FOR " + ORDERED, "42P03"},
                {"FETCH BACKWARD 1 FROM c", "55000"},
                {"FETCH PRIOR FROM c", "55000"},
                {"FETCH -1 FROM c", "55000"},
                {"MOVE ABSOLUTE 3 IN c", "55000"},
                {"FETCH 1 FROM nothing", "34000"},
                {"CLOSE nothing", "34000"},
                {"DECLARE s SCROLL CURSOR FOR " + ORDERED, "0A000"},
                {"DECLARE b BINARY CURSOR FOR " + ORDERED, "0A000"},
                {"DECLARE x CURSOR FOR SELECT trade_id FROM no_such_table", "42P01"},
                {"DECLARE y CURSOR SELECT 1", "42601"},
                {"DECLARE z CURSOR FOR SET statement_timeout = 1", "42601"},
                {"DECLARE z CURSOR FOR", "42601"},
                {"FETCH 1 FROM c extra", "42601"},
            };
            for (final String[] k : cases) {
                assertThat(sqlState(() -> s.execute(k[0]))).as(k[0]).isEqualTo(k[1]);
                c.rollback();
                s.execute("DECLARE c CURSOR FOR " + ORDERED);
            }
            for (int i = 1; i < PgCursors.MAX_OPEN; i++) {
                s.execute("DECLARE many" + i + " CURSOR FOR SELECT trade_id FROM trades LIMIT 2");
            }
            assertThat(sqlState(() -> s.execute("DECLARE one_too_many CURSOR FOR " + ORDERED))).isEqualTo("54000");
            c.rollback();
            // the session goes on
            s.execute("DECLARE again CURSOR WITH HOLD FOR " + ORDERED);
            assertThat(fetch(s, "FETCH 1 FROM again")).hasSize(1);
            c.commit();
        }
    }

    /**
     * Edges: counts past the answer (up to 2^63 - 1) move to its end, never back; a CLOSE that does not parse closes
     * nothing; comments anywhere; an empty quoted name is refused; ROLLBACK TO SAVEPOINT keeps the block's cursors and
     * DISCARD ALL closes every one.
     */
    @ParameterizedTest
    @MethodSource("modes")
    void shouldKeepPostgresqlsRulesAtTheEdges(final String mode) throws Exception {
        final List<Long> all = orderedIds();
        try (Connection c = served.connect(mode); Statement s = c.createStatement()) {
            s.execute("/* held */ DECLARE k CURSOR WITH HOLD FOR " + ORDERED);
            assertThat(fetch(s, "FETCH 2 FROM k -- the first two")).isEqualTo(all.subList(0, 2));
            assertThat(fetch(s, "FETCH 9223372036854775807 FROM k /* all the rest */")).isEqualTo(
                all.subList(2, all.size()));
            assertThat(s.executeUpdate("MOVE 9223372036854775807 FROM k")).isZero();
            assertThat(fetch(s, "FETCH 2 FROM k")).as("still past the end").isEmpty();
            assertThat(sqlState(() -> s.execute("CLOSE k junk"))).isEqualTo("42601");
            assertThat(sqlState(() -> s.execute("CLOSE ALL junk"))).isEqualTo("42601");
            assertThat(fetch(s, "FETCH FORWARD 0 FROM k")).as("still open").isEmpty();
            assertThat(sqlState(() -> s.execute("DECLARE \"\" CURSOR WITH HOLD FOR " + ORDERED))).isEqualTo("42601");
            c.setAutoCommit(false);
            s.execute("DECLARE inb CURSOR FOR " + ORDERED);
            s.execute("SAVEPOINT sp");
            s.execute("ROLLBACK TO SAVEPOINT sp");
            assertThat(fetch(s, "FETCH 1 FROM inb")).isEqualTo(all.subList(0, 1));
            c.commit();
            c.setAutoCommit(true);
            s.execute("DISCARD ALL");
            assertThat(sqlState(() -> fetch(s, "FETCH 1 FROM k"))).isEqualTo("34000");
        }
    }

    /**
     * psycopg's named cursor at the protocol level: the DECLARE goes through Parse, Bind (its query's $1), Describe and
     * Execute, then the cursor is described as a portal of its name, which answers its columns; executing that portal
     * is refused (a cursor is read with FETCH).
     */
    @Test
    void shouldDescribeACursorAsAPortalOfItsName() throws Exception {
        try (PgRawClient raw = new PgRawClient(served.pg().port(), 30_000)) {
            raw.login();
            raw.send(PgRawClient.query("BEGIN"));
            assertThat(types(raw.readUntilReady())).isEqualTo("CZ");
            raw.send(concat(
                PgRawClient.message('P', PgRawClient.cstring(""), PgRawClient.cstring("DECLARE \"c\" CURSOR FOR SELECT "
                    + "trade_id, venue FROM trades WHERE quantity > $1 ORDER BY trade_id"), PgRawClient.int16(1),
                    PgRawClient.int32(0)),
                PgRawClient.message('B', PgRawClient.cstring(""), PgRawClient.cstring(""), PgRawClient.int16(0),
                    PgRawClient.int16(1), PgRawClient.int32(3), "100".getBytes(StandardCharsets.US_ASCII),
                    PgRawClient.int16(0)),
                PgRawClient.message('D', new byte[] {'P'}, PgRawClient.cstring("")),
                PgRawClient.message('E', PgRawClient.cstring(""), PgRawClient.int32(0)),
                PgRawClient.message('S')));
            final List<PgRawClient.Message> declared = raw.readUntilReady();
            assertThat(types(declared)).isEqualTo("12nCZ");
            assertThat(new String(declared.get(3).body(), StandardCharsets.UTF_8)).startsWith("DECLARE CURSOR");
            raw.send(concat(PgRawClient.message('D', new byte[] {'P'}, PgRawClient.cstring("c")),
                PgRawClient.message('S')));
            final List<PgRawClient.Message> described = raw.readUntilReady();
            assertThat(types(described)).isEqualTo("TZ");
            final String fields = new String(described.get(0).body(), StandardCharsets.UTF_8);
            assertThat(fields).contains("trade_id").contains("venue");
            raw.send(concat(PgRawClient.message('E', PgRawClient.cstring("c"), PgRawClient.int32(0)),
                PgRawClient.message('S')));
            final List<PgRawClient.Message> executed = raw.readUntilReady();
            assertThat(types(executed)).isEqualTo("EZ");
            assertThat(executed.get(0).field('C')).isEqualTo("0A000");
        }
    }

    private static String types(final List<PgRawClient.Message> messages) {
        final StringBuilder b = new StringBuilder();
        for (final PgRawClient.Message m : messages) {
            b.append(m.type());
        }
        return b.toString();
    }

    private static byte[] concat(final byte[]... parts) {
        final java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
        for (final byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }

    /** A statement expected to fail. */
    private interface Failing {
        void run() throws SQLException;
    }

    private static String sqlState(final Failing f) {
        try {
            f.run();
        } catch (final SQLException e) {
            return e.getSQLState();
        }
        throw new AssertionError("no error");
    }
}
