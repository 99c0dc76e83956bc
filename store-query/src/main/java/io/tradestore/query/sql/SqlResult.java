package io.tradestore.query.sql;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;

import io.tradestore.query.QueryResult;
import io.tradestore.query.QueryStats;
import io.tradestore.query.ResultColumn;
import io.tradestore.query.ResultJson;

/**
 * The answer of a SQL query: the model query's answer with its columns in the SQL order and names, outputs computed
 * from aggregates ({@code sum(price*quantity)/sum(quantity)}) and the first {@code OFFSET} rows left out. Arithmetic
 * follows DuckDB: {@code + - *} of exact values stay exact (i64, or decimal with the scales' sum or maximum), {@code /}
 * gives f64 (the exact quotient rounded once), anything with an f64 is f64, and division by zero is null.
 */
public final class SqlResult implements QueryResult {
    private final QueryResult source;
    private final List<ResultColumn> columns;

    /**
     * An output column of the SQL answer.
     *
     * @param name  its SQL name.
     * @param value how it is computed from the model's outputs.
     */
    public record Output(String name, Arith value) {
    }

    /** An expression over the model's outputs. */
    public sealed interface Arith permits Ref, Num, Op, Seconds {
    }

    /**
     * A timestamp output in epoch seconds: the value of Grafana's {@code floor(extract(epoch from ts)/N)*N}.
     *
     * @param name  a model output of type timestamp.
     * @param scale 0 for whole seconds (i64), 9 for fractions of a second (decimal(9)).
     */
    public record Seconds(String name, int scale) implements Arith {
    }

    /** @param name a model output. */
    public record Ref(String name) implements Arith {
    }

    /** @param value a Long or BigDecimal literal. */
    public record Num(Object value) implements Arith {
    }

    /** @param op one of {@code + - * /}. @param left left operand. @param right right operand. */
    public record Op(char op, Arith left, Arith right) implements Arith {
    }

    /**
     * A bound expression: result type known, and the model output's index resolved once (a Ref's or a Seconds' in
     * {@code source}, else -1), so that reading a cell does no lookup by name.
     */
    private record Bound(Arith arith, int index, String type, int scale, Bound left, Bound right) {
        Bound(final Arith arith, final int index, final String type, final int scale) {
            this(arith, index, type, scale, null, null);
        }
    }

    private final Bound[] bound;

    private SqlResult(final QueryResult source, final List<Output> outputs) {
        this.source = source;
        this.bound = new Bound[outputs.size()];
        final List<ResultColumn> cols = new ArrayList<>();
        for (int i = 0; i < outputs.size(); i++) {
            bound[i] = bind(outputs.get(i).value(), source.columns());
            final ResultColumn from = bound[i].arith instanceof Ref ? source.columns().get(bound[i].index) : null;
            cols.add(from != null ? new ResultColumn(outputs.get(i).name(), from.type(), from.approximate(),
                from.relativeError()) : new ResultColumn(outputs.get(i).name(), bound[i].type));
        }
        this.columns = List.copyOf(cols);
    }

    /**
     * @param source  the model query's answer.
     * @param outputs the SQL columns.
     * @return the SQL answer (source itself when nothing changes).
     */
    static QueryResult shape(final QueryResult source, final List<Output> outputs) {
        boolean same = outputs.size() == source.columns().size();
        for (int i = 0; same && i < outputs.size(); i++) {
            same = outputs.get(i).value() instanceof Ref r && r.name().equals(source.columns().get(i).name())
                && r.name().equals(outputs.get(i).name());
        }
        return same ? source : new SqlResult(source, outputs);
    }

