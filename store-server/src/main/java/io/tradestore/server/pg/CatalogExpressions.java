package io.tradestore.server.pg;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import net.sf.jsqlparser.expression.AnalyticExpression;
import net.sf.jsqlparser.expression.AnyComparisonExpression;
import net.sf.jsqlparser.expression.ArrayConstructor;
import net.sf.jsqlparser.expression.ArrayExpression;
import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.BooleanValue;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.CollateExpression;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.TimeKeyExpression;
import net.sf.jsqlparser.expression.TrimFunction;
import net.sf.jsqlparser.expression.WhenClause;
import net.sf.jsqlparser.expression.operators.arithmetic.Addition;
import net.sf.jsqlparser.expression.operators.arithmetic.Concat;
import net.sf.jsqlparser.expression.operators.arithmetic.Division;
import net.sf.jsqlparser.expression.operators.arithmetic.Multiplication;
import net.sf.jsqlparser.expression.operators.arithmetic.Subtraction;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.ComparisonOperator;
import net.sf.jsqlparser.expression.operators.relational.ExistsExpression;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.IsBooleanExpression;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.expression.operators.relational.LikeExpression;
import net.sf.jsqlparser.expression.operators.relational.RegExpMatchOperator;
import net.sf.jsqlparser.expression.operators.relational.RegExpMatchOperatorType;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.Select;

/**
 * Evaluates the expressions of a catalog query over a {@link CatalogRow}: literals, columns, {@code $n} parameters,
 * comparisons (with PostgreSQL's implicit casts), {@code AND OR NOT}, {@code IN}, {@code LIKE}/{@code ILIKE},
 * regular expressions ({@code ~ !~ ~*}), {@code CASE}, casts, arrays, {@code ANY}, {@code EXISTS}, scalar
 * subqueries and the functions of {@link CatalogFunctions}. Anything else is refused with its text.
 */
final class CatalogExpressions {
    private final CatalogSelect select;
    private final List<String> parameters;
    private int nextQuestionMark;
    private List<CatalogRow> group;

    /**
     * @param select     the evaluator of subqueries.
     * @param parameters the bound values of {@code $1..$n}, in text form.
     */
    CatalogExpressions(final CatalogSelect select, final List<String> parameters) {
        this.select = select;
        this.parameters = parameters;
    }

    /**
     * @param rows the rows of the group whose aggregates are evaluated next, or {@code null} outside a group.
     */
    void group(final List<CatalogRow> rows) {
        this.group = rows;
    }

    /** @return the relations of the catalog being read. */
    CatalogTables tables() {
        return select.tables();
    }

    /**
     * @param e   an expression.
     * @param row the row it is evaluated over.
     * @return its value.
     */
    Object eval(final Expression e, final CatalogRow row) {
        if (e instanceof NullValue) {
            return null;
        }
        if (e instanceof StringValue s) {
            return string(s);
        }
        if (e instanceof LongValue l) {
            return l.getValue();
        }
        if (e instanceof DoubleValue d) {
            return d.getValue();
        }
        if (e instanceof BooleanValue b) {
            return b.getValue();
        }
        if (e instanceof Column c) {
            return column(c, row);
        }
        if (e instanceof JdbcParameter p) {
            return parameter(p);
        }
        if (e instanceof ExpressionList<?> list && list.size() == 1) {
            return eval(list.get(0), row);
        }
        if (e instanceof AndExpression and) {
            final Object l = eval(and.getLeftExpression(), row);
            if (l != null && !CatalogValues.truth(l)) {
                return false;
            }
            final Object r = eval(and.getRightExpression(), row);
            if (r != null && !CatalogValues.truth(r)) {
                return false;
            }
            return l == null || r == null ? null : Boolean.TRUE;
        }
        if (e instanceof OrExpression or) {
            final Object l = eval(or.getLeftExpression(), row);
            if (CatalogValues.isTrue(l)) {
                return true;
            }
            final Object r = eval(or.getRightExpression(), row);
            if (CatalogValues.isTrue(r)) {
                return true;
            }
            return l == null || r == null ? null : Boolean.FALSE;
        }
        if (e instanceof NotExpression not) {
            final Object v = eval(not.getExpression(), row);
            return v == null ? null : !CatalogValues.truth(v);
        }
        if (e instanceof ComparisonOperator op) {
            return compare(op, row);
        }
        return evalMore(e, row);
    }

