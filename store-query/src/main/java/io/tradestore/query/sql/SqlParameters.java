package io.tradestore.query.sql;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.JdbcParameter;

import io.tradestore.core.StoreException;
import io.tradestore.query.ErrorCode;

/**
 * The values of a statement's {@code $1 .. $n} placeholders, bound where a literal would be: the value compared in
 * {@code WHERE} and {@code HAVING} ({@code = <> < <= > >=}, {@code IN}, {@code BETWEEN}) and the counts of
 * {@code LIMIT} and {@code OFFSET}. The text with its placeholders is parsed once (the parse cache keys it by its
 * text, which does not change from one execution to the next); each execution translates the cached parse with its
 * own values, so a prepared statement never costs a parse again.
 *
 * <p>A value is a {@code Long}, a {@code BigDecimal} or a {@code String}; a String is read by what it is compared
 * with: a timestamp (ISO-8601, as a string literal would be), a number, or the text of a symbol or char. A Long
 * compared with a timestamp is epoch nanoseconds. Describing a statement before its values are known
 * ({@link #describing()}) binds a neutral value of the compared column's type and notes each placeholder's type.
 */
public final class SqlParameters {
    /** What a placeholder is compared with, as found while translating. */
    public enum Kind {
        /** Not used where the translation could tell (or not used at all). */
        UNKNOWN,
        /** A count: {@code LIMIT}, {@code OFFSET}. */
        INTEGER,
        /** A number column or aggregate. */
        NUMBER,
        /** A timestamp column. */
        TIMESTAMP,
        /** A symbol or char column. */
        TEXT
    }

    /** No values: a placeholder in the text is refused. */
    public static final SqlParameters NONE = new SqlParameters(List.of(), false);

    private final List<Object> values;
    private final boolean describing;
    private Kind[] kinds = new Kind[0];

    private SqlParameters(final List<Object> values, final boolean describing) {
        this.values = values;
        this.describing = describing;
    }

    /**
     * @param values {@code $1}'s value first: Long, BigDecimal, String, or null for SQL NULL.
     * @return the parameters.
     */
    public static SqlParameters of(final List<?> values) {
        return new SqlParameters(new ArrayList<>(values), false);
    }

    /**
     * @return parameters for describing a statement: every placeholder takes a neutral value of its column's type,
     *     and {@link #kind(int)} tells afterwards what each was compared with. One per translation.
     */
    public static SqlParameters describing() {
        return new SqlParameters(List.of(), true);
    }

    /**
     * @param index 0 for {@code $1}.
     * @return what the placeholder was compared with in the last translation made with these parameters.
     */
    public Kind kind(final int index) {
        return index < kinds.length && kinds[index] != null ? kinds[index] : Kind.UNKNOWN;
    }

    /** @return one more than the highest placeholder index the last translation met ({@code $3}: 3). */
    public int seen() {
        return kinds.length;
    }

    /**
     * @param e an expression.
     * @return whether it is a placeholder, {@code $n} or {@code $n::type} (the cast is left to the compared column).
     */
    static boolean isParameter(final Expression e) {
        return e instanceof JdbcParameter
            || e instanceof CastExpression c && c.getLeftExpression() instanceof JdbcParameter;
    }

    /**
     * @param e         a placeholder ({@link #isParameter}).
     * @param timestamp whether it is compared with a timestamp.
     * @param text      whether it is compared with a symbol or char.
     * @param pos       where it is.
     * @return the model value.
     */
    Object compared(final Expression e, final boolean timestamp, final boolean text, final SqlPos pos) {
        final int i = index(e, pos);
        note(i, timestamp ? Kind.TIMESTAMP : text ? Kind.TEXT : Kind.NUMBER);
        if (describing) {
            return text ? "A" : (Object) 0L;
        }
        final Object v = bound(i, pos);
        if (timestamp) {
            if (v instanceof Long) {
                return v;
            }
            final Long nanos = v instanceof String s ? SqlValues.isoNanos(s) : null;
            if (nanos == null) {
                throw new SqlException(ErrorCode.INVALID_QUERY, "$" + (i + 1) + " is compared with a timestamp, but "
                    + "its value '" + StoreException.echo(String.valueOf(v)) + "' is not one such as "
                    + "'2026-11-18 09:00:00+00' (" + pos + ")", pos);
            }
            return nanos;
        }
        if (text) {
            return v instanceof BigDecimal b ? b.toPlainString() : v.toString();
        }
        return v instanceof String s ? number(s, i, pos) : v;
    }

    /**
     * @param e   a placeholder in {@code LIMIT} or {@code OFFSET}.
     * @param pos where it is.
     * @return its value: a Long, a BigDecimal or a String (the caller checks the range); 0 when describing.
     */
    Object count(final Expression e, final SqlPos pos) {
        final int i = index(e, pos);
        note(i, Kind.INTEGER);
        if (describing) {
            return 0L;
        }
        final Object v = bound(i, pos);
        return v instanceof String s ? number(s, i, pos) : v;
    }

    private int index(final Expression e, final SqlPos pos) {
        final JdbcParameter p = (JdbcParameter) (e instanceof CastExpression c ? c.getLeftExpression() : e);
        // '?' is numbered by the parser in the order written, as JDBC numbers it
        final int i = p.getIndex() == null ? -1 : p.getIndex() - 1;
        if (i < 0 || i >= 65_535) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "placeholders are $1 to $65535 (" + pos + ")", pos);
        }
        return i;
    }

    private void note(final int i, final Kind kind) {
        if (i >= kinds.length) {
            kinds = Arrays.copyOf(kinds, i + 1);
        }
        if (kinds[i] == null || kinds[i] == Kind.UNKNOWN) {
            kinds[i] = kind;
        }
    }

    private Object bound(final int i, final SqlPos pos) {
        if (i >= values.size()) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "$" + (i + 1) + " has no value: " + values.size()
                + " were bound (" + pos + ")", pos);
        }
        final Object v = values.get(i);
        if (v == null) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "$" + (i + 1) + " is NULL, and a comparison with NULL is "
                + "never true (" + pos + ")", pos);
        }
        return v;
    }

    private static Object number(final String s, final int i, final SqlPos pos) {
        final String t = s.strip();
        try {
            if (t.indexOf('.') < 0 && t.indexOf('e') < 0 && t.indexOf('E') < 0) {
                final BigInteger b = new BigInteger(t);
                return b.bitLength() < 64 ? (Object) b.longValue() : b;
            }
            return new BigDecimal(t);
        } catch (final NumberFormatException e) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "$" + (i + 1) + " is compared with a number, but its "
                + "value '" + StoreException.echo(s) + "' is not one (" + pos + ")", pos);
        }
    }
}
