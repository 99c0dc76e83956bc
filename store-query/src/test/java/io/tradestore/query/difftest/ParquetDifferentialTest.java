package io.tradestore.query.difftest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.tradestore.core.FileDamage;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.parquet.ExportOptions;
import io.tradestore.parquet.ExportResult;
import io.tradestore.parquet.ParquetExport;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryResult;
import io.tradestore.query.gen.GenColumn;
import io.tradestore.query.gen.GenQuery;
import io.tradestore.query.gen.ResultChecker;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The differential test's tables exported as Parquet (every segment, the open ones' committed rows too) and read by
 * DuckDB with {@code read_parquet(..., hive_partitioning = true)}: the seeded query stream over those files answers
 * exactly as the engine does over the store. {@code rid}, which breaks timestamp ties in DuckDB's first and last, is
 * rebuilt from the file name (the segment) and the row's place in its file: rows of one timestamp share a day, so a
 * file, where they keep the store's order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ParquetDifferentialTest {
    private DiffFixture fixture;
    private Path out;
    private Connection parquet;
    private QueryEngine engine;

    @BeforeAll
    void setUp() throws Exception {
        fixture = new DiffFixture();
        out = Files.createTempDirectory("tradestore-difftest-parquet");
        parquet = DriverManager.getConnection("jdbc:duckdb:");
        try (Statement st = parquet.createStatement()) {
            st.execute("SET threads=2");
            for (final DiffTable t : fixture.tables) {
                final ExportResult r = ParquetExport.export(fixture.store.table(t.name),
                    ExportOptions.defaults(out).withIncludeOpen(true));
                assertThat(r.rowsExported()).as(t.name).isEqualTo(t.rows);
                final StringBuilder ddl = new StringBuilder("CREATE TABLE ").append(t.name).append(" (rid BIGINT");
                final StringBuilder select = new StringBuilder("SELECT (CAST(regexp_extract(filename, "
                    + "'([0-9]+)\\.parquet$', 1) AS BIGINT) << 32) + file_row_number");
                for (final GenColumn c : DiffTable.COLUMNS) {
                    ddl.append(", ").append(c.name()).append(' ').append(c.duckType());
                    select.append(", ").append(c.type() == ColumnType.TIMESTAMP ? "epoch_ns(" + c.name() + ")"
                        : "CAST(" + c.name() + " AS " + c.duckType() + ")");
                }
                st.execute(ddl.append(')').toString());
                if (r.filesWritten() > 0) {
                    st.execute("INSERT INTO " + t.name + " " + select + " FROM read_parquet('" + out.resolve(t.name)
                        + "/**/*.parquet', hive_partitioning = true, filename = true, file_row_number = true)");
                }
            }
        }
        engine = new QueryEngine(fixture.store, 2);
    }

    @AfterAll
    void tearDown() throws Exception {
        if (engine != null) {
            engine.close();
        }
        if (parquet != null) {
            parquet.close();
        }
        fixture.close();
        FileDamage.deleteTree(out);
    }

    @Test
    void shouldHoldEveryRowOfEveryTable() throws SQLException {
        for (final DiffTable t : fixture.tables) {
            final String cols = DiffTable.COLUMNS.stream().map(GenColumn::name).reduce((a, b) -> a + ", " + b)
                .orElseThrow();
            // the rows DuckDB was given directly, against those it read from the Parquet files, as sorted lists
            assertThat(count(parquet, "SELECT count(*) FROM " + t.name)).as(t.name).isEqualTo(t.rows);
            assertThat(difference(t, cols)).as(t.name + ": rows that differ").isZero();
        }
    }

    /** @return how many places the table's sorted rows differ, as DuckDB loaded them directly and from Parquet. */
    private long difference(final DiffTable t, final String cols) throws SQLException {
        final List<String> direct = rows(fixture.duck, t.name, cols);
        final List<String> viaParquet = rows(parquet, t.name, cols);
        long differ = Math.abs(direct.size() - viaParquet.size());
        for (int i = 0; i < Math.min(direct.size(), viaParquet.size()); i++) {
            if (!direct.get(i).equals(viaParquet.get(i))) {
                differ++;
            }
        }
        return differ;
    }

    private static List<String> rows(final Connection c, final String table, final String cols) throws SQLException {
        final List<String> rows = new ArrayList<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT " + cols + " FROM " + table + " ORDER BY ALL")) {
            final int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                final StringBuilder b = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    b.append(rs.getString(i)).append('|');
                }
                rows.add(b.toString());
            }
        }
        return rows;
    }

    private static long count(final Connection c, final String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void shouldAnswerTheQueryStreamOverParquetExactlyAsTheEngine() throws SQLException {
        final List<String> mismatches = new ArrayList<>();
        final List<GenQuery> queries = fixture.queries();
        for (final GenQuery q : queries) {
            final List<Object[]> expected = ResultChecker.expected(parquet, q);
            final QueryResult actual = engine.execute(q.json());
            final List<String> problems = ResultChecker.compare(q, expected, actual);
            if (!problems.isEmpty()) {
                mismatches.add(q.describe() + "\n  " + String.join("\n  ", problems) + "\n  DuckDB over Parquet ("
                    + expected.size() + " rows):\n" + ResultChecker.show(expected, 10));
            }
        }
        mismatches.forEach(m -> System.out.println("MISMATCH " + m));
        System.out.printf("parquet difftest seed=%d: %d queries over the Parquet export: %d mismatches%n",
            DiffFixture.SEED, queries.size(), mismatches.size());
        assertThat(mismatches).isEmpty();
        if (DiffFixture.ONLY == null) {
            assertThat(queries.size()).isGreaterThanOrEqualTo(500);
        }
    }
}