    private Object evalMore(final Expression e, final CatalogRow row) {
        if (e instanceof RegExpMatchOperator re) {
            return regex(re, row);
        }
        if (e instanceof LikeExpression like) {
            return like(like, row);
        }
        if (e instanceof InExpression in) {
            return in(in, row);
        }
        if (e instanceof IsNullExpression isNull) {
            return (eval(isNull.getLeftExpression(), row) == null) != isNull.isNot();
        }
        if (e instanceof IsBooleanExpression is) {
            final Object v = eval(is.getLeftExpression(), row);
            return (v != null && CatalogValues.truth(v) == is.isTrue()) != is.isNot();
        }
        if (e instanceof Between b) {
            final Object v = eval(b.getLeftExpression(), row);
            final Object lo = eval(b.getBetweenExpressionStart(), row);
            final Object hi = eval(b.getBetweenExpressionEnd(), row);
            if (v == null || lo == null || hi == null) {
                return null;
            }
            return (CatalogValues.compare(v, lo) >= 0 && CatalogValues.compare(v, hi) <= 0) != b.isNot();
        }
        if (e instanceof CaseExpression c) {
            return caseWhen(c, row);
        }
        if (e instanceof CastExpression cast) {
            return CatalogFunctions.cast(eval(cast.getLeftExpression(), row), castType(cast), tables());
        }
        if (e instanceof CollateExpression collate) {
            return eval(collate.getLeftExpression(), row);
        }
        if (e instanceof SignedExpression s) {
            final Object v = eval(s.getExpression(), row);
            return v == null || s.getSign() == '+' ? v : v instanceof Double d ? -d : -CatalogValues.toLong(v);
        }
        if (e instanceof Concat c) {
            final Object l = eval(c.getLeftExpression(), row);
            final Object r = eval(c.getRightExpression(), row);
            return l == null || r == null ? null : CatalogValues.text(l) + CatalogValues.text(r);
        }
        if (e instanceof Addition || e instanceof Subtraction || e instanceof Multiplication
            || e instanceof Division) {
            return arithmetic((BinaryExpression) e, row);
        }
        if (e instanceof Function f) {
            return function(f, row);
        }
        if (e instanceof TrimFunction t) {
            return trim(t, row);
        }
        if (e instanceof TimeKeyExpression t) {
            return CatalogFunctions.call(t.getStringValue().toLowerCase(Locale.ROOT), List.of(), this);
        }
        if (e instanceof ParenthesedSelect sub) {
            final CatalogRelation r = select.run(sub, row);
            if (r.rows().size() > 1) {
                throw CatalogQueries.refuse("more than one row returned by a subquery used as an expression");
            }
            return r.rows().isEmpty() ? null : r.rows().get(0)[0];
        }
        if (e instanceof ExistsExpression exists) {
            final CatalogRelation r = select.run((Select) exists.getRightExpression(), row);
            return r.rows().isEmpty() == exists.isNot();
        }
        if (e instanceof ArrayConstructor array) {
            final List<Object> values = new ArrayList<>();
            for (final Expression x : array.getExpressions()) {
                values.add(eval(x, row));
            }
            return values;
        }
        if (e instanceof ArrayExpression a && a.getIndexExpression() != null) {
            return element(eval(a.getObjExpression(), row), eval(a.getIndexExpression(), row));
        }
        if (e instanceof AnalyticExpression a) {
            return select.window(a, row);
        }
        throw CatalogQueries.refuse("the expression " + e + " is not supported in catalog queries");
    }

