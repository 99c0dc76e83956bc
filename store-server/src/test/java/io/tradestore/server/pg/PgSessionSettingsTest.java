package io.tradestore.server.pg;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.PGConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code SET}, {@code RESET} and {@code SHOW} through the PostgreSQL JDBC driver: each session keeps its own values,
 * {@code current_setting} and {@code pg_settings} read them, transactions undo them as PostgreSQL does, and a
 * reported parameter's change reaches the client as ParameterStatus.
 */
class PgSessionSettingsTest {
    private static final String[] MODES = {"prepareThreshold=1&binaryTransfer=true", "preferQueryMode=simple",
        "prepareThreshold=-1"};

    @TempDir
    static Path dir;
    private static PgServed served;

    @BeforeAll
    static void serve() {
        served = new PgServed(dir, 100);
    }

    @AfterAll
    static void stop() {
        served.close();
    }

    private static String one(final Connection c, final String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).as(sql).isTrue();
            final String v = rs.getString(1);
            assertThat(rs.next()).as(sql).isFalse();
            return v;
        }
    }

    private static void run(final Connection c, final String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"prepareThreshold=1&binaryTransfer=true", "preferQueryMode=simple", "prepareThreshold=-1"})
    void shouldShowWhatTheSessionSetAndNotWhatAnotherSet(final String mode) throws Exception {
        try (Connection a = served.connect(mode); Connection b = served.connect(mode)) {
            run(a, "SET search_path TO public, pg_catalog");
            run(a, "SET SESSION extra_float_digits = 2");
            run(a, "set Statement_Timeout to 5000");
            run(a, "SET lock_timeout = '1min'");
            assertThat(one(a, "SHOW search_path")).isEqualTo("public, pg_catalog");
            assertThat(one(a, "SHOW extra_float_digits")).isEqualTo("2");
            assertThat(one(a, "SHOW statement_timeout")).isEqualTo("5s");
            assertThat(one(a, "SELECT current_setting('lock_timeout')")).isEqualTo("1min");
            assertThat(one(a, "SELECT setting FROM pg_settings WHERE name = 'statement_timeout'")).isEqualTo("5s");
            try (PreparedStatement p = a.prepareStatement("SELECT current_setting(?)")) {
                p.setString(1, "extra_float_digits");
                try (ResultSet rs = p.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("2");
                }
            }
            assertThat(one(b, "SHOW search_path")).isEqualTo("\"$user\", public");
            assertThat(one(b, "SHOW statement_timeout")).isEqualTo("0");
            assertThat(one(b, "SELECT current_setting('lock_timeout')")).isEqualTo("0");

            run(a, "RESET statement_timeout");
            assertThat(one(a, "SHOW statement_timeout")).isEqualTo("0");
            assertThat(one(a, "SHOW extra_float_digits")).isEqualTo("2");
            run(a, "SET extra_float_digits TO DEFAULT");
            assertThat(one(a, "SHOW extra_float_digits")).isEqualTo(one(b, "SHOW extra_float_digits"));
            run(a, "RESET ALL");
            assertThat(one(a, "SHOW search_path")).isEqualTo("\"$user\", public");
            assertThat(one(a, "SHOW lock_timeout")).isEqualTo("0");
        }
    }

    @Test
    void shouldAnswerUnknownParametersWith42704() throws Exception {
        for (final String mode : MODES) {
            try (Connection c = served.connect(mode)) {
                for (final String sql : new String[] {"SHOW no_such_thing", "SET no_such_thing = 1",
                    "RESET no_such_thing", "SELECT current_setting('no_such_thing')"}) {
                    assertThatThrownBy(() -> run(c, sql)).as(sql + " " + mode)
                        .isInstanceOfSatisfying(SQLException.class, e -> {
                            assertThat(e.getSQLState()).isEqualTo("42704");
                            assertThat(e.getMessage())
                                .contains("unrecognized configuration parameter \"no_such_thing\"");
                        });
                    assertThat(one(c, "SELECT count(*) FROM trades")).isEqualTo("100");
                }
                assertThat(one(c, "SELECT current_setting('no_such_thing', true)")).isNull();
            }
        }
    }

    @Test
    void shouldRefuseValuesAsPostgresqlDoes() throws Exception {
        try (Connection c = served.connect("")) {
            run(c, "SET TIME ZONE 'UTC'");
            assertState(c, "SET extra_float_digits = 4", "22023");
            assertState(c, "SET statement_timeout = 'soon'", "22023");
            assertState(c, "SET statement_timeout = -1", "22023");
            assertState(c, "SET TimeZone = 'No/Such_Zone'", "22023");
            assertState(c, "SET server_version = '16'", "55P02");
            // tradestore writes timestamps in UTC and ISO style only: another zone or style would change answers
            assertState(c, "SET TIME ZONE 'Europe/Paris'", "0A000");
            assertState(c, "SET DateStyle = 'German'", "0A000");
            assertThat(one(c, "SHOW TimeZone")).isEqualTo("UTC");
            assertThat(one(c, "SHOW DateStyle")).isEqualTo("ISO, MDY");
            run(c, "SET DateStyle = 'ISO, DMY'");
            assertThat(one(c, "SHOW DateStyle")).isEqualTo("ISO, DMY");
            run(c, "SET DateStyle TO ISO");
            assertThat(one(c, "SHOW datestyle")).isEqualTo("ISO, DMY");
        }
    }

    private static void assertState(final Connection c, final String sql, final String state) {
        assertThatThrownBy(() -> run(c, sql)).as(sql).isInstanceOfSatisfying(SQLException.class,
            e -> assertThat(e.getSQLState()).as(sql + ": " + e.getMessage()).isEqualTo(state));
    }

    @Test
    void shouldTellTheClientAReportedParameterChangedWithParameterStatus() throws Exception {
        for (final String mode : MODES) {
            // with assumeMinServerVersion the driver sends application_name in its startup message, not a SET
            try (Connection c = served.connect(mode + "&ApplicationName=dash&assumeMinServerVersion=15")) {
                final PGConnection pg = c.unwrap(PGConnection.class);
                // the driver sends its JVM's zone at startup: a UTC spelling is kept, another is answered UTC
                final String startupZone = pg.getParameterStatus("TimeZone");
                assertThat(startupZone).isEqualTo(one(c, "SHOW TimeZone"));
                assertThat(pg.getParameterStatus("application_name")).isEqualTo("dash");
                assertThat(one(c, "SHOW application_name")).isEqualTo("dash");
                run(c, "SET application_name = 'grafana panel'");
                assertThat(pg.getParameterStatus("application_name")).as(mode).isEqualTo("grafana panel");
                assertThat(one(c, "SELECT current_setting('application_name')")).isEqualTo("grafana panel");
                final String zone = startupZone.equals("Zulu") ? "GMT" : "Zulu";
                run(c, "SET TIME ZONE '" + zone + "'");
                assertThat(pg.getParameterStatus("TimeZone")).as(mode).isEqualTo(zone);
                assertThat(one(c, "SHOW time zone")).isEqualTo(zone);
                // RESET goes back to the startup message's values, as PostgreSQL does
                run(c, "RESET ALL");
                assertThat(pg.getParameterStatus("application_name")).as(mode).isEqualTo("dash");
                assertThat(pg.getParameterStatus("TimeZone")).as(mode).isEqualTo(startupZone);
                run(c, "SET application_name TO DEFAULT");
                assertThat(one(c, "SHOW application_name")).isEqualTo("dash");
            }
        }
    }

    @Test
    void shouldUndoASetWhenItsTransactionRollsBack() throws Exception {
        try (Connection c = served.connect("")) {
            run(c, "SET statement_timeout = 1000");
            setInBlockThenEnd(c, "ROLLBACK");
            assertThat(one(c, "SHOW statement_timeout")).isEqualTo("1s");
            assertThat(one(c, "SHOW lock_timeout")).isEqualTo("0");
            setInBlockThenEnd(c, "COMMIT");
            assertThat(one(c, "SHOW statement_timeout")).isEqualTo("2s");
            assertThat(one(c, "SHOW lock_timeout")).isEqualTo("0");
            // outside a block SET LOCAL changes nothing, as PostgreSQL does (with a warning)
            run(c, "SET LOCAL lock_timeout = 3000");
            assertThat(one(c, "SHOW lock_timeout")).isEqualTo("0");
        }
    }

    /** Sets statement_timeout and, locally, lock_timeout in a block, checks both, then ends the block. */
    private static void setInBlockThenEnd(final Connection c, final String end) throws SQLException {
        run(c, "BEGIN");
        run(c, "SET statement_timeout = 2000");
        run(c, "SET LOCAL lock_timeout = 3000");
        assertThat(one(c, "SHOW statement_timeout")).isEqualTo("2s");
        assertThat(one(c, "SHOW lock_timeout")).isEqualTo("3s");
        run(c, end);
    }
}
