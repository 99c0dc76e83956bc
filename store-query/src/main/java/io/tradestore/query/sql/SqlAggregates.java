package io.tradestore.query.sql;

import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;

import net.sf.jsqlparser.expression.AnalyticExpression;
import net.sf.jsqlparser.expression.AnalyticType;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.operators.arithmetic.Multiplication;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.statement.select.OrderByElement;

import io.tradestore.query.ErrorCode;
import io.tradestore.query.model.AggOp;

/**
 * Aggregate calls as the model's aggregates: {@code count(*)}, {@code count(x)}, {@code count(DISTINCT x)},
 * {@code sum avg min max}, {@code first last} (by the designated timestamp), {@code arg_min(x, ts)} and
 * {@code arg_max(x, ts)}, and the nearest-rank percentiles {@code quantile_disc(x, p)}, {@code quantile(x, p)},
 * {@code approx_quantile(x, p)} and {@code percentile_disc(p) WITHIN GROUP (ORDER BY x)}, and the engine's
 * {@code vwap(price, quantity)}.
 */
final class SqlAggregates {
    /** Resolves an aggregate's argument: a column, or a product of two, by its model spelling. */
    interface Columns {
        /**
         * @param e   an argument.
         * @param pos where it is.
         * @return {@code col} or {@code a*b}.
         * @throws SqlException when it is neither.
         */
        String argument(Expression e, SqlPos pos);

        /** @return the designated timestamp column. */
        String timestampColumn();
    }

    /**
     * An aggregate of the model, without its output name.
     *
     * @param op     the model's op ({@link AggOp#jsonName()}).
     * @param col    its column or product, or null.
     * @param p      the percentile (0..100), or null.
     * @param pos    where the call is.
     * @param colPos where its argument is.
     * @param pPos   where the percentile is.
     */
    record Spec(String op, String col, Double p, SqlPos pos, SqlPos colPos, SqlPos pPos) {
        /** @return what makes two calls the same aggregate. */
        String key() {
            return op + "|" + col + "|" + p;
        }
    }

    /** The aggregate functions, as messages list them. */
    static final String NAMES = "count sum avg min max first last arg_min arg_max min_by max_by quantile_disc "
        + "quantile approx_quantile percentile_disc vwap";

    private SqlAggregates() {
    }

