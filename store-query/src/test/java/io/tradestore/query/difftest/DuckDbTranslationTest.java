package io.tradestore.query.difftest;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.tradestore.core.TestRows;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks the differential test's own SQL side against DuckDB alone: every generated query runs, every translated
 * filter selects exactly the rows a Java evaluation of our filter semantics selects, and the aggregate translations
 * give hand-computed answers on a table small enough to reason about.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DuckDbTranslationTest {
    private DiffFixture fixture;

    @BeforeAll
    void setUp() throws Exception {
        fixture = new DiffFixture();
    }

    @AfterAll
    void tearDown() throws Exception {
        fixture.close();
        TestRows.assertNoNativeLeaks();
    }

    @Test
    void shouldRunEveryGeneratedQueryAndSelectTheRowsOurFilterSemanticsSelect() throws SQLException {
        final List<String> problems = new ArrayList<>();
        int filters = 0;
        final int print = Integer.getInteger("tradestore.difftest.print", 0);
        int printed = 0;
        long sqlNanos = 0;
        long javaNanos = 0;
        for (final DiffQuery q : fixture.queries()) {
            try {
                final long t0 = System.nanoTime();
                final List<Object[]> rows = ResultChecker.expected(fixture.duck, q);
                sqlNanos += System.nanoTime() - t0;
                if (printed++ < print) {
                    System.out.println(q.describe() + "\n" + ResultChecker.show(rows, 5));
                }
            } catch (final SQLException e) {
                problems.add(q.describe() + "\n  DuckDB: " + e.getMessage());
                continue;
            }
            if (q.filter() == null) {
                continue;
            }
            filters++;
            final DiffTable t = fixture.table(q.id().split("/")[1]);
            long javaCount = 0;
            final long t1 = System.nanoTime();
            for (int row = 0; row < t.rows; row++) {
                if (q.filter().eval(t, row)) {
                    javaCount++;
                }
            }
            javaNanos += System.nanoTime() - t1;
            try (Statement st = fixture.duck.createStatement();
                 ResultSet rs = st.executeQuery("SELECT count(*) FROM " + t.name + " WHERE " + q.filter().sql())) {
                rs.next();
                if (rs.getLong(1) != javaCount) {
                    problems.add(q.describe() + "\n  filter selects " + rs.getLong(1) + " rows in DuckDB, " + javaCount + " in Java");
                }
            }
        }
        System.out.printf("translation check: %d filters; DuckDB %.0f ms, Java evaluation %.0f ms%n", filters, sqlNanos / 1e6, javaNanos / 1e6);
        problems.forEach(System.out::println);
        assertThat(problems).isEmpty();
        if (DiffFixture.ONLY == null) {
            assertThat(filters).isGreaterThan(200);
        }
    }
}
