package io.tradestore.query.plan;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.model.Filter;

import static org.assertj.core.api.Assertions.assertThat;

class FilterFactsTest {
    private static final Schema SCHEMA = Schema.builder("t").layout(Layout.COLUMN).segmentRows(4096).blockRows(1024)
        .column("sym", "symbol").column("c", "char").column("n", "i64").column("p", "decimal(6)").build();
    private static final String[] SYMBOLS = {"A", "B", "C"};

    @Test
    void shouldDropTheBranchAnEqualityContradicts() {
        final Filter f = new Filter.And(List.of(Filter.eq("sym", "A"), new Filter.Or(List.of(
            new Filter.And(List.of(Filter.eq("sym", "B"), Filter.eq("n", 1L))), Filter.eq("n", 2L)))));
        assertThat(FilterFacts.simplify(f, SCHEMA))
            .isEqualTo(new Filter.And(List.of(Filter.eq("sym", "A"), Filter.eq("n", 2L))));
    }

    @Test
    void shouldKeepEqualFactsThatSayTheSame() {
        final Filter f = new Filter.And(List.of(Filter.eq("sym", "A"), Filter.in("sym", "A"), Filter.eq("n", 2L)));
        assertThat(FilterFacts.simplify(f, SCHEMA)).isSameAs(f);
    }

    @Test
    void shouldLeaveDecimalsAndFiltersFoldingToAConstantAsWritten() {
        final Filter decimals = new Filter.And(List.of(Filter.eq("p", "6.23"), Filter.ne("p", "6.230000")));
        assertThat(FilterFacts.simplify(decimals, SCHEMA)).isSameAs(decimals);
        final Filter never = new Filter.And(List.of(Filter.eq("c", "S"), Filter.eq("n", 1L),
            new Filter.Not(Filter.in("c", "S", "B"))));
        assertThat(FilterFacts.simplify(never, SCHEMA)).isSameAs(never);
    }

    /** Random filters pass exactly the rows they passed before folding, nulls included (three-valued logic). */
    @Test
    void shouldPassTheSameRowsAsTheFilterAsWritten() {
        final SplittableRandom r = new SplittableRandom(17);
        int folded = 0;
        for (int q = 0; q < 3_000; q++) {
            final Filter f = filter(r, 3);
            final Filter s = FilterFacts.simplify(f, SCHEMA);
            folded += s == f ? 0 : 1;
            for (int row = 0; row < 60; row++) {
                final Map<String, Object> values = new HashMap<>();
                values.put("sym", r.nextInt(4) == 0 ? null : SYMBOLS[r.nextInt(3)]);
                values.put("c", r.nextInt(4) == 0 ? null : SYMBOLS[r.nextInt(3)]);
                values.put("n", r.nextInt(4) == 0 ? null : (long) r.nextInt(3));
                assertThat(eval(s, values) == Boolean.TRUE).as("%s folded to %s on %s", f, s, values)
                    .isEqualTo(eval(f, values) == Boolean.TRUE);
            }
        }
        assertThat(folded).as("filters folded").isGreaterThan(150);
    }

    private static Filter filter(final SplittableRandom r, final int depth) {
        final int k = r.nextInt(depth == 0 ? 3 : 6);
        final String col = new String[] {"sym", "c", "n"}[r.nextInt(3)];
        final Object v = col.equals("n") ? (Object) (long) r.nextInt(3) : SYMBOLS[r.nextInt(3)];
        switch (k) {
            case 0:
                return Filter.eq(col, v);
            case 1:
                return Filter.ne(col, v);
            case 2: {
                final List<Object> vs = new ArrayList<>();
                for (int i = 1 + r.nextInt(2); i > 0; i--) {
                    vs.add(col.equals("n") ? (Object) (long) r.nextInt(3) : SYMBOLS[r.nextInt(3)]);
                }
                return new Filter.In(col, vs);
            }
            case 3:
                return new Filter.Not(filter(r, depth - 1));
            default: {
                final List<Filter> args = new ArrayList<>();
                for (int i = 2 + r.nextInt(2); i > 0; i--) {
                    args.add(filter(r, depth - 1));
                }
                return k == 4 ? new Filter.And(args) : new Filter.Or(args);
            }
        }
    }

    /** @return TRUE, FALSE, or null for unknown. */
    private static Boolean eval(final Filter f, final Map<String, Object> row) {
        if (f instanceof Filter.Eq eq) {
            return row.get(eq.col()) == null ? null : row.get(eq.col()).equals(eq.value());
        }
        if (f instanceof Filter.Ne ne) {
            return row.get(ne.col()) == null ? null : !row.get(ne.col()).equals(ne.value());
        }
        if (f instanceof Filter.In in) {
            return row.get(in.col()) == null ? null : in.values().contains(row.get(in.col()));
        }
        if (f instanceof Filter.Not not) {
            final Boolean x = eval(not.arg(), row);
            return x == null ? null : !x;
        }
        final boolean and = f instanceof Filter.And;
        final List<Filter> args = and ? ((Filter.And) f).args() : ((Filter.Or) f).args();
        Boolean out = and;
        for (final Filter a : args) {
            final Boolean x = eval(a, row);
            if (x != null && x != and) {
                return x;
            }
            if (x == null) {
                out = null;
            }
        }
        return out;
    }
}
