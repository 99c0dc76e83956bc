package io.tradestore.query.gen;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.tradestore.core.schema.ColumnType;

import static io.tradestore.query.gen.QueryGenerator.q;

/**
 * The literals, row filters and time ranges of {@link QueryGenerator}'s queries, drawn from the rows of one table. It
 * shares the generator's random source, so a seed still draws one sequence whatever class draws each value.
 */
final class FilterGenerator {
    /** 2026-11-16T00:00:00Z: the timestamp literal of a table with no rows to sample. */
    private static final long NO_ROWS_TS = 1_794_787_200_000_000_000L;
    private final GenTable t;
    private final GenProfile p;
    private final SplittableRandom r;

    /**
     * @param t the table whose values the literals are sampled from.
     * @param r the query's random source, shared with the generator.
     */
    FilterGenerator(final GenTable t, final SplittableRandom r) {
        this.t = t;
        this.p = t.profile();
        this.r = r;
    }

    // ---------------------------------------------------------------------------------------------- literals

    /** @return a non-null value of the column from a random row, or a made-up one when none is found. */
    Object sample(final int c) {
        for (int i = 0; i < 30 && t.sampleRows() > 0; i++) {
            final Object v = t.value(c, r.nextInt(t.sampleRows()));
            if (v != null) {
                return v;
            }
        }
        final GenColumn col = t.columns().get(c);
        switch (col.type()) {
            case SYMBOL:
                return "S01";
            case CHAR:
                return "B";
            case F64:
                return 1.5;
            case DECIMAL:
                return BigDecimal.valueOf(12_345, col.scale());
            case TIMESTAMP:
                return NO_ROWS_TS;
            default:
                return 7L;
        }
    }

    /** @return a literal for a filter on the column: mostly present values, sometimes absent or nudged ones. */
    private Object literal(final int c) {
        final GenColumn col = t.columns().get(c);
        final Object v = sample(c);
        if (p.nudges() && r.nextInt(10) == 0) {
            switch (col.type()) {
                case SYMBOL:
                    return r.nextBoolean() || t.unusedSymbols().isEmpty() ? "NOPE" : t.unusedSymbols().get(0);
                case CHAR:
                    return "X";
                case F64:
                    return (Double) v + 0.25;
                case DECIMAL:
                    return ((BigDecimal) v).add(BigDecimal.valueOf(r.nextInt(3) - 1, col.scale()));
                case I8:
                    return Math.max(-127, Math.min(127, (Long) v + r.nextInt(3) - 1));
                case I16:
                    return Math.max(-32_767, Math.min(32_767, (Long) v + r.nextInt(3) - 1));
                default:
                    return (Long) v + r.nextInt(3) - 1;
            }
        }
        return v;
    }

    Pred.Form form(final ColumnType type) {
        if (type == ColumnType.TIMESTAMP) {
            final int k = r.nextInt(4);
            return k < 2 ? Pred.Form.NATIVE : k == 2 ? Pred.Form.TEXT : Pred.Form.OFFSET;
        }
        return type == ColumnType.DECIMAL && r.nextBoolean() ? Pred.Form.TEXT : Pred.Form.NATIVE;
    }

    // ---------------------------------------------------------------------------------------------- filters

    Pred filter(final int depth) {
        final int k = r.nextInt(10);
        if (depth >= 3 || k < 5) {
            return leaf();
        }
        if (k < 7) {
            return new Pred.Junction(true, children(depth));
        }
        if (k < 9) {
            return new Pred.Junction(false, children(depth));
        }
        return new Pred.Not(filter(depth + 1));
    }

