package io.tradestore.query.sql;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.DateTimeLiteralExpression;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.IntervalExpression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.TimeKeyExpression;
import net.sf.jsqlparser.expression.operators.arithmetic.Addition;
import net.sf.jsqlparser.expression.operators.arithmetic.Subtraction;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;

import io.tradestore.core.StoreException;
import io.tradestore.query.ErrorCode;

/**
 * SQL literals as the query model's values: integers as Long (BigInteger beyond 64 bits), other numbers as exact
 * BigDecimal, strings as String, and timestamps ({@code TIMESTAMP '...'}, ISO strings, {@code now()}, plus or minus
 * an {@code INTERVAL}) as epoch nanoseconds, UTC; and intervals as bucket widths.
 */
final class SqlValues {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final Pattern INTERVAL_PART = Pattern.compile("\\s*([0-9]+(?:\\.[0-9]+)?)\\s*([a-z]+)\\s*");
    /** Days from the epoch to 2000-01-03, DuckDB's origin of {@code time_bucket} for widths without months. */
    static final long DUCKDB_ORIGIN_NANOS = 10_959L * 86_400L * NANOS_PER_SECOND;

    private SqlValues() {
    }

    /**
     * An interval: whole months, or nanoseconds (never both).
     *
     * @param months months (years are twelve).
     * @param nanos  nanoseconds.
     */
    record Interval(long months, long nanos) {
        /** @return the bucket width in the query model's spelling ({@code 300000000000ns}, {@code P3M}). */
        String bucket() {
            return months > 0 ? "P" + months + "M" : nanos + "ns";
        }
    }

    /**
     * @param e   a literal.
     * @param ts  whether it is compared with a timestamp column (strings are then read as timestamps).
     * @param pos where it is.
     * @return the model value.
     * @throws SqlException INVALID_QUERY when it is not a literal the model has.
     */
    static Object value(final Expression e, final boolean ts, final SqlPos pos) {
        if (e instanceof LongValue l) {
            final BigInteger b = new BigInteger(l.getStringValue());
            return b.bitLength() < 64 ? (Object) b.longValue() : b;
        }
        if (e instanceof DoubleValue) {
            return decimal(e.toString(), pos);
        }
        if (e instanceof SignedExpression s && s.getSign() == '-' && isNumber(s.getExpression())) {
            final Object v = value(s.getExpression(), false, pos);
            if (v instanceof Long l && l != Long.MIN_VALUE) {
                return -l;
            }
            return v instanceof BigInteger b ? negate(b) : ((BigDecimal) v).negate();
        }
        if (e instanceof SignedExpression s && s.getSign() == '+' && isNumber(s.getExpression())) {
            return value(s.getExpression(), false, pos);
        }
        if (e instanceof StringValue s) {
            final String text = text(s);
            if (ts) {
                final Long nanos = isoNanos(text);
                return nanos != null ? nanos : text;
            }
            return text;
        }
        if (e instanceof ParenthesedExpressionList<?> p && p.size() == 1) {
            return value(p.get(0), ts, pos);
        }
        if (e instanceof NullValue) {
            throw new SqlException(ErrorCode.INVALID_QUERY,
                "a comparison with NULL is never true; write IS NOT NULL (" + pos + ")", pos);
        }
        if (isTimestamp(e)) {
            return timestamp(e, pos);
        }
        if (e instanceof CastExpression c) {
            return cast(c, ts, pos);
        }
        throw new SqlException(ErrorCode.INVALID_QUERY, "'" + StoreException.echo(e.toString())
            + "' is not a value: comparisons are between a column and a number, a string or a timestamp (" + pos
            + ")", pos);
    }

