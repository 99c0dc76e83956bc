package io.tradestore.query.plan;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.model.Filter;

/**
 * Folds a filter's leaves that its own equalities decide. A conjunct {@code col = v} (or {@code col in [v]}) on a
 * symbol, char or integer column holds for every row its AND passes, and there {@code col} is never null, so any other
 * leaf of that AND on {@code col} (an eq, ne or in, under any or/not) is true or false for all of them: {@code side = S
 * and (side = B and x or y)} reads as {@code side = S and y}. Such filters come from a having on a group key joined to
 * the filter ({@link FilterBinder}) and from generated SQL; the folded one reads fewer columns per row.
 */
public final class FilterFacts {
    /** A decided subtree: true for every row the facts hold on. */
    private static final Filter TRUE = new Filter.And(List.of());
    /** A decided subtree: false for every row the facts hold on. */
    private static final Filter FALSE = new Filter.Or(List.of());

    private FilterFacts() {
    }

    /**
     * @param filter a filter, or null.
     * @param schema the table's schema.
     * @return the folded filter; the same instance when nothing folds (or when the whole filter would fold to a
     *     constant, which the model cannot say).
     */
    public static Filter simplify(final Filter filter, final Schema schema) {
        if (filter == null) {
            return null;
        }
        final Filter f = fold(filter, Map.of(), true, schema);
        return f == TRUE || f == FALSE ? filter : f;
    }

    /**
     * @param positive whether f is under no not: there only passing matters, so an AND's facts decide its siblings
     *                 (a row they do not hold on fails the AND either way); under a not, false and unknown differ and
     *                 only the facts from outside it (true on every row that matters) decide leaves.
     */
    private static Filter fold(final Filter f, final Map<String, Object> facts, final boolean positive,
                               final Schema schema) {
        if (f instanceof Filter.And and) {
            return foldAnd(and, facts, positive, schema);
        }
        if (f instanceof Filter.Or or) {
            final List<Filter> kept = new ArrayList<>();
            boolean changed = false;
            for (final Filter a : or.args()) {
                final Filter x = fold(a, facts, positive, schema);
                if (x == TRUE) {
                    return TRUE;
                }
                changed |= x != a;
                if (x != FALSE) {
                    kept.add(x);
                }
            }
            return kept.isEmpty() ? FALSE : !changed ? f : kept.size() == 1 ? kept.get(0) : new Filter.Or(kept);
        }
        if (f instanceof Filter.Not not) {
            final Filter x = fold(not.arg(), facts, false, schema);
            return x == TRUE ? FALSE : x == FALSE ? TRUE : x == not.arg() ? f : new Filter.Not(x);
        }
        return decide(f, facts, schema);
    }

    /** Folds each conjunct under the facts of the others (and of the ANDs around it). */
    private static Filter foldAnd(final Filter.And and, final Map<String, Object> outer, final boolean positive,
                                  final Schema schema) {
        final List<Filter> args = and.args();
        final boolean[] isFact = new boolean[args.size()];
        final Map<String, Object> inside = positive ? new HashMap<>(outer) : outer;
        for (int i = 0; i < args.size() && positive; i++) {
            isFact[i] = addFact(args.get(i), inside, schema);
        }
        final List<Filter> kept = new ArrayList<>();
        boolean changed = false;
        for (int i = 0; i < args.size(); i++) {
            // a conjunct that is a fact itself is decided by the facts around this AND only: siblings saying the
            // same would otherwise decide each other away
            final Filter x = fold(args.get(i), isFact[i] ? outer : inside, positive, schema);
            if (x == FALSE) {
                return FALSE;
            }
            changed |= x != args.get(i);
            if (x != TRUE) {
                kept.add(x);
            }
        }
        return kept.isEmpty() ? TRUE : !changed ? and : kept.size() == 1 ? kept.get(0) : new Filter.And(kept);
    }

    /**
     * Records {@code col = v} if the conjunct says it (a second, different value for one column is left out).
     *
     * @return whether the conjunct is such a fact.
     */
    private static boolean addFact(final Filter conjunct, final Map<String, Object> facts, final Schema schema) {
        String col = null;
        Object v = null;
        if (conjunct instanceof Filter.Eq eq) {
            col = eq.col();
            v = eq.value();
        } else if (conjunct instanceof Filter.In in && in.values().size() == 1) {
            col = in.col();
            v = in.values().get(0);
        }
        final Object k = col == null ? null : key(v, col, schema);
        if (k != null) {
            facts.putIfAbsent(col, k);
        }
        return k != null;
    }

    /** @return a leaf's value in a form equal for equal values of the column, or null when it cannot say. */
    private static Object key(final Object v, final String col, final Schema schema) {
        final int i = schema.indexOf(col);
        if (i < 0 || v == null) {
            return null;
        }
        final ColumnType t = schema.column(i).type();
        if (t == ColumnType.SYMBOL || t == ColumnType.CHAR) {
            return v instanceof String ? v : null;
        }
        final boolean integral = t == ColumnType.I64 || t == ColumnType.I32;
        return integral && (v instanceof Long || v instanceof Integer) ? ((Number) v).longValue() : null;
    }

    /** @return TRUE or FALSE when the facts decide the leaf, else the leaf itself. */
    private static Filter decide(final Filter leaf, final Map<String, Object> facts, final Schema schema) {
        if (leaf instanceof Filter.Eq eq && facts.containsKey(eq.col())) {
            final Object w = key(eq.value(), eq.col(), schema);
            return w == null ? leaf : Objects.equals(w, facts.get(eq.col())) ? TRUE : FALSE;
        }
        if (leaf instanceof Filter.Ne ne && facts.containsKey(ne.col())) {
            final Object w = key(ne.value(), ne.col(), schema);
            return w == null ? leaf : Objects.equals(w, facts.get(ne.col())) ? FALSE : TRUE;
        }
        if (leaf instanceof Filter.In in && facts.containsKey(in.col())) {
            for (final Object value : in.values()) {
                final Object w = key(value, in.col(), schema);
                if (w == null) {
                    return leaf;
                }
                if (w.equals(facts.get(in.col()))) {
                    return TRUE;
                }
            }
            return in.values().isEmpty() ? leaf : FALSE;
        }
        return leaf;
    }
}