    private static Bound bind(final Arith a, final List<ResultColumn> cols) {
        if (a instanceof Seconds s) {
            final int index = bind(new Ref(s.name()), cols).index;
            return s.scale() == 0 ? new Bound(a, index, "i64", 0) : new Bound(a, index, "decimal(9)", 9);
        }
        if (a instanceof Ref r) {
            for (int i = 0; i < cols.size(); i++) {
                if (cols.get(i).name().equals(r.name())) {
                    final String t = cols.get(i).type();
                    return new Bound(a, i, t, t.startsWith("decimal(") ? Integer.parseInt(t.substring(8,
                        t.length() - 1)) : 0);
                }
            }
            throw new IllegalStateException("no output " + r.name());
        }
        if (a instanceof Num n) {
            return n.value() instanceof BigDecimal b ? new Bound(a, -1, "decimal(" + b.scale() + ")", b.scale())
                : new Bound(a, -1, "i64", 0);
        }
        final Op o = (Op) a;
        final Bound l = bind(o.left(), cols);
        final Bound r = bind(o.right(), cols);
        if (o.op() == '/' || l.type.equals("f64") || r.type.equals("f64") || !exact(l.type) || !exact(r.type)) {
            return new Bound(a, -1, "f64", 0, l, r);
        }
        if (l.type.equals("i64") && r.type.equals("i64")) {
            return new Bound(a, -1, "i64", 0, l, r);
        }
        final int scale = o.op() == '*' ? l.scale + r.scale : Math.max(l.scale, r.scale);
        return new Bound(a, -1, "decimal(" + scale + ")", scale, l, r);
    }

    private static boolean exact(final String type) {
        return type.equals("i64") || type.equals("i32") || type.equals("i16") || type.equals("i8")
            || type.startsWith("decimal(");
    }

    @Override
    public List<ResultColumn> columns() {
        return columns;
    }

    @Override
    public int rowCount() {
        return source.rowCount();
    }

    @Override
    public Object value(final int row, final int column) {
        if (row < 0 || row >= rowCount()) {
            throw new IndexOutOfBoundsException("row=" + row + " rowCount=" + rowCount());
        }
        final Bound b = bound[column];
        if (b.arith instanceof Ref) {
            return source.value(row, b.index);
        }
        final Object v = eval(b, row);
        if (v == null) {
            return null;
        }
        if (b.type.equals("f64")) {
            return v instanceof Double ? v : ((BigDecimal) v).doubleValue();
        }
        final BigDecimal d = (BigDecimal) v;
        return b.type.equals("i64") && d.toBigInteger().bitLength() < 64 ? (Object) d.longValue() : d.setScale(b.scale);
    }

    private Object eval(final Bound b, final int row) {
        final Arith a = b.arith;
        if (a instanceof Seconds) {
            final Object nanos = source.value(row, b.index);
            return nanos == null ? null : BigDecimal.valueOf((Long) nanos, 9);
        }
        if (a instanceof Ref) {
            return source.value(row, b.index);
        }
        if (a instanceof Num n) {
            return n.value() instanceof Long l ? BigDecimal.valueOf(l) : n.value();
        }
        final Op o = (Op) a;
        final Object l = eval(b.left, row);
        final Object r = eval(b.right, row);
        if (l == null || r == null) {
            return null;
        }
        if (l instanceof Double || r instanceof Double) {
            return doubleOp(o.op(), ((Number) l).doubleValue(), ((Number) r).doubleValue());
        }
        final BigDecimal x = number(l);
        final BigDecimal y = number(r);
        switch (o.op()) {
            case '+':
                return x.add(y);
            case '-':
                return x.subtract(y);
            case '*':
                return x.multiply(y);
            default:
                return y.signum() == 0 ? null : x.divide(y, MathContext.DECIMAL128);
        }
    }

    private static Object doubleOp(final char op, final double x, final double y) {
        switch (op) {
            case '+':
                return x + y;
            case '-':
                return x - y;
            case '*':
                return x * y;
            default:
                return y == 0 ? null : x / y;
        }
    }

    private static BigDecimal number(final Object v) {
        if (v instanceof BigDecimal b) {
            return b;
        }
        if (v instanceof Long l) {
            return BigDecimal.valueOf(l);
        }
        throw new IllegalStateException("not a number: " + v);
    }

    @Override
    public boolean truncated() {
        return source.truncated();
    }

    @Override
    public QueryStats stats() {
        return source.stats();
    }

    @Override
    public void writeJson(final OutputStream out, final boolean epochNanos) throws IOException {
        ResultJson.write(this, out, epochNanos);
    }
}
