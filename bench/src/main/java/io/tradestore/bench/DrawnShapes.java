package io.tradestore.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.tradestore.core.schema.ColumnType;
import io.tradestore.query.gen.GenColumn;
import io.tradestore.query.gen.GenQuery;
import io.tradestore.query.gen.GenTable;
import io.tradestore.query.gen.QueryGenerator;

/**
 * Query shapes drawn by the differential test's grammar ({@link QueryGenerator}) with a fixed seed, until every
 * {@linkplain #CLASSES class} has appeared: query {@code i} of seed {@code s} is
 * {@code new QueryGenerator(table, s * 1_000_003 + i, ...)} (the difftest's seeds for its first table), and a drawn
 * query is kept when it brings a class no kept query has, or, once every class is in, until there are enough. Also
 * the shapes' short form and the columns each reads.
 */
final class DrawnShapes {
    /** The default seed of the shapes ({@code --shape-seed}). */
    static final long DEFAULT_SEED = 27;
    /** The default least number of shapes ({@code --shape-count}). */
    static final int DEFAULT_COUNT = 24;
    /**
     * What the kept shapes cover between them: filter leaves by column type (ranges on an integer, a decimal and the
     * timestamp, eq, in, ne and not-in on a symbol, the char), the time range, {@code not} and {@code or} trees, one
     * to four group keys of every kind (symbol, char, integer, time bucket, calendar bucket), every aggregate, having
     * and a limit.
     */
    static final List<String> CLASSES = List.of("range:integer", "range:decimal", "range:timestamp", "time",
        "eq:symbol", "in:symbol", "ne:symbol", "not-in:symbol", "char", "not", "or", "keys:1", "keys:2", "keys:3",
        "keys:4", "key:symbol", "key:char", "key:integer", "key:bucket", "key:calendar", "count", "sum", "avg", "min",
        "max", "first", "last", "vwap", "percentile", "countDistinct", "having", "limit");
    private static final int MAX_DRAWS = 200_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private DrawnShapes() {
    }

    /**
     * Draws the shapes.
     *
     * @param table the table and its sample of literals.
     * @param seed  the shapes' seed.
     * @param count the least number of shapes.
     * @return the shapes in the order drawn.
     * @throws IllegalStateException when some class did not appear within many draws.
     */
    static List<GenQuery> draw(final GenTable table, final long seed, final int count) {
        final List<GenQuery> kept = new ArrayList<>();
        final Set<String> covered = new TreeSet<>();
        for (int i = 0; i < MAX_DRAWS; i++) {
            final GenQuery q = new QueryGenerator(table, seed * 1_000_003L + i, seed + "/" + table.name() + "/" + i)
                .next();
            final Set<String> classes = classes(table, q.json());
            final boolean all = covered.size() == CLASSES.size();
            if (all && kept.size() >= count) {
                return kept;
            }
            if (all || !covered.containsAll(classes)) {
                kept.add(q);
                covered.addAll(classes);
            }
        }
        final Set<String> missing = new TreeSet<>(CLASSES);
        missing.removeAll(covered);
        throw new IllegalStateException("seed=" + seed + " draws=" + MAX_DRAWS + ": no shape has " + missing
            + "; try another --shape-seed");
    }

    /**
     * @param table the table (column types).
     * @param json  a drawn query.
     * @return the {@link #CLASSES} it has.
     */
    static Set<String> classes(final GenTable table, final String json) {
        final JsonNode root = tree(json);
        final Set<String> c = new TreeSet<>();
        if (root.has("filter")) {
            filterClasses(table, root.get("filter"), c);
        }
        if (root.has("time")) {
            c.add("time");
        }
        final JsonNode keys = root.path("groupBy");
        if (keys.size() > 0) {
            c.add("keys:" + keys.size());
        }
        for (final JsonNode k : keys) {
            if (k.isTextual()) {
                c.add("key:" + kind(table.column(k.asText()).type()));
            } else {
                final String spec = k.get("bucket").asText();
                c.add(spec.equals("P1M") || spec.equals("P1Y") ? "key:calendar" : "key:bucket");
            }
        }
        for (final JsonNode a : root.path("aggs")) {
            c.add(a.get("op").asText());
        }
        if (root.has("having")) {
            c.add("having");
        }
        if (root.has("limit")) {
            c.add("limit");
        }
        c.retainAll(CLASSES);
        return c;
    }

    private static void filterClasses(final GenTable table, final JsonNode f, final Set<String> c) {
        final String op = f.get("op").asText();
        switch (op) {
            case "and":
            case "or":
                if (op.equals("or")) {
                    c.add("or");
                }
                for (final JsonNode a : f.get("args")) {
                    filterClasses(table, a, c);
                }
                return;
            case "not":
                c.add("not");
                final JsonNode arg = f.get("arg");
                if (arg.get("op").asText().equals("in")
                    && table.column(arg.get("col").asText()).type() == ColumnType.SYMBOL) {
                    c.add("not-in:symbol");
                }
                filterClasses(table, arg, c);
                return;
            default:
                final ColumnType type = table.column(f.get("col").asText()).type();
                if (type == ColumnType.CHAR) {
                    c.add("char");
                } else if (type == ColumnType.SYMBOL) {
                    c.add(op + ":symbol");
                } else {
                    c.add(op + ":" + kind(type));
                }
        }
    }

    private static String kind(final ColumnType type) {
        switch (type) {
            case SYMBOL:
                return "symbol";
            case CHAR:
                return "char";
            case DECIMAL:
                return "decimal";
            case TIMESTAMP:
                return "timestamp";
            case F64:
                return "f64";
            default:
                return "integer";
        }
    }