    /**
     * A literal cast to a number or text type, as clients that bind values into the text write them
     * ({@code '60.5'::numeric}, {@code 42::int8}, {@code 'XLON'::varchar}).
     */
    private static Object cast(final CastExpression c, final boolean ts, final SqlPos pos) {
        final String type = c.getColDataType().getDataType().toLowerCase(Locale.ROOT);
        final Object v = value(c.getLeftExpression(), ts, pos);
        if (type.startsWith("int") || type.equals("bigint") || type.equals("smallint")
            || type.startsWith("numeric") || type.startsWith("decimal") || type.startsWith("float")
            || type.startsWith("double") || type.equals("real")) {
            if (v instanceof String s) {
                final BigDecimal d = decimal(s.strip(), pos);
                if (d.scale() <= 0 && d.precision() - d.scale() < 19) {
                    return d.longValueExact();
                }
                return d;
            }
            return v;
        }
        if (type.startsWith("timestamp") || type.equals("date")) {
            return v instanceof String s ? literal(s, pos) : v;
        }
        if (type.equals("text") || type.startsWith("varchar") || type.startsWith("char")
            || type.startsWith("character") || type.equals("name") || type.equals("bpchar")) {
            return v instanceof BigDecimal b ? b.toPlainString() : v.toString();
        }
        throw new SqlException(ErrorCode.INVALID_QUERY, "a cast to " + StoreException.echo(type) + " is not "
            + "supported; casts of a literal to a number, text or timestamp type are (" + pos + ")", pos);
    }

    private static Object negate(final BigInteger b) {
        final BigInteger n = b.negate();
        return n.bitLength() < 64 ? (Object) n.longValue() : n;
    }

    /** @param e an expression. @return whether it is a number literal. */
    static boolean isNumber(final Expression e) {
        return e instanceof LongValue || e instanceof DoubleValue;
    }

