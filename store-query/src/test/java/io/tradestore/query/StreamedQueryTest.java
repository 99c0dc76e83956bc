package io.tradestore.query;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TestRows;
import io.tradestore.core.schema.Layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link QueryEngine#stream}: an unsorted scan arrives in batches, past the million-row cap of a whole answer, in the
 * order a whole scan gives; any other answer, SQL's OFFSET and LIMIT, and a sink that fails, stopping the query.
 */
class StreamedQueryTest {
    private static final long ROWS = 1_300_000;
    @TempDir
    static Path dir;
    private static Store store;
    private static QueryEngine engine;

    @BeforeAll
    static void setUp() {
        TestRows.fill(dir, TestRows.allTypes(Layout.COLUMN, 1 << 16), ROWS);
        store = Store.open(dir);
        engine = new QueryEngine(store, 2);
    }

    @AfterAll
    static void tearDown() {
        engine.close();
        store.close();
    }

    /** Collects a stream's batches. */
    private static final class Collect implements RowStream {
        final List<Object[]> rows = new ArrayList<>();
        List<ResultColumn> columns;
        int batches;

        @Override
        public void rows(final QueryResult batch) {
            columns = batch.columns();
            batches++;
            for (int r = 0; r < batch.rowCount(); r++) {
                final Object[] row = new Object[batch.columns().size()];
                for (int c = 0; c < row.length; c++) {
                    row[c] = batch.value(r, c);
                }
                rows.add(row);
            }
        }
    }

    private static List<Object[]> whole(final QueryResult r) {
        final Collect c = new Collect();
        c.rows(r);
        return c.rows;
    }

    @Test
    void shouldStreamAFilteredScanAsTheWholeAnswerHoldsIt() {
        final String q = "{\"table\":\"all_types\",\"columns\":[\"l\",\"sym\",\"ts\",\"px\"],\"filter\":"
            + "{\"op\":\"and\",\"args\":[{\"op\":\"eq\",\"col\":\"sym2\",\"value\":\"even\"},"
            + "{\"op\":\"range\",\"col\":\"l\",\"gte\":0}]}";
        final Collect streamed = new Collect();
        engine.stream(q + "}", 10_000, null, streamed);
        final QueryResult expected = engine.execute(q + ",\"limit\":1000000}");
        assertThat(expected.truncated()).isFalse();
        assertThat(streamed.batches).isGreaterThan(10);
        assertThat(streamed.columns).isEqualTo(expected.columns());
        assertThat(streamed.rows).hasSameSizeAs(whole(expected));
        final List<Object[]> all = whole(expected);
        for (int i = 0; i < all.size(); i++) {
            assertThat(streamed.rows.get(i)).as("row %d", i).isEqualTo(all.get(i));
        }
    }

    @Test
    void shouldStreamAScanBeyondTheWholeAnswersCap() {
        final Collect streamed = new Collect();
        engine.stream("{\"table\":\"all_types\",\"columns\":[\"ts\",\"i\"]}", 10_000, null, streamed);
        assertThat(streamed.rows).hasSize((int) ROWS);
        for (int r = 0; r < ROWS; r++) {
            assertThat(((Number) streamed.rows.get(r)[0]).longValue()).isEqualTo(1_000_000_000L * r);
        }
        final Collect cut = new Collect();
        engine.stream("{\"table\":\"all_types\",\"columns\":[\"ts\"],\"limit\":1200000}", 10_000, null, cut);
        assertThat(cut.rows).hasSize(1_200_000);
    }

    @Test
    void shouldSortAnOrderedScanWholeOrRefuseWhatItCannotHold() {
        // no LIMIT: every matching row in order, not the 10,000 a JSON answer defaults to
        final String sql = "SELECT l, ts FROM all_types WHERE sym = 'S3' ORDER BY l DESC, ts";
        final Collect sorted = new Collect();
        engine.streamSql(sql, 10_000, null, sorted);
        final List<Object[]> expected = whole(engine.executeSql(sql + " LIMIT 1000000"));
        assertThat(expected).hasSizeGreaterThan(10_000);
        assertThat(sorted.rows).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(Arrays.asList(sorted.rows.get(i))).as("row " + i).isEqualTo(Arrays.asList(expected.get(i)));
        }
        // more rows than one answer holds to sort: refused, not cut short
        final Collect none = new Collect();
        assertThatThrownBy(() -> engine.streamSql("SELECT ts FROM all_types ORDER BY ts DESC", 10_000, null, none))
            .isInstanceOfSatisfying(QueryException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.TOO_MANY_ROWS))
            .hasMessageContaining("more than the 1000000 rows");
        assertThat(none.rows).isEmpty();
    }

    @Test
    void shouldStreamOtherAnswersWholeAndSqlWithItsOffset() {
        final String agg = "{\"table\":\"all_types\",\"groupBy\":[\"sym\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
            + "{\"name\":\"s\",\"op\":\"sum\",\"col\":\"px\"}],\"orderBy\":[{\"col\":\"sym\"}]}";
        final Collect a = new Collect();
        engine.stream(agg, 10_000, null, a);
        assertThat(a.batches).isEqualTo(1);
        assertThat(a.rows).usingRecursiveFieldByFieldElementComparator().containsExactlyElementsOf(
            whole(engine.execute(agg)));
        for (final String sql : List.of("SELECT ts, l FROM all_types WHERE sym = 'S3' LIMIT 20 OFFSET 7",
            "SELECT ts AS t, l FROM all_types WHERE sym = 'S3' OFFSET 60000",
            "SELECT sym, count(*) AS n FROM all_types GROUP BY sym ORDER BY sym LIMIT 5 OFFSET 3")) {
            final Collect s = new Collect();
            engine.streamSql(sql, 10_000, null, s);
            // a whole scan answers 10,000 rows unless told more; a stream has no such default
            final List<Object[]> expected = whole(engine.executeSql(sql.contains("LIMIT") ? sql
                : sql.replace("OFFSET", "LIMIT 900000 OFFSET")));
            assertThat(s.rows).as(sql).hasSameSizeAs(expected).isNotEmpty();
            for (int i = 0; i < expected.size(); i++) {
                assertThat(Arrays.asList(s.rows.get(i))).as(sql + " row " + i)
                    .isEqualTo(Arrays.asList(expected.get(i)));
            }
            if (!sql.contains("LIMIT")) {
                // a whole answer's default limit counts after the offset: the 10,000 rows that follow it (of 20,000)
                final QueryResult page = engine.executeSql(sql);
                final List<Object[]> first = whole(page);
                assertThat(first).as(sql).hasSize(10_000);
                assertThat(page.truncated()).isTrue();
                for (int i = 0; i < first.size(); i++) {
                    assertThat(Arrays.asList(first.get(i))).as(sql + " row " + i)
                        .isEqualTo(Arrays.asList(expected.get(i)));
                }
            }
        }
    }

    @Test
    void shouldStopTheQueryWhenTheStreamFails() {
        final int[] batches = {0};
        assertThatThrownBy(() -> engine.stream("{\"table\":\"all_types\",\"columns\":[\"ts\"]}", 10_000, null,
            batch -> {
                if (++batches[0] == 3) {
                    throw new IOException("client gone");
                }
            })).isInstanceOf(UncheckedIOException.class).hasMessageContaining("client gone");
        assertThat(batches[0]).isEqualTo(3);
    }
}