    /**
     * @param table the table (column order).
     * @param json  a drawn query.
     * @return the columns it reads, in schema order, comma-separated (empty when none: a bare count).
     */
    static String columns(final GenTable table, final String json) {
        final JsonNode root = tree(json);
        final Set<String> cols = new LinkedHashSet<>();
        if (root.has("time")) {
            cols.add(table.profile().timestamp());
        }
        filterColumns(root.path("filter"), cols);
        for (final JsonNode k : root.path("groupBy")) {
            cols.add(k.isTextual() ? k.asText() : k.get("col").asText());
        }
        for (final JsonNode a : root.path("aggs")) {
            final String op = a.get("op").asText();
            if (op.equals("vwap")) {
                cols.add("price");
                cols.add("quantity");
            } else if (a.has("col")) {
                for (final String part : a.get("col").asText().split("\\*")) {
                    cols.add(part);
                }
                if (op.equals("first") || op.equals("last")) {
                    cols.add(table.profile().timestamp());
                }
            }
        }
        final List<String> ordered = new ArrayList<>();
        for (final GenColumn g : table.columns()) {
            if (cols.contains(g.name())) {
                ordered.add(g.name());
            }
        }
        return String.join(", ", ordered);
    }

    private static void filterColumns(final JsonNode f, final Set<String> cols) {
        if (f.has("col")) {
            cols.add(f.get("col").asText());
        }
        for (final JsonNode a : f.path("args")) {
            filterColumns(a, cols);
        }
        if (f.has("arg")) {
            filterColumns(f.get("arg"), cols);
        }
    }

    /**
     * @param table the table (timestamp columns print as ISO-8601).
     * @param json  a drawn query.
     * @return its short form: {@code time [from, to) where FILTER by KEYS: AGGS having H order by O limit N}.
     */
    static String text(final GenTable table, final String json) {
        final JsonNode root = tree(json);
        final StringBuilder sb = new StringBuilder();
        if (root.has("time")) {
            final JsonNode t = root.get("time");
            sb.append("time [").append(t.has("from") ? literal(table, "ts", t.get("from")) : "")
                .append(", ").append(t.has("to") ? literal(table, "ts", t.get("to")) : "").append(") ");
        }
        if (root.has("filter")) {
            sb.append("where ").append(filter(table, root.get("filter"))).append(' ');
        }
        final List<String> keys = new ArrayList<>();
        for (final JsonNode k : root.path("groupBy")) {
            keys.add(k.isTextual() ? k.asText() : k.get("bucket").asText() + "(" + k.get("col").asText() + ")");
        }
        if (!keys.isEmpty()) {
            sb.append("by ").append(String.join(", ", keys)).append(": ");
        }
        final List<String> aggs = new ArrayList<>();
        for (final JsonNode a : root.path("aggs")) {
            final String op = a.get("op").asText();
            final String col = a.has("col") ? a.get("col").asText() : "";
            aggs.add(op.equals("percentile") ? "p" + a.get("p").asText() + "(" + col + ")" : op + "(" + col + ")");
        }
        sb.append(String.join(", ", aggs));
        if (root.has("having")) {
            sb.append(" having ").append(filter(null, root.get("having")));
        }
        final List<String> order = new ArrayList<>();
        for (final JsonNode o : root.path("orderBy")) {
            order.add(o.get("col").asText() + (o.path("desc").asBoolean() ? " desc" : ""));
        }
        if (!order.isEmpty()) {
            sb.append(" order by ").append(String.join(", ", order));
        }
        if (root.has("limit")) {
            sb.append(" limit ").append(root.get("limit").asInt());
        }
        return sb.toString();
    }

    private static String filter(final GenTable table, final JsonNode f) {
        final String op = f.get("op").asText();
        switch (op) {
            case "and":
            case "or":
                final List<String> args = new ArrayList<>();
                for (final JsonNode a : f.get("args")) {
                    args.add(filter(table, a));
                }
                return "(" + String.join(" " + op + " ", args) + ")";
            case "not":
                return "not " + filter(table, f.get("arg"));
            case "in":
                final List<String> values = new ArrayList<>();
                for (final JsonNode v : f.get("values")) {
                    values.add(literal(table, f.get("col").asText(), v));
                }
                return f.get("col").asText() + " in [" + String.join(", ", values) + "]";
            case "eq":
            case "ne":
                return f.get("col").asText() + (op.equals("eq") ? " = " : " <> ")
                    + literal(table, f.get("col").asText(), f.get("value"));
            default:
                final List<String> bounds = new ArrayList<>();
                for (final String b : new String[] {"gt", "gte", "lt", "lte"}) {
                    if (f.has(b)) {
                        bounds.add(f.get("col").asText() + " " + new String[] {">", ">=", "<", "<="}[
                            List.of("gt", "gte", "lt", "lte").indexOf(b)] + " " + literal(table, f.get("col").asText(),
                            f.get(b)));
                    }
                }
                return bounds.size() == 1 ? bounds.get(0) : "(" + String.join(" and ", bounds) + ")";
        }
    }

    private static String literal(final GenTable table, final String col, final JsonNode v) {
        if (table != null && v.isIntegralNumber() && table.column(col).type() == ColumnType.TIMESTAMP) {
            final long ns = v.asLong();
            return Instant.ofEpochSecond(Math.floorDiv(ns, 1_000_000_000L), Math.floorMod(ns, 1_000_000_000L))
                .toString();
        }
        return v.isTextual() ? v.asText() : v.toString();
    }

    private static JsonNode tree(final String json) {
        try {
            return JSON.readTree(json);
        } catch (final JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + json, e);
        }
    }
}