    private static BigDecimal decimal(final String text, final SqlPos pos) {
        try {
            return new BigDecimal(text);
        } catch (final NumberFormatException | ArithmeticException ex) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "the number " + StoreException.echo(text)
                + " is out of range (" + pos + ")", pos);
        }
    }

    /** @param s a string literal. @return its text, quotes undone. */
    static String text(final StringValue s) {
        return s.getValue().replace("''", "'");
    }

    /** @param e an expression. @return whether it is a timestamp the translation can compute. */
    static boolean isTimestamp(final Expression e) {
        if (e instanceof CastExpression c) {
            final String type = c.getColDataType().getDataType().toUpperCase(Locale.ROOT);
            return c.getLeftExpression() instanceof StringValue
                && (type.startsWith("TIMESTAMP") || type.equals("DATE"));
        }
        if (e instanceof DateTimeLiteralExpression || e instanceof TimeKeyExpression) {
            return true;
        }
        if (e instanceof Function f) {
            final String name = f.getName().toLowerCase(Locale.ROOT);
            return (name.equals("now") || name.equals("current_timestamp")) && f.getParameters() == null
                || name.equals("to_timestamp") && f.getParameters() != null && f.getParameters().size() == 1
                && isNumber(f.getParameters().get(0));
        }
        if (e instanceof Addition || e instanceof Subtraction) {
            final net.sf.jsqlparser.expression.BinaryExpression b = (net.sf.jsqlparser.expression.BinaryExpression) e;
            return isTimestamp(b.getLeftExpression()) && b.getRightExpression() instanceof IntervalExpression;
        }
        return false;
    }

    /**
     * @param e   a timestamp expression ({@link #isTimestamp}).
     * @param pos where it is.
     * @return epoch nanoseconds, UTC.
     */
    static long timestamp(final Expression e, final SqlPos pos) {
        if (e instanceof CastExpression c) {
            return literal(text((StringValue) c.getLeftExpression()), SqlPos.of(c, pos));
        }
        if (e instanceof DateTimeLiteralExpression d) {
            final String v = d.getValue();
            return literal(v.length() > 1 && v.startsWith("'") ? v.substring(1, v.length() - 1) : v, pos);
        }
        if (e instanceof TimeKeyExpression k && !k.getStringValue().toUpperCase(Locale.ROOT).startsWith(
            "CURRENT_TIMESTAMP")) {
            throw new SqlException(ErrorCode.INVALID_QUERY, StoreException.echo(k.getStringValue())
                + " is not supported; use now() or CURRENT_TIMESTAMP (" + pos + ")", pos);
        }
        if (e instanceof Function f && f.getParameters() != null) {
            // to_timestamp(epoch seconds), as Grafana's users write with $__unixEpochFrom()
            return epochSeconds(f.getParameters().get(0), SqlPos.of(f, pos));
        }
        if (e instanceof Function || e instanceof TimeKeyExpression) {
            final Instant now = Instant.now();
            return Math.addExact(Math.multiplyExact(now.getEpochSecond(), NANOS_PER_SECOND), now.getNano());
        }
        final net.sf.jsqlparser.expression.BinaryExpression b = (net.sf.jsqlparser.expression.BinaryExpression) e;
        final long base = timestamp(b.getLeftExpression(), pos);
        final Interval i = interval(b.getRightExpression(), SqlPos.of(b.getRightExpression(), pos));
        final int sign = e instanceof Addition ? 1 : -1;
        if (i.months() > 0) {
            final OffsetDateTime t = Instant.ofEpochSecond(Math.floorDiv(base, NANOS_PER_SECOND),
                Math.floorMod(base, NANOS_PER_SECOND)).atOffset(ZoneOffset.UTC).plusMonths(sign * i.months());
            return nanos(t.toInstant(), pos);
        }
        return base + sign * i.nanos();
    }

    /**
     * @param e   a number literal of epoch seconds.
     * @param pos where it is.
     * @return epoch nanoseconds.
     * @throws SqlException INVALID_QUERY when it has more than nine decimals or is outside the nanosecond range.
     */
    static long epochSeconds(final Expression e, final SqlPos pos) {
        final BigDecimal nanos = new BigDecimal(String.valueOf(e)).movePointRight(9);
        try {
            return nanos.longValueExact();
        } catch (final ArithmeticException ex) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "epoch seconds " + StoreException.echo(String.valueOf(e))
                + " are not a whole number of nanoseconds within years 1677-2262 (" + pos + ")", pos);
        }
    }

    private static long literal(final String text, final SqlPos pos) {
        final Long nanos = isoNanos(text);
        if (nanos == null) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "'" + StoreException.echo(text)
                + "' is not a timestamp such as '2026-11-18 09:00:00' or '2026-11-18T09:00:00.000441Z' (" + pos + ")",
                pos);
        }
        return nanos;
    }

    /**
     * @param text a date, a date and time (UTC when no zone is given, as DuckDB's TIMESTAMP), or either with a zone.
     * @return epoch nanoseconds, or null when the text is not such a timestamp.
     */
    static Long isoNanos(final String text) {
        final String spaced = text.strip();
        // PostgreSQL writes a whole-hour offset as +00 (timestamptz's text form): ISO-8601 wants +00:00
        final int n = spaced.length();
        final boolean shortOffset = n > 13 && (spaced.charAt(n - 3) == '+' || spaced.charAt(n - 3) == '-')
            && Character.isDigit(spaced.charAt(n - 2)) && Character.isDigit(spaced.charAt(n - 1))
            && spaced.indexOf(':') > 0;
        final String t = (shortOffset ? spaced + ":00" : spaced).replace(' ', 'T');
        try {
            if (t.length() <= 10) {
                return nanos(LocalDate.parse(t).atStartOfDay().toInstant(ZoneOffset.UTC), SqlPos.START);
            }
            final char last = t.charAt(t.length() - 1);
            final boolean zoned = last == 'Z' || last == 'z' || t.lastIndexOf('+') > 10 || t.lastIndexOf('-') > 10;
            final Instant i = zoned ? OffsetDateTime.parse(t.replace('z', 'Z').replaceFirst("T([+-])", "$1"))
                .toInstant() : LocalDateTime.parse(t).toInstant(ZoneOffset.UTC);
            return nanos(i, SqlPos.START);
        } catch (final DateTimeException | ArithmeticException | SqlException e) {
            return null;
        }
    }

    private static long nanos(final Instant i, final SqlPos pos) {
        try {
            return Math.addExact(Math.multiplyExact(i.getEpochSecond(), NANOS_PER_SECOND), i.getNano());
        } catch (final ArithmeticException e) {
            throw new SqlException(ErrorCode.INVALID_QUERY,
                "the timestamp is outside the nanosecond range (years 1677-2262) (" + pos + ")", pos);
        }
    }

    /**
     * @param e   {@code INTERVAL '5 minutes'}, {@code INTERVAL '5' MINUTE} or {@code INTERVAL 5 MINUTE}.
     * @param pos where it is.
     * @return the interval.
     * @throws SqlException INVALID_QUERY for anything else, or an interval mixing months with days or time.
     */
    static Interval interval(final Expression e, final SqlPos pos) {
        if (!(e instanceof IntervalExpression i)) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "expected an interval such as INTERVAL '5 minutes', not '"
                + StoreException.echo(String.valueOf(e)) + "' (" + pos + ")", pos);
        }
        String text = i.getParameter() != null ? i.getParameter() : String.valueOf(i.getExpression());
        if (text.length() > 1 && text.startsWith("'") && text.endsWith("'")) {
            text = text.substring(1, text.length() - 1);
        }
        if (i.getIntervalType() != null) {
            text = text + " " + i.getIntervalType();
        }
        return interval(text.toLowerCase(Locale.ROOT), pos);
    }

    /**
     * @param text {@code 5 minutes}, {@code 1 hour 30 minutes}, {@code 3 months}.
     * @param pos  where it is.
     * @return the interval.
     */
    static Interval interval(final String text, final SqlPos pos) {
        final Matcher m = INTERVAL_PART.matcher(text);
        long months = 0;
        BigDecimal nanos = BigDecimal.ZERO;
        int at = 0;
        while (at < text.length() && m.find(at) && m.start() == at) {
            final BigDecimal n = new BigDecimal(m.group(1));
            final String unit = m.group(2);
            final long perUnit = unitNanos(unit);
            if (perUnit > 0) {
                nanos = nanos.add(n.multiply(BigDecimal.valueOf(perUnit)));
            } else {
                final long perMonths = unitMonths(unit);
                if (perMonths == 0 || n.scale() > 0 && n.stripTrailingZeros().scale() > 0) {
                    throw badInterval(text, pos);
                }
                months += n.longValueExact() * perMonths;
            }
            at = m.end();
        }
        if (at != text.length() || at == 0) {
            throw badInterval(text, pos);
        }
        if (months > 0 && nanos.signum() != 0) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "the interval '" + StoreException.echo(text)
                + "' mixes months or years with days or time, which has no fixed width or alignment (" + pos + ")",
                pos);
        }
        if (months == 0 && (nanos.signum() <= 0 || nanos.stripTrailingZeros().scale() > 0
            || nanos.toBigInteger().bitLength() > 62)) {
            throw badInterval(text, pos);
        }
        return new Interval(months, months > 0 ? 0 : nanos.longValueExact());
    }

    private static SqlException badInterval(final String text, final SqlPos pos) {
        return new SqlException(ErrorCode.INVALID_QUERY, "'" + StoreException.echo(text) + "' is not an interval the"
            + " engine has: a positive whole number of nanoseconds up to days (INTERVAL '5 minutes', INTERVAL '250"
            + " milliseconds'), or of months or years (INTERVAL '3 months') (" + pos + ")", pos);
    }

    private static long unitNanos(final String unit) {
        switch (unit) {
            case "ns": case "nanosecond": case "nanoseconds":
                return 1;
            case "us": case "microsecond": case "microseconds":
                return 1_000;
            case "ms": case "millisecond": case "milliseconds":
                return 1_000_000;
            case "s": case "sec": case "secs": case "second": case "seconds":
                return NANOS_PER_SECOND;
            case "m": case "min": case "mins": case "minute": case "minutes":
                return 60 * NANOS_PER_SECOND;
            case "h": case "hour": case "hours":
                return 3_600 * NANOS_PER_SECOND;
            case "d": case "day": case "days":
                return 86_400 * NANOS_PER_SECOND;
            case "w": case "week": case "weeks":
                return 7 * 86_400 * NANOS_PER_SECOND;
            default:
                return 0;
        }
    }

    private static long unitMonths(final String unit) {
        switch (unit) {
            case "mon": case "mons": case "month": case "months":
                return 1;
            case "quarter": case "quarters":
                return 3;
            case "y": case "year": case "years":
                return 12;
            default:
                return 0;
        }
    }
}
