package io.tradestore.server.pg;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The JDBC driver's metadata calls over the wire server, answered by {@link StoreCatalog}: {@code getTables},
 * {@code getColumns} (with the driver's {@code DATA_TYPE} and {@code TYPE_NAME}), {@code getSchemas},
 * {@code getPrimaryKeys}, and {@code ResultSetMetaData} of a prepared query.
 */
class PgJdbcMetadataCatalogTest {
    @TempDir
    private static Path dir;
    private static PgServed served;

    @BeforeAll
    static void serve() {
        served = new PgServed(dir, 1_000);
    }

    @AfterAll
    static void stop() {
        served.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"prepareThreshold=5", "preferQueryMode=simple"})
    void shouldDescribeTheStoreThroughDatabaseMetaData(final String mode) throws SQLException {
        try (Connection c = served.connect(mode)) {
            final DatabaseMetaData md = c.getMetaData();
            final List<String> tables = new ArrayList<>();
            try (ResultSet rs = md.getTables(null, null, "%", new String[] {"TABLE"})) {
                while (rs.next()) {
                    tables.add(rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME") + ":"
                        + rs.getString("TABLE_TYPE"));
                }
            }
            assertThat(tables).containsExactly("public.trades:TABLE");
            final List<String> columns = new ArrayList<>();
            try (ResultSet rs = md.getColumns(null, "public", "trades", "%")) {
                while (rs.next()) {
                    columns.add(rs.getInt("ORDINAL_POSITION") + " " + rs.getString("COLUMN_NAME") + " "
                        + rs.getInt("DATA_TYPE") + " " + rs.getString("TYPE_NAME") + " " + rs.getInt("NULLABLE")
                        + " " + rs.getInt("DECIMAL_DIGITS"));
                }
            }
            final int n = DatabaseMetaData.columnNullable;
            assertThat(columns).containsExactly("1 trade_id " + Types.BIGINT + " int8 " + n + " 0",
                "2 ts " + Types.TIMESTAMP + " timestamptz " + n + " 6",
                "3 client_id " + Types.BIGINT + " int8 " + n + " 0",
                "4 venue " + Types.VARCHAR + " text " + n + " 0",
                "5 instrument " + Types.VARCHAR + " text " + n + " 0",
                "6 side " + Types.VARCHAR + " text " + n + " 0",
                "7 price " + Types.NUMERIC + " numeric " + n + " 6",
                "8 quantity " + Types.BIGINT + " int8 " + n + " 0");
            final List<String> schemas = new ArrayList<>();
            try (ResultSet rs = md.getSchemas()) {
                while (rs.next()) {
                    schemas.add(rs.getString("TABLE_SCHEM"));
                }
            }
            assertThat(schemas).contains("public");
            try (ResultSet rs = md.getPrimaryKeys(null, null, "trades")) {
                assertThat(rs.next()).isFalse();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"prepareThreshold=5", "preferQueryMode=simple"})
    void shouldDescribeTheColumnsOfAResult(final String mode) throws SQLException {
        try (Connection c = served.connect(mode);
             PreparedStatement p = c.prepareStatement("SELECT trade_id, ts, venue, price FROM trades WHERE venue = ?"
                 + " LIMIT 5")) {
            p.setString(1, "XLON");
            try (ResultSet rs = p.executeQuery()) {
                final ResultSetMetaData m = rs.getMetaData();
                final List<String> columns = new ArrayList<>();
                for (int i = 1; i <= m.getColumnCount(); i++) {
                    columns.add(m.getColumnName(i) + " " + m.getColumnTypeName(i) + " " + m.getColumnType(i));
                }
                assertThat(columns).containsExactly("trade_id int8 " + Types.BIGINT,
                    "ts timestamptz " + Types.TIMESTAMP, "venue text " + Types.VARCHAR,
                    "price numeric " + Types.NUMERIC);
                assertThat(m.isNullable(1)).isIn(ResultSetMetaData.columnNullable,
                    ResultSetMetaData.columnNullableUnknown);
            }
        }
    }
}
