package io.tradestore.query.difftest;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.tradestore.core.TestRows;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryException;
import io.tradestore.query.QueryResult;
import io.tradestore.query.gen.GenQuery;
import io.tradestore.query.gen.ResultChecker;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The random queries of {@link DifferentialQueryTest} written in SQL ({@link SqlRenderer}) and run through the SQL
 * front end ({@link QueryEngine#executeSql}, the code path of {@code /v1/sql}), compared with DuckDB's answer to the
 * generator's own SQL by the same {@link ResultChecker}. Replay as DifferentialQueryTest
 * ({@code -Dtradestore.difftest.seed=S -Dtradestore.difftest.only=TABLE/INDEX}); a mismatch prints both SQL texts.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqlDifferentialTest {
    private DiffFixture fixture;
    private QueryEngine engine;

    @BeforeAll
    void setUp() throws Exception {
        fixture = new DiffFixture();
        engine = new QueryEngine(fixture.store, 2);
    }

    @AfterAll
    void tearDown() throws Exception {
        if (engine != null) {
            engine.close();
        }
        fixture.close();
        TestRows.assertNoNativeLeaks();
    }

    @Test
    void shouldAnswerRandomQueriesWrittenInSqlExactlyAsDuckDbDoes() throws SQLException {
        final List<GenQuery> queries = fixture.queries();
        final List<String> mismatches = new ArrayList<>();
        for (final GenQuery q : queries) {
            final String sql = SqlRenderer.sql(q.json(), "ts");
            final List<Object[]> expected = ResultChecker.expected(fixture.duck, q);
            final QueryResult actual;
            try {
                actual = engine.executeSql(sql);
            } catch (final RuntimeException e) {
                mismatches.add(q.describe() + "\n  our sql: " + sql + "\n  failed: " + e
                    + (e instanceof QueryException x ? " code=" + x.code() : ""));
                continue;
            }
            final List<String> problems = ResultChecker.compare(q, expected, actual);
            if (!problems.isEmpty()) {
                mismatches.add(q.describe() + "\n  our sql: " + sql + "\n  " + String.join("\n  ", problems)
                    + "\n  DuckDB (" + expected.size() + " rows):\n" + ResultChecker.show(expected, 10)
                    + "  engine (" + actual.rowCount() + " rows, columns " + actual.columns() + "):\n"
                    + ResultChecker.show(ResultChecker.rows(actual), 10));
            }
        }
        System.out.printf("sql difftest seed=%d: %d queries through the SQL front end: %d mismatches%n",
            DiffFixture.SEED, queries.size(), mismatches.size());
        mismatches.forEach(m -> System.out.println("MISMATCH " + m));
        assertThat(mismatches).as("mismatches against DuckDB (seed %d); details above", DiffFixture.SEED).isEmpty();
        if (DiffFixture.ONLY == null) {
            assertThat(queries.size()).isGreaterThanOrEqualTo(500);
        }
    }
}