    private Object trim(final TrimFunction t, final CatalogRow row) {
        final Object target = eval(t.isUsingFromKeyword() || t.getFromExpression() != null ? t.getFromExpression()
            : t.getExpression(), row);
        final Object chars = t.isUsingFromKeyword() || t.getFromExpression() != null
            ? t.getExpression() == null ? " " : eval(t.getExpression(), row) : " ";
        if (target == null || chars == null) {
            return null;
        }
        final String s = CatalogValues.text(target);
        final String c = CatalogValues.text(chars);
        final TrimFunction.TrimSpecification spec = t.getTrimSpecification();
        int from = 0;
        int to = s.length();
        if (spec != TrimFunction.TrimSpecification.TRAILING) {
            while (from < to && c.indexOf(s.charAt(from)) >= 0) {
                from++;
            }
        }
        if (spec != TrimFunction.TrimSpecification.LEADING) {
            while (to > from && c.indexOf(s.charAt(to - 1)) >= 0) {
                to--;
            }
        }
        return s.substring(from, to);
    }

    private static String string(final StringValue s) {
        final String v = s.getValue().replace("''", "'");
        if (s.getPrefix() == null || !s.getPrefix().equalsIgnoreCase("E")) {
            return v;
        }
        return v.replace("\\n", "\n").replace("\\t", "\t").replace("\\'", "'").replace("\\\\", "\\");
    }

    private Object column(final Column c, final CatalogRow row) {
        final String name = c.getUnquotedColumnName().toLowerCase(Locale.ROOT);
        final String qualifier = c.getTable() == null || c.getTable().getName() == null ? null
            : c.getTable().getUnquotedName().toLowerCase(Locale.ROOT);
        for (CatalogRow r = row; r != null; r = r.outer()) {
            final int[] at = r.find(qualifier, name);
            if (at != null) {
                final Object[] values = r.values(at[0]);
                final Object v = values == null ? null : values[at[1]];
                return c.getArrayConstructor() == null ? v : subscript(v, c.getArrayConstructor(), row);
            }
        }
        if (qualifier == null) {
            switch (name) {
                case "current_user":
                case "session_user":
                case "user":
                case "current_role":
                case "current_catalog":
                case "current_schema":
                    return CatalogFunctions.call(name, List.of(), this);
                default:
                    break;
            }
        }
        throw CatalogQueries.refuse("column " + c + " does not exist in tradestore's catalog");
    }

    private Object subscript(final Object array, final ArrayConstructor index, final CatalogRow row) {
        Object v = array;
        for (final Expression i : index.getExpressions()) {
            v = element(v, eval(i, row));
        }
        return v;
    }

    private static Object element(final Object array, final Object index) {
        if (!(array instanceof List<?> list) || index == null) {
            return null;
        }
        final long i = CatalogValues.toLong(index);
        return i < 1 || i > list.size() ? null : list.get((int) i - 1);
    }

    /**
     * The type of a column an expression names, for the answer's {@code RowDescription}.
     *
     * @param c   a column.
     * @param row the row it is read from (its relations; its values may be unset).
     * @return the column's type, or {@code null} when the row has no such column.
     */
    static PgType columnType(final Column c, final CatalogRow row) {
        final String name = c.getUnquotedColumnName().toLowerCase(Locale.ROOT);
        final String qualifier = c.getTable() == null || c.getTable().getName() == null ? null
            : c.getTable().getUnquotedName().toLowerCase(Locale.ROOT);
        for (CatalogRow r = row; r != null; r = r.outer()) {
            final int[] at = r.find(qualifier, name);
            if (at != null) {
                return r.relation(at[0]).columns().get(at[1]).type();
            }
        }
        return null;
    }

