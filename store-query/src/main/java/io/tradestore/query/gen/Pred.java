package io.tradestore.query.gen;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.tradestore.core.schema.ColumnType;

/**
 * A filter (or having) tree rendered three ways: tradestore JSON, DuckDB SQL, and a Java evaluation over the
 * generated rows (used to check the SQL translation itself).
 *
 * <p>Null semantics: the engine follows SQL's three-valued logic (model.Filter.Not: "nulls never pass"): a comparison
 * ({@code eq ne in range}) with a null value is unknown, {@code not} of unknown is unknown, and only rows whose filter
 * is true pass. So {@code ne x v}, {@code not(eq x v)} and {@code not(range ...)} all drop rows where x is null, and
 * the translation to SQL is literal. {@link #eval3} implements the same logic in Java.
 */
public abstract class Pred {
    /** DuckDB's TIMESTAMP literal text: built once, a query writes many literals. */
    private static final DateTimeFormatter SQL_TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");
    static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** @return the filter in tradestore's JSON. */
    public abstract ObjectNode json();

    /** @return the filter in DuckDB SQL. */
    public abstract String sql();

    /** @param t table. @param row row. @return true, false or null (unknown), by SQL's three-valued logic. */
    public abstract Boolean eval3(GenTable t, int row);

    /**
     * @param t table. @param row row. @return whether the row passes the filter (only row filters over table columns).
     */
    public final boolean eval(final GenTable t, final int row) {
        return Boolean.TRUE.equals(eval3(t, row));
    }

    /** How a literal is written in JSON. */
    enum Form {
        /** As its natural JSON type (numbers as numbers, timestamps as epoch nanos). */
        NATIVE,
        /** As a string (decimals as text, timestamps as ISO-8601 in UTC with Z). */
        TEXT,
        /** Timestamps as ISO-8601 with a non-zero offset ({@code +02:00}, {@code -05:00}, {@code +05:30}). */
        OFFSET
    }

    private static final java.time.ZoneOffset[] OFFSETS =
        {java.time.ZoneOffset.ofHours(2), java.time.ZoneOffset.ofHours(-5),
        java.time.ZoneOffset.ofHoursMinutes(5, 30)};

    /** A comparison of one column (or output) with literals. */
    static final class Leaf extends Pred {
        final String op;
        final String col;
        final String sqlCol;
        final ColumnType type;
        final int column;
        final List<Object> values;
        final String[] bounds;
        final Form form;
        /** Whether the SQL column is a DuckDB TIMESTAMP (literals written as TIMESTAMP '...'), not epoch nanos. */
        final boolean sqlTimestamp;

        /**
         * @param op     eq ne in range.
         * @param col    column or output name in JSON.
         * @param sqlCol SQL expression of it.
         * @param type   its type (literals are typed by it).
         * @param column table column index for Java evaluation, or -1.
         * @param values literals (for range: one per bound).
         * @param bounds range bounds (gt gte lt lte), else null.
         * @param form   how literals are written in JSON.
         */
        Leaf(final String op, final String col, final String sqlCol, final ColumnType type, final int column,
            final List<Object> values,
             final String[] bounds, final Form form) {
            this(op, col, sqlCol, type, column, values, bounds, form, false);
        }

        /**
         * As the other constructor.
         *
         * @param sqlTimestamp whether the SQL column is a DuckDB TIMESTAMP of microseconds, its literals written as
         *                     {@code TIMESTAMP '...'}.
         */
        Leaf(final String op, final String col, final String sqlCol, final ColumnType type, final int column,
            final List<Object> values, final String[] bounds, final Form form, final boolean sqlTimestamp) {
            this.sqlTimestamp = sqlTimestamp;
            this.op = op;
            this.col = col;
            this.sqlCol = sqlCol;
            this.type = type;
            this.column = column;
            this.values = values;
            this.bounds = bounds;
            this.form = form;
        }

        @Override
        public ObjectNode json() {
            final ObjectNode n = NODES.objectNode();
            n.put("op", op);
            n.put("col", col);
            switch (op) {
                case "eq":
                case "ne":
                    n.set("value", literal(values.get(0)));
                    break;
                case "in":
                    final ArrayNode a = n.putArray("values");
                    for (final Object v : values) {
                        a.add(literal(v));
                    }
                    break;
                case "range":
                    for (int i = 0; i < bounds.length; i++) {
                        n.set(bounds[i], literal(values.get(i)));
                    }
                    break;
                default:
                    throw new IllegalStateException(op);
            }
            return n;
        }

        private JsonNode literal(final Object v) {
            if (v instanceof String) {
                return NODES.textNode((String) v);
            }
            if (type == ColumnType.TIMESTAMP) {
                final long ns = ((Number) v).longValue();
                final Instant at =
                    Instant.ofEpochSecond(Math.floorDiv(ns, 1_000_000_000L), Math.floorMod(ns, 1_000_000_000L));
                switch (form) {
                    case TEXT:
                        return NODES.textNode(at.toString());
                    case OFFSET:
                        return NODES.textNode(
                            java.time.OffsetDateTime.ofInstant(at, OFFSETS[(int) Math.floorMod(ns, 3L)]).toString());
                    default:
                        return NODES.numberNode(ns);
                }
            }
            if (v instanceof BigDecimal) {
                return form == Form.TEXT ? NODES.textNode(((BigDecimal) v).toPlainString())
                    : NODES.numberNode((BigDecimal) v);
            }
            if (v instanceof Double) {
                return NODES.numberNode((Double) v);
            }
            return NODES.numberNode(((Number) v).longValue());
        }

