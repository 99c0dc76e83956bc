package io.tradestore.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TestRows;
import io.tradestore.core.schema.Layout;
import io.tradestore.query.exec.filter.IntRangeFilter;
import io.tradestore.query.exec.filter.LogicFilter;
import io.tradestore.query.plan.Binder;
import io.tradestore.query.plan.Plan;

/**
 * A having condition on plain group keys is also applied to the rows before grouping: the answer equals the groups of
 * the query without the having that satisfy it (checked here in Java on the key values), the filter gains the
 * condition's conjuncts (and loses the branches they contradict), and a condition that does not bind as a filter is
 * still reported at its having path.
 */
class HavingOnKeysTest {
    @TempDir
    static Path dir;
    static Store store;
    static QueryEngine engine;

    @BeforeAll
    static void setUp() {
        store = Store.open(dir);
        // nulls included: a null key's group never passes a having, and its rows never pass the filter
        new TradeData().write(store, TradeData.schema(Layout.COLUMN, 2048, 256), 6_000, 11, true);
        engine = new QueryEngine(store, 2);
    }

    @AfterAll
    static void tearDown() {
        engine.close();
        store.close();
        TestRows.assertNoNativeLeaks();
    }

    private static String query(final String having) {
        return "{\"table\":\"trades\",\"filter\":{\"op\":\"range\",\"col\":\"quantity\",\"gte\":100},"
            + "\"groupBy\":[\"side\",{\"col\":\"venue\",\"as\":\"v\"},\"client_id\"],"
            + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"}]"
            + (having == null ? "" : ",\"having\":" + having) + ",\"orderBy\":[\"side\",\"v\",\"client_id\"]}";
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"op\":\"eq\",\"col\":\"side\",\"value\":\"B\"}|side=B",
        "{\"op\":\"in\",\"col\":\"v\",\"values\":[\"XLON\",\"XETR\"]}|v in XLON,XETR",
        "{\"op\":\"not\",\"arg\":{\"op\":\"eq\",\"col\":\"v\",\"value\":\"XLON\"}}|v not XLON",
        "{\"op\":\"and\",\"args\":[{\"op\":\"range\",\"col\":\"client_id\",\"gte\":3,\"lt\":20},"
            + "{\"op\":\"range\",\"col\":\"n\",\"gt\":2}]}|client 3..19 and n>2",
        "{\"op\":\"or\",\"args\":[{\"op\":\"eq\",\"col\":\"side\",\"value\":\"S\"},"
            + "{\"op\":\"ne\",\"col\":\"client_id\",\"value\":0}]}|side=S or client<>0"})
    void shouldAnswerAsTheGroupsThatPassTheHaving(final String having, final String rule) {
        final Predicate<List<Object>> passes = switch (rule) {
            case "side=B" -> r -> "B".equals(r.get(0));
            case "v in XLON,XETR" -> r -> "XLON".equals(r.get(1)) || "XETR".equals(r.get(1));
            case "v not XLON" -> r -> r.get(1) != null && !"XLON".equals(r.get(1));
            case "client 3..19 and n>2" -> r -> r.get(2) != null && ((Long) r.get(2)) >= 3 && ((Long) r.get(2)) < 20
                && ((Long) r.get(3)) > 2;
            default -> r -> "S".equals(r.get(0)) || r.get(2) != null && ((Long) r.get(2)) != 0;
        };
        final List<List<Object>> all = QueryResults.rows(engine.execute(query(null)));
        final List<List<Object>> expected = all.stream().filter(passes).toList();
        assertThat(expected).isNotEmpty().hasSizeLessThan(all.size());
        assertThat(QueryResults.rows(engine.execute(query(having)))).isEqualTo(expected);
    }

    @Test
    void shouldAddTheKeyPartsOfTheHavingToTheFilter() {
        final Plan without = Binder.bind(QueryEngine.parse(query(null)), engine.snapshot("trades"), System.nanoTime());
        final Plan keyAndAgg = Binder.bind(QueryEngine.parse(query("{\"op\":\"and\",\"args\":["
            + "{\"op\":\"eq\",\"col\":\"side\",\"value\":\"B\"},{\"op\":\"range\",\"col\":\"n\",\"gt\":2}]}")),
            engine.snapshot("trades"), System.nanoTime());
        final Plan aggOnly = Binder.bind(QueryEngine.parse(query("{\"op\":\"range\",\"col\":\"n\",\"gt\":2}")),
            engine.snapshot("trades"), System.nanoTime());
        assertThat(without.conjuncts).hasSize(1);
        assertThat(keyAndAgg.conjuncts).hasSize(2);
        assertThat(aggOnly.conjuncts).hasSize(1);
    }

    /**
     * side = B and ... cannot hold on the rows a having side = S keeps: the filter's or folds to its other branch
     * before any row is read, and the answer is still the groups that pass the having.
     */
    @Test
    void shouldFoldTheFilterBranchesAKeyConditionContradicts() {
        final String filter = "{\"op\":\"or\",\"args\":[{\"op\":\"and\",\"args\":[{\"op\":\"eq\",\"col\":\"side\","
            + "\"value\":\"B\"},{\"op\":\"range\",\"col\":\"quantity\",\"gt\":10}]},"
            + "{\"op\":\"range\",\"col\":\"price\",\"lt\":50}]}";
        final String having = query("{\"op\":\"eq\",\"col\":\"side\",\"value\":\"S\"}")
            .replace("{\"op\":\"range\",\"col\":\"quantity\",\"gte\":100}", filter);
        final Plan plan = Binder.bind(QueryEngine.parse(having), engine.snapshot("trades"), System.nanoTime());
        // price < 50 and side = S: a range and a set, no or left
        assertThat(plan.conjuncts).hasSize(2).noneMatch(LogicFilter.class::isInstance)
            .anyMatch(IntRangeFilter.class::isInstance);
        final List<List<Object>> expected = QueryResults.rows(engine.execute(query(null)
            .replace("{\"op\":\"range\",\"col\":\"quantity\",\"gte\":100}", filter)))
            .stream().filter(r -> "S".equals(r.get(0))).toList();
        assertThat(expected).isNotEmpty();
        assertThat(QueryResults.rows(engine.execute(having))).isEqualTo(expected);
    }

    @Test
    void shouldReportAHavingThatDoesNotBindAtItsPath() {
        assertThatThrownBy(() -> engine.execute(query("{\"op\":\"eq\",\"col\":\"client_id\",\"value\":\"abc\"}")))
            .isInstanceOfSatisfying(QueryException.class, e -> assertThat(e.path()).startsWith("/having"));
    }
}
