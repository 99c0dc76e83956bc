package io.tradestore.server.pg;

import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.tradestore.query.QueryResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SQL that Grafana's PostgreSQL data source sends once it has expanded its macros ({@code $__timeGroupAlias},
 * {@code $__timeGroup} with and without TimescaleDB, {@code $__time}, {@code $__timeFilter}, {@code to_timestamp} of
 * {@code $__unixEpochFrom()}, {@code extract(epoch from ts)} compared with seconds), run through the PostgreSQL JDBC
 * driver and answered as DuckDB answers the same text over the same trades, with the time column typed as Grafana
 * reads it.
 */
class PgGrafanaMacrosTest {
    /** 08:05 to 08:25:00.5 on the day of the trades, 2026-11-23, which start at 08:00, ten a second. */
    private static final String FILTER = "\"ts\" BETWEEN '2026-11-23T08:05:00Z' AND '2026-11-23T08:25:00.5Z'";
    private static final String[] GRAFANA = {
        // $__timeGroupAlias(ts, '5m') and $__timeFilter(ts)
        "SELECT floor(extract(epoch from \"ts\")/300)*300 AS \"time\", count(*) AS n, sum(quantity) AS volume,"
            + " max(price) AS high FROM trades WHERE " + FILTER + " GROUP BY 1 ORDER BY 1",
        // $__timeGroup(ts, '1m') with a venue as the metric column
        "SELECT floor(extract(epoch from ts)/60)*60 AS \"time\", venue AS metric, sum(price * quantity) AS notional"
            + " FROM trades WHERE " + FILTER + " GROUP BY 1, 2 ORDER BY 1, 2",
        // $__timeGroup(ts, '500ms'): a fraction of a second
        "SELECT floor(extract(epoch from ts)/0.5)*0.5 AS \"time\", count(*) AS n FROM trades"
            + " WHERE ts >= to_timestamp(1795421000) AND ts <= to_timestamp(1795421010) GROUP BY 1 ORDER BY 1",
        // to_timestamp($__unixEpochFrom()) and extract(epoch from ts) compared with seconds
        "SELECT floor(extract(epoch from ts)/10)*10 AS \"time\", min(price) AS low FROM trades"
            + " WHERE extract(epoch from ts) >= 1795421000 AND extract(epoch from ts) < 1795421100.5"
            + " GROUP BY 1 ORDER BY 1",
        // $__time(ts) in a table of trades
        "SELECT ts AS \"time\", price, quantity FROM trades WHERE ts >= to_timestamp(1795421000.3)"
            + " AND ts < '2026-11-23T08:23:25Z' ORDER BY 1 LIMIT 40",
        // the bucket written as a timestamp, which Grafana reads as well
        "SELECT date_trunc('minute', ts) AS \"time\", count(*) AS n FROM trades WHERE " + FILTER
            + " GROUP BY 1 ORDER BY 1",
    };

    @TempDir
    static Path dir;
    private static PgServed served;
    private static Connection duck;

    @BeforeAll
    static void serve() throws SQLException {
        served = new PgServed(dir, 20_000);
        duck = DriverManager.getConnection("jdbc:duckdb:");
        try (Statement s = duck.createStatement()) {
            s.execute("SET TimeZone = 'UTC'");
            s.execute("CREATE TABLE trades (ts TIMESTAMPTZ, venue VARCHAR, price DECIMAL(18, 6), quantity BIGINT)");
        }
        final QueryResult all = served.engine().executeSql("SELECT ts, venue, price, quantity FROM trades LIMIT 20000");
        assertThat(all.rowCount()).isEqualTo(20_000);
        try (PreparedStatement p = duck.prepareStatement("INSERT INTO trades VALUES (?, ?, ?, ?)")) {
            for (int r = 0; r < all.rowCount(); r++) {
                final long nanos = (Long) all.value(r, 0);
                p.setTimestamp(1, Timestamp.from(java.time.Instant.ofEpochSecond(0, nanos)));
                p.setString(2, (String) all.value(r, 1));
                p.setBigDecimal(3, (BigDecimal) all.value(r, 2));
                p.setLong(4, (Long) all.value(r, 3));
                p.addBatch();
            }
            p.executeBatch();
        }
    }

