package io.tradestore.server.pg;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.util.PSQLException;

import io.tradestore.query.QueryResult;
import io.tradestore.query.ResultColumn;
import io.tradestore.server.TestStores;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The PostgreSQL JDBC driver against the wire protocol server: every type in text and binary, simple and prepared
 * statements (unnamed, then server-side named ones past the driver's prepareThreshold), errors with their SQLSTATE on
 * a connection that goes on working. Values are compared exactly with the engine's own answer to the same SQL.
 */
class PgJdbcTest {
    /** Text results; binary from the first execution; binary once named; the simple query protocol. */
    private static final String[] MODES = {
        "prepareThreshold=5&binaryTransfer=false",
        "prepareThreshold=1&binaryTransfer=true",
        "prepareThreshold=-1&binaryTransfer=true",
        "preferQueryMode=simple",
    };
    private static final List<String> QUERIES = List.of(
        "SELECT trade_id, ts, client_id, venue, instrument, side, price, quantity FROM trades WHERE client_id = 42"
            + " ORDER BY ts DESC LIMIT 100",
        "SELECT venue, count(*) AS n, avg(price) AS ap, sum(price * quantity) AS notional, min(ts) AS t0,"
            + " max(price) AS hi, sum(price * quantity) / sum(quantity) AS vwap, -sum(quantity) AS neg"
            + " FROM trades GROUP BY venue ORDER BY venue",
        "SELECT date_trunc('minute', ts) AS m, first(price) AS open, sum(quantity) AS volume, count(DISTINCT side)"
            + " AS sides FROM trades WHERE instrument = 'SYM007' GROUP BY m ORDER BY m");

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

    @ParameterizedTest
    @ValueSource(strings = {"prepareThreshold=5&binaryTransfer=false", "prepareThreshold=1&binaryTransfer=true",
        "prepareThreshold=-1&binaryTransfer=true", "preferQueryMode=simple"})
    void shouldAnswerEveryTypeAsTheEngineDoes(final String mode) throws Exception {
        try (Connection c = served.connect(mode)) {
            for (final String sql : QUERIES) {
                final QueryResult expected = served.engine().executeSql(sql);
                // statements and prepared statements, each run past the driver's threshold for named statements
                for (int run = 0; run < 7; run++) {
                    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
                        assertSame(sql + " " + mode, expected, rs);
                    }
                    try (PreparedStatement p = c.prepareStatement(sql); ResultSet rs = p.executeQuery()) {
                        assertSame(sql + " " + mode, expected, rs);
                    }
                }
            }
        }
    }

    @Test
    void shouldBindParametersOfEveryTypeInBothFormats() throws Exception {
        final String sql = "SELECT venue, count(*) AS n, sum(quantity) AS q FROM trades WHERE instrument = ?"
            + " AND price > ? AND ts >= ? AND quantity BETWEEN ? AND ? AND client_id <> ? GROUP BY venue"
            + " ORDER BY venue LIMIT ?";
        for (final String mode : MODES) {
            try (Connection c = served.connect(mode); PreparedStatement p = c.prepareStatement(sql)) {
                for (int run = 0; run < 12; run++) {
                    final String instrument = String.format("SYM%03d", run * 3 % 50);
                    final BigDecimal price = new BigDecimal("60.5").add(BigDecimal.valueOf(run));
                    final long tsNanos = TestStores.START_NS + run * 10_000_000_000L;
                    final OffsetDateTime ts = Instant.ofEpochSecond(0, tsNanos).atOffset(ZoneOffset.UTC);
                    p.setString(1, instrument);
                    p.setBigDecimal(2, price);
                    p.setObject(3, ts);
                    p.setInt(4, 100 + run);
                    p.setLong(5, 4_000L);
                    p.setShort(6, (short) (run + 1));
                    p.setInt(7, 3);
                    final String literal = "SELECT venue, count(*) AS n, sum(quantity) AS q FROM trades WHERE"
                        + " instrument = '" + instrument + "' AND price > " + price.toPlainString() + " AND ts >= "
                        + tsNanos + " AND quantity BETWEEN " + (100 + run) + " AND 4000 AND client_id <> "
                        + (run + 1) + " GROUP BY venue ORDER BY venue LIMIT 3";
                    try (ResultSet rs = p.executeQuery()) {
                        assertSame(literal + " " + mode, served.engine().executeSql(literal), rs);
                    }
                }
                // a double and a timestamp as text
                try (PreparedStatement q = c.prepareStatement("SELECT count(*) AS n FROM trades WHERE price < ?"
                    + " AND ts < ?::timestamptz")) {
                    q.setDouble(1, 75.25);
                    q.setString(2, "2026-11-17 08:05:00+00");
                    try (ResultSet rs = q.executeQuery()) {
                        assertSame(mode, served.engine().executeSql("SELECT count(*) AS n FROM trades WHERE "
                            + "price < 75.25 AND ts < '2026-11-17T08:05:00Z'"), rs);
                    }
                }
            }
        }
    }

    @Test
    void shouldAnswerErrorsWithTheirSqlStateAndGoOn() throws Exception {
        for (final String mode : MODES) {
            try (Connection c = served.connect(mode)) {
                assertState(c, "SELECT sum(qty) FROM trades", "42703", 12);
                assertState(c, "SELECT count(*) FROM nosuch", "42P01", 22);
                assertState(c, "SELECT count(*) FROM trades WHERE price >", "42601", 0);
                assertState(c, "SELECT count(*) FROM trades t JOIN trades u ON t.trade_id = u.trade_id", "0A000", 0);
                // the connection goes on
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM trades")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getLong(1)).isEqualTo(5_000);
                }
            }
        }
    }

    @Test
    void shouldRunSeveralStatementsOfOneSimpleQueryAndStopAtTheFirstError() throws Exception {
        try (Connection c = served.connect("preferQueryMode=simple"); Statement s = c.createStatement()) {
            assertThat(s.execute("SELECT count(*) AS n FROM trades; SELECT venue, count(*) FROM trades "
                + "GROUP BY venue;;"))
                .isTrue();
            try (ResultSet rs = s.getResultSet()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong("n")).isEqualTo(5_000);
            }
            assertThat(s.getMoreResults()).isTrue();
            int venues = 0;
            try (ResultSet rs = s.getResultSet()) {
                while (rs.next()) {
                    venues++;
                }
            }
            assertThat(venues).isEqualTo(TestStores.VENUES.length);
            // psycopg drops its prepared statements with DEALLOCATE, which the session answers itself
            assertThat(s.execute("DEALLOCATE ALL")).isFalse();
            assertThatThrownBy(() -> s.execute("DEALLOCATE nosuch"))
                .isInstanceOfSatisfying(PSQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("26000"));
            // the position of an error in the second statement counts from the start of the whole string
            assertThatThrownBy(() -> s.execute("SELECT count(*) FROM trades; SELECT nope FROM trades"))
                .isInstanceOfSatisfying(PSQLException.class, e -> {
                    assertThat(e.getSQLState()).isEqualTo("42703");
                    assertThat(e.getServerErrorMessage().getPosition()).isEqualTo(37);
                });
        }
    }

    @Test
    void shouldRequireTheTokenAsPasswordWhenTheServerHasOne(@TempDir final Path other) throws Exception {
        try (PgServed secured = new PgServed(other, 100,
            new io.tradestore.server.http.ServerConfig("127.0.0.1", 0, 1, 4, 1 << 20, 10_000, "s3cret"), 4, null)) {
            assertThatThrownBy(() -> secured.connect("", "wrong").close())
                .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("28P01"));
            try (Connection c = secured.connect("", "s3cret"); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*) FROM trades")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(100);
            }
        }
    }

    @Test
    void shouldRefuseConnectionsPastTheBoundWith53300(@TempDir final Path other) throws Exception {
        try (PgServed bounded = new PgServed(other, 100,
            new io.tradestore.server.http.ServerConfig("127.0.0.1", 0, 1, 4, 1 << 20, 10_000, null), 2, null);
             Connection a = bounded.connect(""); Connection b = bounded.connect("")) {
            assertThatThrownBy(() -> bounded.connect("").close())
                .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("53300"));
            assertThat(bounded.pg().refusedConnections()).isEqualTo(1);
            assertThat(a.isValid(10)).isTrue();
            assertThat(b.isValid(10)).isTrue();
        }
    }

    private static void assertState(final Connection c, final String sql, final String state, final int position) {
        assertThatThrownBy(() -> {
            try (Statement s = c.createStatement()) {
                s.executeQuery(sql).close();
            }
        }).as(sql).isInstanceOfSatisfying(PSQLException.class, e -> {
            assertThat(e.getSQLState()).as(sql + ": " + e.getMessage()).isEqualTo(state);
            if (position > 0) {
                assertThat(e.getServerErrorMessage().getPosition()).as(sql).isEqualTo(position);
            }
        });
    }

    /** The JDBC rows equal the engine's, value by value, with each column's PostgreSQL type. */
    static void assertSame(final String what, final QueryResult expected, final ResultSet rs) throws SQLException {
        final ResultSetMetaData md = rs.getMetaData();
        final List<ResultColumn> cols = expected.columns();
        assertThat(md.getColumnCount()).as(what).isEqualTo(cols.size());
        for (int c = 0; c < cols.size(); c++) {
            assertThat(md.getColumnLabel(c + 1)).as(what).isEqualTo(cols.get(c).name());
            assertThat(md.getColumnTypeName(c + 1)).as(what).isEqualTo(PgRows.type(cols.get(c).type()).typeName());
        }
        int row = 0;
        while (rs.next()) {
            assertThat(row).as(what + ": more rows than the engine's " + expected.rowCount())
                .isLessThan(expected.rowCount());
            for (int c = 0; c < cols.size(); c++) {
                final Object v = expected.value(row, c);
                final String at = what + " row " + row + " column " + cols.get(c).name();
                if (v == null) {
                    assertThat(rs.getObject(c + 1)).as(at).isNull();
                    continue;
                }
                switch (PgRows.type(cols.get(c).type())) {
                    case INT8:
                        assertThat(rs.getLong(c + 1)).as(at).isEqualTo(((Number) v).longValue());
                        break;
                    case FLOAT8:
                        assertThat(rs.getDouble(c + 1)).as(at).isEqualTo((Double) v);
                        break;
                    case NUMERIC:
                        assertThat(rs.getBigDecimal(c + 1)).as(at).isEqualTo(v);
                        break;
                    case TIMESTAMPTZ:
                        final Instant i = rs.getObject(c + 1, OffsetDateTime.class).toInstant();
                        assertThat(i.getEpochSecond() * 1_000_000_000L + i.getNano()).as(at).isEqualTo(v);
                        break;
                    default:
                        assertThat(rs.getString(c + 1)).as(at).isEqualTo(v);
                }
            }
            row++;
        }
        assertThat(row).as(what).isEqualTo(expected.rowCount());
    }
}
