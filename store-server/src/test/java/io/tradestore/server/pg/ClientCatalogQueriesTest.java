package io.tradestore.server.pg;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.tradestore.core.Store;
import io.tradestore.core.schema.Schema;
import io.tradestore.server.TestStores;

/**
 * Every catalog and session statement captured from psql, pgjdbc, psycopg/SQLAlchemy and Grafana
 * ({@code client-catalog-queries.sql}) gets an answer from {@link StoreCatalog} over a generated store of two tables,
 * and the answers describe those tables as PostgreSQL describes a table of the same column types: names in order, type
 * names, OIDs and modifiers, nullability; where the store has nothing of the kind (indexes, constraints, policies,
 * inheritance) the answer has the client's columns and no rows.
 */
class ClientCatalogQueriesTest {
    /** {@code trades} sorts after {@code quotes}: the second table's OID. */
    private static final long TRADES_OID = CatalogTables.FIRST_TABLE_OID + 1;
    private static final List<String> TRADES_COLUMNS = List.of("trade_id", "ts", "client_id", "venue", "instrument",
        "side", "price", "quantity");

    @TempDir
    static Path dir;
    private static Store store;
    private static StoreCatalog catalog;

    @BeforeAll
    static void open() {
        TestStores.writeTrades(dir, 100, 7);
        store = Store.open(dir);
        store.createTable(Schema.builder("quotes").column("ts", "timestamp").column("bid", "f64")
            .column("size", "i32").column("level", "i8").column("depth", "i16").column("code", "symbol")
            .timestamp("ts").build());
        catalog = new StoreCatalog(store);
    }

    @AfterAll
    static void close() {
        store.close();
    }

    static Stream<ClientQueries.Query> queries() {
        return ClientQueries.all().stream();
    }

    private static PgAnswer answer(final String client, final String containing) {
        for (final ClientQueries.Query q : ClientQueries.all()) {
            if (q.client().equals(client) && q.sql().contains(containing)) {
                return catalog.answer(q.sql(TRADES_OID), q.parameters(), new SessionSettings());
            }
        }
        throw new AssertionError("no captured statement of " + client + " contains " + containing);
    }

    private static List<String> names(final PgAnswer a) {
        final List<String> names = new ArrayList<>();
        for (final PgColumn c : a.columns()) {
            names.add(c.name());
        }
        return names;
    }

    private static List<String> column(final PgAnswer a, final String name) {
        final int i = names(a).indexOf(name);
        assertThat(i).as("column " + name + " of " + names(a)).isNotNegative();
        final List<String> values = new ArrayList<>();
        for (final List<String> row : a.rows()) {
            values.add(row.get(i));
        }
        return values;
    }

    @ParameterizedTest
    @MethodSource("queries")
    void shouldAnswerEveryCapturedClientStatement(final ClientQueries.Query q) {
        final PgAnswer a = catalog.answer(q.sql(TRADES_OID), q.parameters(), new SessionSettings());
        assertThat(a).as(q.sql()).isNotNull();
        assertThat(a.commandTag()).isNotNull();
        for (final List<String> row : a.rows()) {
            assertThat(row).hasSameSizeAs(a.columns());
        }
    }

    @Test
    void shouldListTheTablesForPsqlDt() {
        final PgAnswer a = answer("psql \\dt", "pg_class");
        assertThat(a.commandTag()).isEqualTo("SELECT 2");
        assertThat(names(a)).containsExactly("Schema", "Name", "Type", "Owner");
        assertThat(a.rows()).containsExactly(List.of("public", "quotes", "table", "tradestore"),
            List.of("public", "trades", "table", "tradestore"));
    }

    @Test
    void shouldDescribeTheColumnsForPsqlDTrades() {
        assertThat(answer("psql \\d trades: find the table", "relname").rows())
            .containsExactly(List.of(Long.toString(TRADES_OID), "public", "trades"));
        final PgAnswer details = answer("psql \\d trades: table details", "relchecks");
        assertThat(column(details, "relkind")).containsExactly("r");
        assertThat(column(details, "amname")).containsExactly("heap");
        final PgAnswer a = answer("psql \\d trades: columns", "attname");
        assertThat(a.rows()).extracting(r -> r.get(0)).containsExactlyElementsOf(TRADES_COLUMNS);
        assertThat(a.rows()).extracting(r -> r.get(1)).containsExactly("bigint", "timestamp with time zone",
            "bigint", "text", "text", "text", "numeric(18,6)", "bigint");
        assertThat(column(a, "attnotnull")).containsOnly("f");
        for (final String part : List.of("policies", "extended statistics", "publications", "parent tables",
            "partitions")) {
            final PgAnswer none = answer("psql \\d trades: " + part, "SELECT");
            assertThat(none.rows()).as(part).isEmpty();
            assertThat(none.columns()).as(part).isNotEmpty();
        }
    }

    @Test
    void shouldListTheDatabaseAndSchemaForPsql() {
        assertThat(answer("psql \\l", "pg_database").rows())
            .containsExactly(Arrays.asList("tradestore", "tradestore", "UTF8", "C.UTF-8", "C.UTF-8", null, "libc",
                null));
        assertThat(answer("psql \\dn", "pg_namespace").rows()).containsExactly(List.of("public", "tradestore"));
    }

