package io.tradestore.server.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.tradestore.core.Store;
import io.tradestore.server.TestStores;

/** The session statements clients send when they connect, answered as PostgreSQL 15 answers them. */
class SessionStatementsCatalogTest {
    @TempDir
    static Path dir;
    private static Store store;
    private static StoreCatalog catalog;

    @BeforeAll
    static void open() {
        TestStores.writeTrades(dir, 100, 7);
        store = Store.open(dir);
        catalog = new StoreCatalog(store);
    }

    @AfterAll
    static void close() {
        store.close();
    }

    private static PgAnswer answer(final String sql) {
        return catalog.answer(sql, List.of(), new SessionSettings());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "SET extra_float_digits = 3|SET",
        "set application_name to 'PostgreSQL JDBC Driver';|SET",
        "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED|SET",
        "SET TIME ZONE 'UTC'|SET",
        "SET LOCAL statement_timeout = 0|SET",
        "SET client_encoding TO 'UTF8'|SET",
        "SET NAMES 'utf-8'|SET",
        "RESET ALL|RESET",
        "RESET ROLE|RESET",
        "RESET TIME ZONE|RESET",
        "RESET SESSION AUTHORIZATION|RESET",
        "SET ROLE tradestore|SET",
        "SET search_path = public, \"$user\"|SET",
        "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE|SET",
        "BEGIN|BEGIN",
        "begin transaction read only|BEGIN",
        "START TRANSACTION ISOLATION LEVEL REPEATABLE READ|START TRANSACTION",
        "COMMIT|COMMIT",
        "END|COMMIT",
        "ROLLBACK|ROLLBACK",
        "ABORT|ROLLBACK",
        "DISCARD ALL|DISCARD ALL"})
    void shouldAnswerACommandWithItsTagAndNoColumns(final String sql, final String tag) {
        final PgAnswer a = answer(sql);
        assertThat(a.commandTag()).isEqualTo(tag);
        assertThat(a.columns()).isEmpty();
        assertThat(a.rows()).isEmpty();
    }

    @Test
    void shouldReadAStatementAfterComments() {
        assertThat(answer("/* a comment */ -- and another\n  SET datestyle = 'ISO';").commandTag()).isEqualTo("SET");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "SHOW server_version|server_version|15.0 (tradestore)",
        "show TRANSACTION ISOLATION LEVEL|transaction_isolation|read committed",
        "SHOW transaction_isolation|transaction_isolation|read committed",
        "SHOW timezone|TimeZone|UTC",
        "SHOW TIME ZONE|TimeZone|UTC",
        "SHOW client_encoding|client_encoding|UTF8",
        "SHOW DateStyle|DateStyle|ISO, MDY",
        "SHOW standard_conforming_strings|standard_conforming_strings|on",
        "SHOW search_path|search_path|\"$user\", public",
        "SHOW max_identifier_length|max_identifier_length|63",
        "SHOW server_version_num|server_version_num|150000",
        "SHOW integer_datetimes|integer_datetimes|on"})
    void shouldShowAParameterInAColumnNamedAsPostgresqlNamesIt(final String sql, final String column,
        final String value) {
        final PgAnswer a = answer(sql);
        assertThat(a.commandTag()).isEqualTo("SHOW");
        assertThat(a.columns()).containsExactly(new PgColumn(column, PgType.TEXT));
        assertThat(a.rows()).containsExactly(List.of(value));
    }

    @Test
    void shouldShowAllParameters() {
        final PgAnswer a = answer("SHOW ALL");
        assertThat(a.columns()).extracting(PgColumn::name).containsExactly("name", "setting", "description");
        assertThat(a.rows()).contains(List.of("TimeZone", "UTC", ""));
    }

    @Test
    void shouldRefuseAnUnknownParameterAndAnEncodingOtherThanUtf8() {
        assertThatThrownBy(() -> answer("SHOW no_such_thing")).isInstanceOf(PgFailure.class)
            .hasMessage("unrecognized configuration parameter \"no_such_thing\"")
            .extracting(e -> ((PgFailure) e).error().sqlState()).isEqualTo("42704");
        assertThatThrownBy(() -> answer("SET client_encoding = 'LATIN1'")).isInstanceOf(PgFailure.class)
            .hasMessageContaining("UTF8 only");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  ", ";", " ; ", "-- nothing\n", "/* nothing */"})
    void shouldAnswerAnEmptyStatementWithTheEmptyTag(final String sql) {
        assertThat(answer(sql)).isEqualTo(StoreCatalog.EMPTY);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "SELECT current_schema()|current_schema|name|public",
        "select current_database()|current_database|name|tradestore",
        "SELECT current_user|current_user|name|tradestore",
        "SELECT session_user|session_user|name|tradestore",
        "SELECT current_setting('TimeZone')|current_setting|text|UTC",
        "SELECT pg_catalog.current_setting('server_version_num')|current_setting|text|150000",
        "SELECT 1|?column?|int4|1",
        "SELECT 1 AS one|one|int4|1",
        "SELECT 'x' AS \"Quoted\"|Quoted|text|x",
        "select pg_is_in_recovery()|pg_is_in_recovery|bool|f",
        "SELECT current_schemas(false)|current_schemas|text|{pg_catalog,public}"})
    void shouldAnswerASelectWithoutFrom(final String sql, final String column, final String type,
        final String value) {
        final PgAnswer a = answer(sql);
        assertThat(a.commandTag()).isEqualTo("SELECT 1");
        assertThat(a.columns()).extracting(PgColumn::name).containsExactly(column);
        assertThat(a.columns().get(0).type().typeName()).isEqualTo(type);
        assertThat(a.rows()).containsExactly(List.of(value));
    }

    @Test
    void shouldAnswerVersionAsPostgresql15() {
        final PgAnswer a = answer("SELECT version()");
        assertThat(a.columns()).containsExactly(new PgColumn("version", PgType.TEXT));
        assertThat(a.rows().get(0).get(0)).startsWith("PostgreSQL 15.0 (tradestore)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT count(*) FROM trades", "select venue, sum(quantity) from trades group by venue",
        "  SELECT * FROM trades WHERE venue = 'pg_catalog' LIMIT 5", "SELECT 1 FROM \"trades\"",
        "INSERT INTO trades VALUES (1)", "EXPLAIN SELECT count(*) FROM trades"})
    void shouldLeaveQueriesOfTheStoreToTheEngine(final String sql) {
        assertThat(answer(sql)).isNull();
    }
}
