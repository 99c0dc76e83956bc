package io.tradestore.server.pg;

import java.util.Locale;

import net.sf.jsqlparser.expression.AnalyticExpression;
import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.BooleanValue;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.TimeKeyExpression;
import net.sf.jsqlparser.expression.TrimFunction;
import net.sf.jsqlparser.expression.operators.arithmetic.Addition;
import net.sf.jsqlparser.expression.operators.arithmetic.Division;
import net.sf.jsqlparser.expression.operators.arithmetic.Multiplication;
import net.sf.jsqlparser.expression.operators.arithmetic.Subtraction;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.relational.ComparisonOperator;
import net.sf.jsqlparser.expression.operators.relational.ExistsExpression;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.expression.operators.relational.LikeExpression;
import net.sf.jsqlparser.expression.operators.relational.RegExpMatchOperator;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.SelectItem;

/** The names and types PostgreSQL gives the columns of a query's answer, from its select list. */
final class CatalogNames {
    private CatalogNames() {
    }

    /**
     * @param item   a select-list item.
     * @param select the evaluator, for a subquery's name.
     * @return its column's name: the alias (folded to lower case unless quoted), else PostgreSQL's name for it.
     */
    static String name(final SelectItem<?> item, final CatalogSelect select) {
        if (item.getAlias() != null) {
            final String a = item.getAlias().getName();
            return a.startsWith("\"") ? item.getAlias().getUnquotedName() : a.toLowerCase(Locale.ROOT);
        }
        return name(item.getExpression(), select);
    }

    private static String name(final Expression e, final CatalogSelect select) {
        if (e instanceof Column c) {
            final String n = c.getColumnName();
            return n.startsWith("\"") ? c.getUnquotedColumnName() : n.toLowerCase(Locale.ROOT);
        }
        if (e instanceof Function f) {
            return CatalogExpressions.functionName(f);
        }
        if (e instanceof AnalyticExpression a) {
            return a.getName().toLowerCase(Locale.ROOT);
        }
        if (e instanceof CastExpression cast) {
            final String inner = name(cast.getLeftExpression(), select);
            if (!inner.equals("?column?")) {
                return inner;
            }
            final String t = CatalogExpressions.castType(cast);
            return t.endsWith("[]") ? t.substring(0, t.length() - 2) : t;
        }
        if (e instanceof CaseExpression) {
            return "case";
        }
        if (e instanceof TrimFunction t) {
            return t.getTrimSpecification() == TrimFunction.TrimSpecification.LEADING ? "ltrim"
                : t.getTrimSpecification() == TrimFunction.TrimSpecification.TRAILING ? "rtrim" : "btrim";
        }
        if (e instanceof ExistsExpression) {
            return "exists";
        }
        if (e instanceof TimeKeyExpression t) {
            return t.getStringValue().toLowerCase(Locale.ROOT);
        }
        if (e instanceof ParenthesedSelect p) {
            return select.subqueryName(p.getSelect());
        }
        if (e instanceof ExpressionList<?> list && list.size() == 1) {
            return name(list.get(0), select);
        }
        return "?column?";
    }

    /**
     * @param e     a select-list expression.
     * @param shape the row it is evaluated over (its relations).
     * @return the type of its values.
     */
    static PgType type(final Expression e, final CatalogRow shape) {
        if (e instanceof Column c) {
            final PgType t = CatalogExpressions.columnType(c, shape);
            return t != null ? t : CatalogFunctions.type(c.getUnquotedColumnName().toLowerCase(Locale.ROOT));
        }
        if (e instanceof Function f) {
            return CatalogFunctions.type(CatalogExpressions.functionName(f));
        }
        if (e instanceof CastExpression cast) {
            return CatalogFunctions.castType(CatalogExpressions.castType(cast));
        }
        if (e instanceof LongValue l) {
            return l.getValue() == (int) l.getValue() ? PgType.INT4 : PgType.INT8;
        }
        if (e instanceof AnalyticExpression) {
            return PgType.INT8;
        }
        if (e instanceof Addition || e instanceof Subtraction || e instanceof Multiplication
            || e instanceof Division) {
            final PgType left = type(((BinaryExpression) e).getLeftExpression(), shape);
            final PgType right = type(((BinaryExpression) e).getRightExpression(), shape);
            return left == PgType.INT8 || right == PgType.INT8 ? PgType.INT8 : PgType.INT4;
        }
        if (e instanceof BooleanValue || e instanceof ComparisonOperator || e instanceof AndExpression
            || e instanceof OrExpression || e instanceof NotExpression || e instanceof InExpression
            || e instanceof LikeExpression || e instanceof RegExpMatchOperator || e instanceof IsNullExpression
            || e instanceof ExistsExpression) {
            return PgType.BOOL;
        }
        if (e instanceof CaseExpression c && !c.getWhenClauses().isEmpty()) {
            return type(c.getWhenClauses().get(0).getThenExpression(), shape);
        }
        if (e instanceof ExpressionList<?> list && list.size() == 1) {
            return type(list.get(0), shape);
        }
        return PgType.TEXT;
    }
}