        @Override
        public String sql() {
            switch (op) {
                case "eq":
                    return "(" + sqlCol + " = " + literalSql(values.get(0)) + ")";
                case "ne":
                    return "(" + sqlCol + " <> " + literalSql(values.get(0)) + ")";
                case "in":
                    final StringBuilder sb = new StringBuilder("(").append(sqlCol).append(" IN (");
                    for (int i = 0; i < values.size(); i++) {
                        sb.append(i == 0 ? "" : ", ").append(literalSql(values.get(i)));
                    }
                    return sb.append("))").toString();
                case "range":
                    final StringBuilder r = new StringBuilder("(");
                    for (int i = 0; i < bounds.length; i++) {
                        r.append(i == 0 ? "" : " AND ").append(sqlCol).append(sqlOperator(bounds[i]))
                            .append(literalSql(values.get(i)));
                    }
                    return r.append(')').toString();
                default:
                    throw new IllegalStateException(op);
            }
        }

        @Override
        public Boolean eval3(final GenTable t, final int row) {
            final Object v = t.value(column, row);
            if (v == null) {
                return null;
            }
            switch (op) {
                case "eq":
                    return compare(v, values.get(0)) == 0;
                case "ne":
                    return compare(v, values.get(0)) != 0;
                case "in":
                    for (final Object x : values) {
                        if (compare(v, x) == 0) {
                            return true;
                        }
                    }
                    return false;
                case "range":
                    for (int i = 0; i < bounds.length; i++) {
                        final int c = compare(v, values.get(i));
                        final boolean ok;
                        switch (bounds[i]) {
                            case "gt":
                                ok = c > 0;
                                break;
                            case "gte":
                                ok = c >= 0;
                                break;
                            case "lt":
                                ok = c < 0;
                                break;
                            default:
                                ok = c <= 0;
                                break;
                        }
                        if (!ok) {
                            return false;
                        }
                    }
                    return true;
                default:
                    throw new IllegalStateException(op);
            }
        }

        private String literalSql(final Object v) {
            if (!sqlTimestamp || v instanceof String) {
                return sqlLiteral(v);
            }
            final long ns = ((Number) v).longValue();
            if (ns % 1000 != 0) {
                throw new IllegalStateException("timestamp literal " + ns + " ns is finer than a DuckDB TIMESTAMP");
            }
            final Instant at = Instant.ofEpochSecond(Math.floorDiv(ns, 1_000_000_000L), Math.floorMod(ns,
                1_000_000_000L));
            return "TIMESTAMP '" + java.time.LocalDateTime.ofInstant(at, java.time.ZoneOffset.UTC)
                .format(SQL_TIMESTAMP) + "'";
        }

        private static int compare(final Object a, final Object b) {
            if (a instanceof String || b instanceof String) {
                return a.equals(b) ? 0 : a.toString().compareTo(b.toString()) < 0 ? -1 : 1;
            }
            return Norm.number(a).compareTo(Norm.number(b));
        }

        private static String sqlOperator(final String bound) {
            switch (bound) {
                case "gt":
                    return " > ";
                case "gte":
                    return " >= ";
                case "lt":
                    return " < ";
                case "lte":
                    return " <= ";
                default:
                    throw new IllegalStateException(bound);
            }
        }
    }

    /** @param v a literal. @return it in SQL. */
    static String sqlLiteral(final Object v) {
        if (v instanceof String) {
            return "'" + ((String) v).replace("'", "''") + "'";
        }
        if (v instanceof Double) {
            return new BigDecimal((Double) v).toPlainString();
        }
        if (v instanceof BigDecimal) {
            return ((BigDecimal) v).toPlainString();
        }
        return v.toString();
    }

    /** {@code and} / {@code or}. */
    static final class Junction extends Pred {
        final boolean and;
        final List<Pred> args;

        Junction(final boolean and, final List<Pred> args) {
            this.and = and;
            this.args = args;
        }

        @Override
        public ObjectNode json() {
            final ObjectNode n = NODES.objectNode();
            n.put("op", and ? "and" : "or");
            final ArrayNode a = n.putArray("args");
            for (final Pred p : args) {
                a.add(p.json());
            }
            return n;
        }

        @Override
        public String sql() {
            final StringBuilder sb = new StringBuilder("(");
            for (int i = 0; i < args.size(); i++) {
                sb.append(i == 0 ? "" : and ? " AND " : " OR ").append(args.get(i).sql());
            }
            return sb.append(')').toString();
        }

        @Override
        public Boolean eval3(final GenTable t, final int row) {
            boolean unknown = false;
            for (final Pred p : args) {
                final Boolean b = p.eval3(t, row);
                if (b == null) {
                    unknown = true;
                } else if (b != and) {
                    return !and;
                }
            }
            return unknown ? null : and;
        }
    }

    /** {@code not}. */
    static final class Not extends Pred {
        final Pred arg;

        Not(final Pred arg) {
            this.arg = arg;
        }

        @Override
        public ObjectNode json() {
            final ObjectNode n = NODES.objectNode();
            n.put("op", "not");
            n.set("arg", arg.json());
            return n;
        }

        @Override
        public String sql() {
            return "(NOT " + arg.sql() + ")";
        }

        @Override
        public Boolean eval3(final GenTable t, final int row) {
            final Boolean b = arg.eval3(t, row);
            return b == null ? null : !b;
        }
    }
}