    private List<Pred> children(final int depth) {
        final int n = 2 + r.nextInt(2);
        final List<Pred> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(filter(depth + 1));
        }
        return list;
    }

    private Pred leaf() {
        final int c = r.nextInt(t.columns().size());
        final GenColumn col = t.columns().get(c);
        final int k = r.nextInt(10);
        final String op = col
            .textual() ? (k < 4 ? "eq" : k < 6 ? "ne" : "in") : (k < 2 ? "eq" : k < 3 ? "ne" : k < 5 ? "in" : "range");
        final List<Object> values = new ArrayList<>();
        String[] bounds = null;
        switch (op) {
            case "eq":
            case "ne":
                values.add(literal(c));
                break;
            case "in":
                final int n = 1 + r.nextInt(4);
                for (int i = 0; i < n; i++) {
                    values.add(literal(c));
                }
                break;
            default:
                final Object x = literal(c);
                final Object y = literal(c);
                final boolean swap = Norm.number(x).compareTo(Norm.number(y)) > 0 && r.nextInt(8) != 0;
                final Object lo = swap ? y : x;
                final Object hi = swap ? x : y;
                final int shape = r.nextInt(4);
                if (shape == 0) {
                    bounds = new String[] {r.nextBoolean() ? "gt" : "gte"};
                    values.add(lo);
                } else if (shape == 1) {
                    bounds = new String[] {r.nextBoolean() ? "lt" : "lte"};
                    values.add(hi);
                } else {
                    bounds = new String[] {r.nextBoolean() ? "gt" : "gte", r.nextBoolean() ? "lt" : "lte"};
                    values.add(lo);
                    values.add(hi);
                }
                break;
        }
        return leaf(op, c, values, bounds, form(col.type()));
    }

    /**
     * @return a comparison of table column {@code c}, its literals written in SQL as the dialect types the column.
     */
    Pred.Leaf leaf(final String op, final int c, final List<Object> values, final String[] bounds,
        final Pred.Form form) {
        final GenColumn col = t.columns().get(c);
        return new Pred.Leaf(op, col.name(), q(col.name()), col.type(), c, values, bounds, form,
            col.type() == ColumnType.TIMESTAMP && p.dialect() == GenProfile.Dialect.NATIVE);
    }

    /**
     * @return an eq or in on an indexable column, now and then AND-ed with another leaf (a residual conjunct), or no
     *     filter (summaries of all rows, with the time range or without).
     * @param columns the columns the eq or in may be on.
     */
    Pred summaryFilter(final List<String> columns) {
        if (r.nextInt(5) == 0) {
            return null;
        }
        Pred.Leaf leaf;
        do {
            leaf = (Pred.Leaf) leaf();
        } while (!columns.contains(leaf.col)
            || !(leaf.op.equals("eq") || leaf.op.equals("in")));
        if (r.nextInt(4) == 0) {
            return new Pred.Junction(true, List.of(leaf, leaf()));
        }
        return leaf;
    }

    /** @return the time range as a leaf (rendered under "time" in JSON), or null. */
    Pred.Leaf timeRange() {
        if (r.nextInt(10) >= 4) {
            return null;
        }
        final int ts = t.columnIndex(p.timestamp());
        long from = (Long) sample(ts);
        long to = (Long) sample(ts);
        if (from > to) {
            final long x = from;
            from = to;
            to = x;
        }
        if (r.nextInt(4) == 0) {
            to = from + r.nextLong(3_600_000_000_000L);
            to -= to % p.timestampStepNs();
        }
        final int sides = r.nextInt(10);
        if (sides == 0) {
            // only "to": unbounded below
            return leaf("range", ts, new ArrayList<>(List.of(to)), new String[] {"lt"}, form(ColumnType.TIMESTAMP));
        }
        if (sides == 1) {
            return leaf("range", ts, new ArrayList<>(List.of(from)), new String[] {"gte"},
                form(ColumnType.TIMESTAMP));
        }
        final List<Object> v = new ArrayList<>(List.of(from, to));
        return leaf("range", ts, v, new String[] {"gte", "lt"}, form(ColumnType.TIMESTAMP));
    }

    static ObjectNode timeJson(final Pred.Leaf time) {
        final ObjectNode n = Pred.NODES.objectNode();
        final ObjectNode full = time.json();
        if (full.has("gte")) {
            n.set("from", full.get("gte"));
        }
        if (full.has("lt")) {
            n.set("to", full.get("lt"));
        }
        return n;
    }
}