    /**
     * @param e        an expression.
     * @param columns  resolves arguments.
     * @param fallback where to point when the parser kept no place.
     * @return the aggregate, or null when e is not an aggregate call.
     * @throws SqlException for a window function, an aggregate the engine lacks, or wrong arguments.
     */
    static Spec of(final Expression e, final Columns columns, final SqlPos fallback) {
        final SqlPos pos = SqlPos.of(e, fallback);
        if (e instanceof AnalyticExpression a) {
            return analytic(a, columns, pos);
        }
        if (!(e instanceof Function f)) {
            return null;
        }
        final String name = f.getName().toLowerCase(Locale.ROOT);
        final ExpressionList<?> params = f.getParameters();
        final List<? extends Expression> args = params == null ? List.of() : params;
        if (f.getKeep() != null || f.getHavingClause() != null || f.getOrderByElements() != null
            || f.getLimit() != null || f.getNullHandling() != null || f.isIgnoreNulls()) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "'" + SqlFilters.echo(e) + "': ORDER BY, LIMIT, KEEP, "
                + "HAVING or IGNORE NULLS inside an aggregate call are not supported (" + pos + ")", pos);
        }
        switch (name) {
            case "count":
                if (f.isAllColumns() || args.isEmpty()
                    || args.size() == 1 && args.get(0) instanceof net.sf.jsqlparser.statement.select.AllColumns) {
                    return new Spec(AggOp.COUNT.jsonName(), null, null, pos, pos, pos);
                }
                return one(f.isDistinct() ? AggOp.COUNT_DISTINCT : AggOp.COUNT, args, columns, pos, name);
            case "sum":
                return one(AggOp.SUM, distinctless(f, args, pos), columns, pos, name);
            case "avg":
            case "mean":
                return one(AggOp.AVG, distinctless(f, args, pos), columns, pos, name);
            case "min":
                return one(AggOp.MIN, distinctless(f, args, pos), columns, pos, name);
            case "max":
                return one(AggOp.MAX, distinctless(f, args, pos), columns, pos, name);
            case "first":
                return one(AggOp.FIRST, distinctless(f, args, pos), columns, pos, name);
            case "last":
                return one(AggOp.LAST, distinctless(f, args, pos), columns, pos, name);
            case "arg_min":
            case "min_by":
            case "arg_max":
            case "max_by":
                return byTimestamp(name, distinctless(f, args, pos), columns, pos);
            case "quantile_disc":
            case "quantile":
            case "approx_quantile":
                if (args.size() != 2) {
                    throw arity(name, "(column, fraction)", pos);
                }
                return percentile(args.get(0), args.get(1), columns, pos);
            case "vwap":
                // the engine's vwap: over rows where both are present (sum(p*q)/sum(q) also counts rows without p)
                if (args.size() != 2) {
                    throw arity(name, "(price, quantity)", pos);
                }
                final SqlPos at = SqlPos.of(args.get(0), pos);
                return new Spec(AggOp.VWAP.jsonName(), columns.argument(args.get(0), at) + "*"
                    + columns.argument(args.get(1), SqlPos.of(args.get(1), pos)), null, pos, at, pos);
            case "quantile_cont":
            case "median":
            case "percentile_cont":
                throw continuous(name, pos);
            default:
                return null;
        }
    }

    private static List<? extends Expression> distinctless(final Function f, final List<? extends Expression> args,
        final SqlPos pos) {
        if (f.isDistinct()) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "DISTINCT is supported in count(DISTINCT x) only, not in "
                + f.getName() + " (" + pos + ")", pos);
        }
        return args;
    }

    private static Spec one(final AggOp op, final List<? extends Expression> args, final Columns columns,
        final SqlPos pos, final String name) {
        if (args.size() != 1) {
            throw arity(name, "(column)", pos);
        }
        final SqlPos at = SqlPos.of(args.get(0), pos);
        return new Spec(op.jsonName(), columns.argument(args.get(0), at), null, pos, at, pos);
    }

    private static Spec byTimestamp(final String name, final List<? extends Expression> args, final Columns columns,
        final SqlPos pos) {
        if (args.size() != 2) {
            throw arity(name, "(value, " + columns.timestampColumn() + ")", pos);
        }
        final SqlPos byPos = SqlPos.of(args.get(1), pos);
        final String by = columns.argument(args.get(1), byPos);
        if (!by.equals(columns.timestampColumn())) {
            throw new SqlException(ErrorCode.INVALID_QUERY, name + " is supported by the table's designated "
                + "timestamp only: " + name + "(x, " + columns.timestampColumn() + "), not by '" + by + "' (" + byPos
                + ")", byPos);
        }
        final SqlPos at = SqlPos.of(args.get(0), pos);
        final AggOp op = name.equals("arg_min") || name.equals("min_by") ? AggOp.FIRST : AggOp.LAST;
        return new Spec(op.jsonName(), columns.argument(args.get(0), at), null, pos, at, pos);
    }

    private static Spec analytic(final AnalyticExpression a, final Columns columns, final SqlPos pos) {
        final String name = a.getName().toLowerCase(Locale.ROOT);
        if (a.getType() == AnalyticType.FILTER_ONLY) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "FILTER (WHERE ...) on an aggregate is not supported; "
                + "filter the rows with WHERE (" + pos + ")", pos);
        }
        if (a.getType() != AnalyticType.WITHIN_GROUP) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "window functions (" + name + "(...) OVER ...) are not "
                + "supported (" + pos + ")", pos);
        }
        if (name.equals("percentile_cont")) {
            throw continuous(name, pos);
        }
        final List<OrderByElement> order = a.getOrderByElements();
        if (!name.equals("percentile_disc") || order == null || order.size() != 1 || !order.get(0).isAsc()
            || a.getExpression() == null) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "'" + SqlFilters.echo(a) + "' is not supported; write "
                + "percentile_disc(0.99) WITHIN GROUP (ORDER BY column) (" + pos + ")", pos);
        }
        return percentile(order.get(0).getExpression(), a.getExpression(), columns, pos);
    }

    private static Spec percentile(final Expression col, final Expression fraction, final Columns columns,
        final SqlPos pos) {
        final SqlPos pPos = SqlPos.of(fraction, pos);
        final Object v = SqlValues.value(fraction, false, pPos);
        final BigDecimal p = v instanceof Long l ? BigDecimal.valueOf(l) : v instanceof BigDecimal b ? b : null;
        if (p == null || p.signum() < 0 || p.compareTo(BigDecimal.ONE) > 0) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "a percentile is a fraction between 0 and 1 (0.99 for "
                + "the 99th), not " + SqlFilters.echo(fraction) + " (" + pPos + ")", pPos);
        }
        final SqlPos at = SqlPos.of(col, pos);
        return new Spec(AggOp.PERCENTILE.jsonName(), columns.argument(col, at),
            p.movePointRight(2).doubleValue(), pos, at, pPos);
    }

    /** @param e an argument. @return whether it is a product {@code a*b}. */
    static boolean isProduct(final Expression e) {
        return e instanceof Multiplication;
    }

    private static SqlException arity(final String name, final String args, final SqlPos pos) {
        return new SqlException(ErrorCode.INVALID_QUERY, name + " takes " + args + " (" + pos + ")", pos);
    }

    private static SqlException continuous(final String name, final SqlPos pos) {
        return new SqlException(ErrorCode.INVALID_QUERY, name + " interpolates between values, which the engine "
            + "does not; use the nearest-rank quantile_disc(x, 0.99) or percentile_disc(0.99) WITHIN GROUP "
            + "(ORDER BY x) (" + pos + ")", pos);
    }
}