    @Test
    void shouldAnswerJdbcGetTablesWithEachTable() {
        final PgAnswer a = answer("pgjdbc 42.7.14", "c.relname LIKE $1 AND (false");
        assertThat(names(a)).startsWith("TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE", "REMARKS");
        assertThat(column(a, "TABLE_NAME")).containsExactly("quotes", "trades");
        assertThat(column(a, "TABLE_TYPE")).containsOnly("TABLE");
        assertThat(column(a, "TABLE_SCHEM")).containsOnly("public");
        assertThat(column(a, "TABLE_CAT")).containsOnly("tradestore");
    }

    @Test
    void shouldAnswerJdbcGetColumnsWithTypesOidsAndModifiers() {
        final PgAnswer a = answer("pgjdbc 42.7.14", "row_number() OVER");
        assertThat(column(a, "attname")).containsExactlyElementsOf(TRADES_COLUMNS);
        assertThat(column(a, "atttypid")).containsExactly("20", "1184", "20", "25", "25", "25", "1700", "20");
        assertThat(column(a, "attnum")).containsExactly("1", "2", "3", "4", "5", "6", "7", "8");
        assertThat(column(a, "atttypmod")).containsExactly("-1", "-1", "-1", "-1", "-1", "-1",
            Integer.toString((18 << 16 | 6) + 4), "-1");
        assertThat(column(a, "attnotnull")).containsOnly("f");
        assertThat(column(a, "typtype")).containsOnly("b");
    }

    @Test
    void shouldAnswerJdbcResultSetMetaDataLookups() {
        final PgAnswer a = answer("pgjdbc 42.7.14", "JOIN (SELECT");
        assertThat(a.rows()).extracting(r -> r.subList(0, 5)).containsExactly(
            List.of(Long.toString(TRADES_OID), "1", "trade_id", "trades", "public"),
            List.of(Long.toString(TRADES_OID), "2", "ts", "trades", "public"),
            List.of(Long.toString(TRADES_OID), "4", "venue", "trades", "public"),
            List.of(Long.toString(TRADES_OID), "7", "price", "trades", "public"));
    }

    @Test
    void shouldAnswerJdbcSchemasCatalogsAndNoPrimaryKeys() {
        assertThat(column(answer("pgjdbc 42.7.14", "AS \"TABLE_CATALOG\" FROM"), "TABLE_SCHEM"))
            .containsExactly("information_schema", "pg_catalog", "public");
        assertThat(answer("pgjdbc 42.7.14", "datallowconn").rows()).containsExactly(List.of("tradestore"));
        final PgAnswer keys = answer("pgjdbc 42.7.14", "KEY_SEQ");
        assertThat(keys.rows()).isEmpty();
        assertThat(names(keys)).containsExactly("TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "COLUMN_NAME", "KEY_SEQ",
            "PK_NAME");
    }

    @Test
    void shouldAnswerSqlalchemyInspection() {
        final String client = "psycopg 3.3.9 + SQLAlchemy 2.1.9";
        final PgAnswer columns = answer(client, "format_type");
        assertThat(column(columns, "name")).containsExactlyElementsOf(TRADES_COLUMNS);
        assertThat(column(columns, "format_type")).containsExactly("bigint", "timestamp with time zone", "bigint",
            "text", "text", "text", "numeric(18,6)", "bigint");
        assertThat(column(columns, "not_null")).containsOnly("f");
        assertThat(column(answer(client, "relpersistence"), "relname")).containsExactly("quotes", "trades");
        assertThat(answer(client, "array_agg(CAST(attr.attname").rows()).isEmpty();
    }

    @Test
    void shouldAnswerGrafanasEditorQueries() {
        assertThat(answer("Grafana: version", "server_version_num").rows()).containsExactly(List.of("1500"));
        assertThat(answer("Grafana: TimescaleDB version", "timescaledb").rows()).isEmpty();
        assertThat(answer("Grafana: schemas", "schemata").rows()).containsExactly(List.of("public"));
        assertThat(answer("Grafana: tables", "information_schema.tables").rows())
            .containsExactly(List.of("quotes"), List.of("trades"));
        final PgAnswer a = answer("Grafana: columns of trades", "information_schema.columns");
        assertThat(names(a)).containsExactly("column", "type");
        assertThat(a.rows()).containsExactly(List.of("trade_id", "bigint"), List.of("ts", "timestamp with time zone"),
            List.of("client_id", "bigint"), List.of("venue", "text"), List.of("instrument", "text"),
            List.of("side", "text"), List.of("price", "numeric"), List.of("quantity", "bigint"));
    }

    @Test
    void shouldMapEveryStoreTypeToItsPostgresqlType() {
        final PgAnswer a = catalog.answer("SELECT a.attname, a.atttypid, format_type(a.atttypid, a.atttypmod), "
            + "t.typname FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
            + "JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = $1 ORDER BY a.attnum", List.of("quotes"),
            new SessionSettings());
        assertThat(a.rows()).containsExactly(List.of("ts", "1184", "timestamp with time zone", "timestamptz"),
            List.of("bid", "701", "double precision", "float8"), List.of("size", "20", "bigint", "int8"),
            List.of("level", "20", "bigint", "int8"), List.of("depth", "20", "bigint", "int8"),
            List.of("code", "25", "text", "text"));
        assertThat(a.columns()).extracting(PgColumn::type).containsExactly(PgType.NAME, PgType.OID, PgType.TEXT,
            PgType.NAME);
    }
}
