package io.tradestore.query;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TestRows;
import io.tradestore.core.schema.Layout;
import io.tradestore.query.model.Query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code offset}: the rows of the ordered answer from {@code offset} on, {@code limit} of them, for sorted and
 * unsorted scans and for groups, whole and streamed; {@code truncated} says whether rows follow.
 */
class QueryOffsetTest {
    private static final int ROWS = 150_000;
    @TempDir
    static Path dir;
    private static Store store;
    private static QueryEngine engine;

    @BeforeAll
    static void setUp() {
        TestRows.fill(dir, TestRows.allTypes(Layout.COLUMN, 1 << 15), ROWS);
        store = Store.open(dir);
        engine = new QueryEngine(store, 2);
    }

    @AfterAll
    static void tearDown() {
        engine.close();
        store.close();
    }


    @Test
    void shouldLeaveOutTheFirstRowsOfTheOrderedAnswer() {
        final List<String> bodies = List.of(
            "\"columns\":[\"l\",\"sym\",\"ts\"],\"filter\":{\"op\":\"eq\",\"col\":\"sym2\",\"value\":\"odd\"}",
            "\"columns\":[\"l\",\"sym\",\"ts\"],\"orderBy\":[{\"col\":\"l\",\"desc\":true}]",
            "\"columns\":[\"px\",\"ts\"],\"orderBy\":[{\"col\":\"sym\"},{\"col\":\"ts\",\"desc\":true}]",
            "\"groupBy\":[\"sym\",\"c\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"a\",\"op\":\"avg\","
                + "\"col\":\"px\"}],\"orderBy\":[{\"col\":\"n\",\"desc\":true},{\"col\":\"sym\"},{\"col\":\"c\"}]",
            "\"groupBy\":[{\"bucket\":\"1h\",\"col\":\"ts\",\"as\":\"h\"}],\"aggs\":[{\"name\":\"p\","
                + "\"op\":\"percentile\",\"col\":\"px\",\"p\":50}],\"orderBy\":[{\"col\":\"h\"}]");
        for (final String body : bodies) {
            final String q = "{\"table\":\"all_types\"," + body;
            final List<List<Object>> all = QueryResults.rows(engine.execute(q + ",\"limit\":1000000}"));
            assertThat(all.size()).as(body).isGreaterThan(20);
            for (final int offset : new int[] {0, 1, 7, all.size() - 3, all.size(), all.size() + 5}) {
                for (final int limit : new int[] {1, 5, 1000}) {
                    final QueryResult r = engine.execute(q + ",\"offset\":" + offset + ",\"limit\":" + limit + "}");
                    final int from = Math.min(offset, all.size());
                    final int to = Math.min(all.size(), from + limit);
                    assertThat(QueryResults.rows(r)).as("%s offset %d limit %d", body, offset, limit)
                        .isEqualTo(all.subList(from, to));
                    assertThat(r.truncated()).as("truncated, %s offset %d limit %d", body, offset, limit)
                        .isEqualTo(to < all.size());
                }
            }
        }
    }

    @Test
    void shouldStreamAScanFromItsOffset() {
        final String q = "{\"table\":\"all_types\",\"columns\":[\"ts\",\"sym\"],\"filter\":{\"op\":\"eq\",\"col\":"
            + "\"sym2\",\"value\":\"even\"}";
        final List<List<Object>> all = QueryResults.rows(engine.execute(q + ",\"limit\":1000000}"));
        final List<List<Object>> streamed = new ArrayList<>();
        engine.stream(q + ",\"offset\":12345,\"limit\":20000}", 10_000, null,
            batch -> streamed.addAll(QueryResults.rows(batch)));
        assertThat(streamed).isEqualTo(all.subList(12_345, 32_345));
        final List<List<Object>> rest = new ArrayList<>();
        engine.stream(q + ",\"offset\":50000}", 10_000, null, batch -> rest.addAll(QueryResults.rows(batch)));
        assertThat(rest).isEqualTo(all.subList(50_000, all.size()));
    }

    @Test
    void shouldRefuseAnOffsetItCannotKeep() {
        assertThatThrownBy(() -> engine.execute("{\"table\":\"all_types\",\"columns\":[\"ts\"],\"offset\":-1}"))
            .isInstanceOfSatisfying(QueryException.class, e -> assertThat(e.path()).isEqualTo("/offset"));
        assertThatThrownBy(() -> engine.execute("{\"table\":\"all_types\",\"columns\":[\"ts\"],\"orderBy\":[{\"col\":"
            + "\"ts\"}],\"offset\":999999,\"limit\":2}")).isInstanceOfSatisfying(QueryException.class, e -> {
                assertThat(e.path()).isEqualTo("/offset");
                assertThat(e.getMessage()).contains("a scan reads at most 1000000 rows of its order (offset 999999 "
                    + "plus limit 2)");
            });
        final QueryResult built = engine.execute(Query.builder("all_types").columns("ts").offset(3).limit(2).build());
        assertThat(built.value(0, 0)).isEqualTo(3_000_000_000L);
    }
}
