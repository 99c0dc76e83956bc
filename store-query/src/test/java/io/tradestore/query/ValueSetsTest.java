package io.tradestore.query;

import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.schema.Layout;
import io.tradestore.query.exec.filter.IntRangeFilter;
import io.tradestore.query.plan.Binder;
import io.tradestore.query.plan.Plan;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Value leaves of one AND or OR on the same column (a symbol, a char, an integer) fold into one set or its
 * complement: a tautology binds to "not in ()" (any non-null value), a contradiction reads nothing, and random trees of
 * eq, ne, in and not-in leaves under and, or and not count the rows a plain evaluation does, a null passing none.
 */
class ValueSetsTest {
    @TempDir
    Path dir;

    /** A column, the values its leaves draw (one absent from the data) and how a row holds it. */
    private record Col(String name, List<String> values, boolean quoted, Function<TradeData.Row, Object> get) {
    }

    @Test
    void shouldFoldValueLeavesOnOneColumn() {
        try (Store store = Store.open(dir)) {
            // nulls only in the second half, so that the first half's blocks are proven by zone maps alone
            final TradeData data = new TradeData().write(store, TradeData.schema(Layout.COLUMN, 4096, 256), 20_000, 7,
                r -> r >= 10_000);
            final List<Col> cols = List.of(
                new Col("venue", List.of("XLON", "XPAR", "XETR", "BATS", "NOPE"), true, TradeData.Row::venue),
                new Col("side", List.of("B", "S", "X"), true, TradeData.Row::side),
                new Col("client_id", List.of("0", "1", "2", "7", "-5"), false, TradeData.Row::clientId));
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                final TableSnapshot snap = engine.snapshot("trades");
                for (final Col c : cols) {
                    final String a = c.quoted() ? "\"" + c.values().get(0) + "\"" : c.values().get(0);
                    final String b = c.quoted() ? "\"" + c.values().get(1) + "\"" : c.values().get(1);
                    final String always = "{\"op\":\"or\",\"args\":[{\"op\":\"ne\",\"col\":\"" + c.name()
                        + "\",\"value\":" + a + "},{\"op\":\"in\",\"col\":\"" + c.name() + "\",\"values\":[" + a + ","
                        + b + "]}]}";
                    final Plan plan = Binder.bind(QueryEngine.parse(count(always)), snap, System.nanoTime());
                    assertThat(plan.filter).as(c.name()).isInstanceOfSatisfying(IntRangeFilter.class, f -> {
                        assertThat(f.col).isEqualTo(snap.schema().indexOf(c.name()));
                        assertThat(f.negated).isTrue();
                        assertThat(f.lo).isGreaterThan(f.hi);
                    });
                    assertThat(engine.execute(count(always)).value(0, 0))
                        .isEqualTo(data.rows.stream().filter(r -> c.get().apply(r) != null).count());
                    final QueryResult never = engine.execute(count("{\"op\":\"and\",\"args\":[{\"op\":\"in\",\"col\":\""
                        + c.name() + "\",\"values\":[" + a + "]},{\"op\":\"not\",\"arg\":{\"op\":\"in\",\"col\":\""
                        + c.name() + "\",\"values\":[" + a + "," + b + "]}}]}"));
                    assertThat(never.value(0, 0)).isEqualTo(0L);
                    assertThat(never.stats().segmentsScanned()).isZero();
                    final SplittableRandom r = new SplittableRandom(20_261_130L);
                    for (int q = 0; q < 200; q++) {
                        final StringBuilder json = new StringBuilder();
                        final Predicate<String> p = tree(r, 2, c, json);
                        final long expected = data.rows.stream().map(c.get())
                            .filter(v -> v != null && p.test(String.valueOf(v))).count();
                        assertThat(engine.execute(count(json.toString())).value(0, 0)).as(json.toString())
                            .isEqualTo(expected);
                    }
                }
            }
        }
    }

    private static String count(final String filter) {
        return "{\"table\":\"trades\",\"filter\":" + filter + ",\"aggs\":[{\"name\":\"c\",\"op\":\"count\"}]}";
    }

    /** Appends a random filter on the column to {@code out}; @return its truth for a non-null value's text. */
    private static Predicate<String> tree(final SplittableRandom r, final int depth, final Col c,
        final StringBuilder out) {
        final int kind = r.nextInt(depth > 0 ? 6 : 4);
        if (kind >= 4) {
            final boolean and = kind == 4;
            out.append("{\"op\":\"").append(and ? "and" : "or").append("\",\"args\":[");
            Predicate<String> p = null;
            for (int i = 0, n = r.nextInt(2, 4); i < n; i++) {
                out.append(i == 0 ? "" : ",");
                final Predicate<String> a = tree(r, depth - 1, c, out);
                p = p == null ? a : and ? p.and(a) : p.or(a);
            }
            out.append("]}");
            return p;
        }
        final boolean not = r.nextInt(4) == 0;
        out.append(not ? "{\"op\":\"not\",\"arg\":" : "");
        final String v = c.values().get(r.nextInt(c.values().size()));
        final String q = c.quoted() ? "\"" : "";
        final Predicate<String> p;
        if (kind < 2) {
            out.append("{\"op\":\"").append(kind == 0 ? "eq" : "ne").append("\",\"col\":\"").append(c.name())
                .append("\",\"value\":").append(q).append(v).append(q).append('}');
            p = kind == 0 ? v::equals : x -> !x.equals(v);
        } else {
            final String w = c.values().get(r.nextInt(c.values().size()));
            out.append("{\"op\":\"in\",\"col\":\"").append(c.name()).append("\",\"values\":[").append(q).append(v)
                .append(q).append(',').append(q).append(w).append(q).append("]}");
            p = x -> x.equals(v) || x.equals(w);
        }
        out.append(not ? "}" : "");
        return not ? p.negate() : p;
    }
}