    @AfterAll
    static void stop() throws SQLException {
        duck.close();
        served.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"prepareThreshold=1&binaryTransfer=true", "preferQueryMode=simple"})
    void shouldAnswerGrafanasExpandedMacrosAsDuckDbDoes(final String mode) throws Exception {
        try (Connection c = served.connect(mode)) {
            for (final String sql : GRAFANA) {
                final List<List<Object>> expected = rows(duck, sql);
                assertThat(expected).as(sql).isNotEmpty();
                assertThat(rows(c, sql)).as(sql + " " + mode).isEqualTo(expected);
            }
        }
    }

    @Test
    void shouldTypeTheTimeColumnAsGrafanaReadsIt() throws Exception {
        try (Connection c = served.connect("")) {
            assertThat(timeType(c, GRAFANA[0])).isEqualTo(Types.BIGINT); // whole epoch seconds
            assertThat(timeType(c, GRAFANA[2])).isEqualTo(Types.NUMERIC); // seconds with a fraction, exact
            assertThat(timeType(c, GRAFANA[5])).isEqualTo(Types.TIMESTAMP);
            // TimescaleDB's $__timeGroup: time_bucket('300.000s', ts), the same buckets as a timestamp
            final String timescale = "SELECT time_bucket('300.000s',\"ts\") AS \"time\", count(*) AS n FROM trades"
                + " WHERE " + FILTER + " GROUP BY 1 ORDER BY 1";
            assertThat(timeType(c, timescale)).isEqualTo(Types.TIMESTAMP);
            final List<List<Object>> buckets = rows(c, timescale);
            final List<List<Object>> seconds = rows(c, "SELECT floor(extract(epoch from ts)/300)*300 AS \"time\","
                + " count(*) AS n FROM trades WHERE " + FILTER + " GROUP BY 1 ORDER BY 1");
            assertThat(buckets).hasSameSizeAs(seconds);
            for (int i = 0; i < buckets.size(); i++) {
                assertThat(((BigDecimal) buckets.get(i).get(0)).movePointLeft(9).compareTo(
                    (BigDecimal) seconds.get(i).get(0))).isZero();
                assertThat(buckets.get(i).get(1)).isEqualTo(seconds.get(i).get(1));
            }
        }
    }

    @Test
    void shouldAnswerTheTimeGroupOverHttpWithEpochSeconds() throws Exception {
        final HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + served.http().port() + "/v1/sql")).header("Content-Type", "text/plain")
            .POST(HttpRequest.BodyPublishers.ofString(GRAFANA[0])).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        // 08:05:00 is 1795421100 seconds; its bucket has 3,000 trades, ten a second
        assertThat(r.body()).contains("{\"name\":\"time\",\"type\":\"i64\"}").contains("[1795421100,3000,");
    }

    @Test
    void shouldRefuseTimeEpochInARowScanRatherThanAnswerIt() throws Exception {
        try (Connection c = served.connect(""); Statement s = c.createStatement()) {
            final SQLException e = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
                () -> s.executeQuery("SELECT extract(epoch from ts) AS \"time\", price FROM trades LIMIT 5"));
            assertThat(e.getSQLState()).isEqualTo("0A000");
            assertThat(e.getMessage()).contains("Position");
        }
    }

    private static int timeType(final Connection c, final String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.getMetaData().getColumnType(1);
        }
    }

    /** @return the rows, numbers as BigDecimal without trailing zeros and timestamps as epoch nanoseconds. */
    private static List<List<Object>> rows(final Connection c, final String sql) throws SQLException {
        final List<List<Object>> rows = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            final ResultSetMetaData md = rs.getMetaData();
            while (rs.next()) {
                final List<Object> row = new ArrayList<>();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    final int type = md.getColumnType(i);
                    if (type == Types.TIMESTAMP || type == Types.TIMESTAMP_WITH_TIMEZONE) {
                        final Timestamp t = rs.getTimestamp(i);
                        row.add(BigDecimal.valueOf(t.getTime() / 1000).movePointRight(9).add(
                            BigDecimal.valueOf(t.getNanos())));
                    } else if (rs.getObject(i) instanceof Number) {
                        row.add(new BigDecimal(rs.getString(i)).stripTrailingZeros());
                    } else {
                        row.add(rs.getObject(i));
                    }
                }
                rows.add(row);
            }
        }
        return rows;
    }
}