    private Object parameter(final JdbcParameter p) {
        final int index = p.getIndex() != null ? p.getIndex() : ++nextQuestionMark;
        if (index < 1 || index > parameters.size()) {
            throw CatalogQueries.refuse("there is no parameter $" + index);
        }
        return parameters.get(index - 1);
    }

    private Object compare(final ComparisonOperator op, final CatalogRow row) {
        final Object l = eval(op.getLeftExpression(), row);
        final String operator = op.getStringExpression();
        if (op.getRightExpression() instanceof AnyComparisonExpression any) {
            final Object r = any.getSelect() != null ? column(select.run(any.getSelect(), row)) : null;
            return anyOf(l, operator, r);
        }
        if (op.getRightExpression() instanceof Function f && f.getName().equalsIgnoreCase("any")) {
            return anyOf(l, operator, eval(f.getParameters().get(0), row));
        }
        return compare(l, operator, eval(op.getRightExpression(), row));
    }

    private static List<Object> column(final CatalogRelation r) {
        final List<Object> values = new ArrayList<>();
        for (final Object[] v : r.rows()) {
            values.add(v[0]);
        }
        return values;
    }

    private static Object anyOf(final Object l, final String operator, final Object array) {
        if (!(array instanceof List<?> list)) {
            return null;
        }
        boolean unknown = false;
        for (final Object v : list) {
            final Object c = compare(l, operator, v);
            if (c == null) {
                unknown = true;
            } else if ((Boolean) c) {
                return true;
            }
        }
        return unknown ? null : Boolean.FALSE;
    }

    private static Object compare(final Object l, final String operator, final Object r) {
        if (l == null || r == null) {
            return null;
        }
        final int c = CatalogValues.compare(l, r);
        switch (operator) {
            case "=":
                return c == 0;
            case "<>":
            case "!=":
                return c != 0;
            case "<":
                return c < 0;
            case "<=":
                return c <= 0;
            case ">":
                return c > 0;
            case ">=":
                return c >= 0;
            default:
                throw CatalogQueries.refuse("the operator " + operator + " is not supported in catalog queries");
        }
    }

    private Object regex(final RegExpMatchOperator re, final CatalogRow row) {
        final Object l = eval(re.getLeftExpression(), row);
        final Object r = eval(re.getRightExpression(), row);
        if (l == null || r == null) {
            return null;
        }
        final RegExpMatchOperatorType type = re.getOperatorType();
        final boolean insensitive = type == RegExpMatchOperatorType.MATCH_CASEINSENSITIVE
            || type == RegExpMatchOperatorType.NOT_MATCH_CASEINSENSITIVE;
        final boolean not = type == RegExpMatchOperatorType.NOT_MATCH_CASESENSITIVE
            || type == RegExpMatchOperatorType.NOT_MATCH_CASEINSENSITIVE;
        final Pattern p = Pattern.compile(CatalogValues.text(r), insensitive ? Pattern.CASE_INSENSITIVE : 0);
        return p.matcher(CatalogValues.text(l)).find() != not;
    }

    private Object like(final LikeExpression like, final CatalogRow row) {
        final Object l = eval(like.getLeftExpression(), row);
        final Object r = eval(like.getRightExpression(), row);
        if (l == null || r == null) {
            return null;
        }
        final char escape = like.getEscape() == null ? '\\'
            : CatalogValues.text(eval(like.getEscape(), row)).charAt(0);
        final boolean insensitive = like.getLikeKeyWord() == LikeExpression.KeyWord.ILIKE;
        final Pattern p = Pattern.compile(likeRegex(CatalogValues.text(r), escape),
            Pattern.DOTALL | (insensitive ? Pattern.CASE_INSENSITIVE : 0));
        return p.matcher(CatalogValues.text(l)).matches() != like.isNot();
    }

    /**
     * @param pattern a {@code LIKE} pattern.
     * @param escape  its escape character.
     * @return the same pattern as a Java regular expression.
     */
    static String likeRegex(final String pattern, final char escape) {
        final StringBuilder s = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            final char c = pattern.charAt(i);
            if (c == escape && i + 1 < pattern.length()) {
                s.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
            } else if (c == '%') {
                s.append(".*");
            } else if (c == '_') {
                s.append('.');
            } else {
                s.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return s.toString();
    }

    private Object in(final InExpression in, final CatalogRow row) {
        final Object l = eval(in.getLeftExpression(), row);
        final List<Object> values = new ArrayList<>();
        if (in.getRightExpression() instanceof Select sub) {
            values.addAll(column(select.run(sub, row)));
        } else if (in.getRightExpression() instanceof ExpressionList<?> list) {
            for (final Expression x : list) {
                values.add(eval(x, row));
            }
        } else {
            values.add(eval(in.getRightExpression(), row));
        }
        final Object any = anyOf(l, "=", values);
        return any == null ? null : (Boolean) any != in.isNot();
    }

    private Object caseWhen(final CaseExpression c, final CatalogRow row) {
        final Object switched = c.getSwitchExpression() == null ? null : eval(c.getSwitchExpression(), row);
        for (final WhenClause w : c.getWhenClauses()) {
            final Object when = eval(w.getWhenExpression(), row);
            final boolean hit = c.getSwitchExpression() == null ? CatalogValues.isTrue(when)
                : Boolean.TRUE.equals(CatalogValues.equal(switched, when));
            if (hit) {
                return eval(w.getThenExpression(), row);
            }
        }
        return c.getElseExpression() == null ? null : eval(c.getElseExpression(), row);
    }

    private Object arithmetic(final BinaryExpression e, final CatalogRow row) {
        final Object l = eval(e.getLeftExpression(), row);
        final Object r = eval(e.getRightExpression(), row);
        if (l == null || r == null) {
            return null;
        }
        final long a = CatalogValues.toLong(l);
        final long b = CatalogValues.toLong(r);
        if (e instanceof Addition) {
            return a + b;
        }
        if (e instanceof Subtraction) {
            return a - b;
        }
        if (e instanceof Multiplication) {
            return a * b;
        }
        if (b == 0) {
            throw CatalogQueries.refuse("division by zero");
        }
        return a / b;
    }

    private Object function(final Function f, final CatalogRow row) {
        final String name = functionName(f);
        if (CatalogGroups.AGGREGATES.contains(name)) {
            if (group == null) {
                throw CatalogQueries.refuse("the aggregate " + name + "() is supported in a select list only");
            }
            final List<CatalogRow> rows = group;
            group = null;
            try {
                return CatalogGroups.aggregate(name, f, rows, this);
            } finally {
                group = rows;
            }
        }
        final List<Object> args = new ArrayList<>();
        if (f.getParameters() != null) {
            for (final Expression x : f.getParameters()) {
                if (x instanceof Select sub) {
                    args.add(column(select.run(sub, row)));
                } else {
                    args.add(eval(x, row));
                }
            }
        }
        return CatalogFunctions.call(name, args, this);
    }

    /**
     * @param f a function call.
     * @return its name in lower case, without a {@code pg_catalog.} qualifier.
     */
    static String functionName(final Function f) {
        final List<String> parts = f.getMultipartName();
        return parts.get(parts.size() - 1).replace("\"", "").toLowerCase(Locale.ROOT);
    }

    /**
     * @param cast a cast.
     * @return its target type's name in lower case, without a {@code pg_catalog.} qualifier, with {@code []} for an
     *         array.
     */
    static String castType(final CastExpression cast) {
        String t = cast.getColDataType().getDataType().toLowerCase(Locale.ROOT).replace("\"", "");
        if (t.startsWith("pg_catalog.")) {
            t = t.substring("pg_catalog.".length());
        }
        final List<Integer> array = cast.getColDataType().getArrayData();
        return array != null && !array.isEmpty() ? t + "[]" : t;
    }
}
