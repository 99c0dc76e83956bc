package io.tradestore.query.plan;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.Period;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import io.tradestore.core.StoreException;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;

/**
 * Reads query literals exactly: decimal numbers and text, timestamps (ISO-8601 or epoch nanoseconds), bucket widths
 * and calendar buckets, and having's values by their output column's type.
 */
public final class Literals {
    private Literals() {
    }

    private static final Pattern SHORT_DURATION = Pattern.compile("(\\d+)(ns|us|ms|s|m|h|d)");

    static long clamp(final BigDecimal x) {
        if (x.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            return Long.MAX_VALUE;
        }
        if (x.compareTo(BigDecimal.valueOf(Long.MIN_VALUE + 1)) < 0) {
            return Long.MIN_VALUE + 1;
        }
        return x.longValueExact();
    }

    static BigDecimal number(final Object v, final Column c, final String p) {
        final boolean integral = c.type() != ColumnType.DECIMAL && c.type() != ColumnType.F64;
        final BigDecimal d;
        if (v instanceof Long) {
            d = BigDecimal.valueOf((Long) v);
        } else if (v instanceof Integer) {
            d = BigDecimal.valueOf((Integer) v);
        } else if (v instanceof BigInteger) {
            d = new BigDecimal((BigInteger) v);
        } else if (v instanceof BigDecimal) {
            d = (BigDecimal) v;
        } else if (v instanceof Double || v instanceof Float) {
            if (c.type() == ColumnType.DECIMAL) {
                throw Binder.invalid(p,
                    "decimal values are given as JSON numbers or strings, never as Java doubles; "
                        + "use BigDecimal or a String");
            }
            d = new BigDecimal(((Number) v).doubleValue());
        } else if (v instanceof String && c.type() == ColumnType.DECIMAL) {
            d = decimalText((String) v, p, "a decimal number for column '" + c.name() + "' (" + c.typeName() + ")");
        } else {
            throw Binder.invalid(p, "column '" + c.name() + "' is " + c.typeName() + ": values are "
                + (c.type() == ColumnType.DECIMAL ? "numbers or decimal strings" : integral ? "integers" : "numbers"));
        }
        if (integral && d.signum() != 0 && d.stripTrailingZeros().scale() > 0) {
            throw Binder.invalid(p, "column '" + c.name() + "' is " + c.typeName() + ": values are integers, not "
                + d.toString());
        }
        return c.type() == ColumnType.F64 ? d : tame(d);
    }

    /**
     * The longest decimal text read, as for a JSON number (Jackson's default limit): reading is quadratic in its
     * length.
     */
    static final int MAX_DECIMAL_TEXT_LENGTH = 1000;

    /**
     * Reads a decimal given as a string.
     *
     * @param v    the text.
     * @param p    JSON path.
     * @param what what it must be, for the message.
     * @return its exact value.
     */
    static BigDecimal decimalText(final String v, final String p, final String what) {
        final String t = v.trim();
        if (t.length() > MAX_DECIMAL_TEXT_LENGTH) {
            throw Binder.invalid(p, "a string of " + t.length() + " characters is not " + what
                + "; decimal strings have at most "
                + MAX_DECIMAL_TEXT_LENGTH + " characters");
        }
        try {
            return new BigDecimal(t);
        } catch (final NumberFormatException e) {
            throw Binder.invalid(p, "'" + StoreException.echo(v) + "' is not " + what);
        }
    }

    /** Beyond every long mantissa of every decimal scale (0-18), with room for the scale. */
    private static final BigDecimal HUGE = BigDecimal.ONE.scaleByPowerOfTen(40);
    /** Below every nonzero decimal of every scale. */
    private static final int TINY_SCALE = 60;

    /**
     * Brings a literal with an extreme exponent ({@code 1e1000000000}, {@code 1e-1000000000}) within ±1e40 and at most
     * 60 fraction digits below its first digit, keeping how it compares with every integer mantissa of every scale:
     * moving its point or rounding it to an integer would otherwise compute ten to the power of its exponent (a
     * BigInteger overflow, or seconds of work per literal).
     *
     * @param d a literal for an integer or decimal column.
     * @return an equivalent literal of bounded size.
     */
    static BigDecimal tame(final BigDecimal d) {
        if (d.compareTo(HUGE) > 0) {
            return HUGE;
        }
        if (d.compareTo(HUGE.negate()) < 0) {
            return HUGE.negate();
        }
        if (d.signum() != 0 && (long) d.scale() - d.precision() > TINY_SCALE) {
            // |d| < 1e-60: as far from every mantissa as any such value, and still on its side of zero
            return BigDecimal.valueOf(d.signum(), TINY_SCALE);
        }
        return d;
    }

    /**
     * @param v an ISO-8601 string ({@code 2026-11-17T10:00:00Z}, an offset, or a date) or epoch nanoseconds.
     * @param p JSON path.
     * @return epoch nanoseconds.
     */
    public static long timestamp(final Object v, final String p) {
        if (v instanceof Long || v instanceof Integer) {
            return ((Number) v).longValue();
        }
        if (v instanceof String) {
            final String s = ((String) v).trim();
            final long fast = utc(s);
            if (fast != Long.MIN_VALUE) {
                return fast;
            }
            Instant i;
            try {
                i = OffsetDateTime.parse(s).toInstant();
            } catch (final DateTimeParseException e) {
                try {
                    i = LocalDate.parse(s).atStartOfDay().toInstant(ZoneOffset.UTC);
                } catch (final DateTimeParseException e2) {
                    throw Binder.invalid(p, zoneless(s) ? "'" + s
                        + "' has no zone; add Z for UTC or an offset such as +01:00 (as the loader asks)"
                        : "'" + s + "' is not an ISO-8601 timestamp such as 2026-11-17T10:00:00.000441Z");
                }
            }
            try {
                return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000_000L), i.getNano());
            } catch (final ArithmeticException e) {
                throw Binder.invalid(p, "'" + s + "' is outside the nanosecond timestamp range (years 1677-2262)");
            }
        }
        throw Binder.invalid(p, "timestamps are ISO-8601 strings or integer epoch nanoseconds");
    }

    /**
     * A date and time with no zone was read as UTC before; a user in another zone who typed local time got a silently
     * shifted range, while the CSV loader refuses the same text.
     */
    static boolean zoneless(final String s) {
        try {
            java.time.LocalDateTime.parse(s);
            return true;
        } catch (final DateTimeParseException e) {
            return false;
        }
    }

    private static final int[] MONTH_DAYS = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

    /**
     * The common form {@code YYYY-MM-DDTHH:MM:SS[.fraction]Z} without a parser's allocations (OffsetDateTime.parse
     * allocates per literal, and a window query over HTTP binds two).
     *
     * @param s a timestamp text.
     * @return its epoch nanoseconds, or Long.MIN_VALUE for any other form or an invalid or out-of-range value (which
     *     the full parser then reads or rejects with its message).
     */
    public static long utc(final String s) {
        final int n = s.length();
        if (n < 20 || n > 30 || s.charAt(n - 1) != 'Z' || s.charAt(4) != '-' || s.charAt(7) != '-'
            || s.charAt(10) != 'T'
            || s.charAt(13) != ':' || s.charAt(16) != ':' || n > 20 && (s.charAt(19) != '.' || n == 21)) {
            return Long.MIN_VALUE;
        }
        final int y = digits(s, 0, 4);
        final int m = digits(s, 5, 2);
        final int d = digits(s, 8, 2);
        final int h = digits(s, 11, 2);
        final int mi = digits(s, 14, 2);
        final int sec = digits(s, 17, 2);
        final int fraction = n > 20 ? digits(s, 20, n - 21) : 0;
        if ((y | m | d | h | mi | sec | fraction) < 0 || m < 1 || m > 12 || d < 1 || h > 23 || mi > 59 || sec > 59) {
            return Long.MIN_VALUE;
        }
        final boolean leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
        if (d > MONTH_DAYS[m - 1] + (m == 2 && leap ? 1 : 0)) {
            return Long.MIN_VALUE;
        }
        // days from the civil date (proleptic Gregorian), as in java.time
        final int yy = m <= 2 ? y - 1 : y;
        final int era = Math.floorDiv(yy, 400);
        final int yoe = yy - era * 400;
        final int doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
        final long day = era * 146_097L + yoe * 365L + yoe / 4 - yoe / 100 + doy - 719_468L;
        long nanos = fraction;
        for (int k = n - 21; k < 9 && n > 20; k++) {
            nanos *= 10;
        }
        final long seconds = day * 86_400L + h * 3_600L + mi * 60L + sec;
        // the nanosecond range (1677-2262): outside it the full parser names the problem
        if (seconds < -9_223_372_036L || seconds > 9_223_372_035L) {
            return Long.MIN_VALUE;
        }
        return seconds * 1_000_000_000L + nanos;
    }

    /** @return the non-negative number written by {@code len} ASCII digits at {@code from}, or -1. */
    static int digits(final String s, final int from, final int len) {
        int v = 0;
        for (int i = from; i < from + len; i++) {
            final int c = s.charAt(i) - '0';
            if (c < 0 || c > 9) {
                return -1;
            }
            v = v * 10 + c;
        }
        return v;
    }

    /**
     * @param text a bucket.
     * @param p    its JSON path.
     * @return the months of a calendar bucket ({@code P1M}, {@code P3M}, {@code P1Y}, {@code P1Y6M}: whole months and
     *     years, nothing else), or 0 for any other bucket.
     */
    static int bucketMonths(final String text, final String p) {
        final String upper = text.toUpperCase(Locale.ROOT);
        if (!CALENDAR_BUCKET.matcher(upper).matches()) {
            return 0;
        }
        final Period period;
        try {
            period = Period.parse(upper);
        } catch (final DateTimeParseException e) {
            return 0; // named by bucketNanos
        }
        final long months = period.toTotalMonths();
        if (months <= 0 || months > 12 * 1000) {
            throw Binder.invalid(p, "bucket '" + text + "' must be between one month and 1000 years");
        }
        return (int) months;
    }

    /** Years and/or months only: {@code P1M}, {@code P1Y}, {@code P1Y6M}. */
    private static final Pattern CALENDAR_BUCKET = Pattern.compile("P(\\d+Y)?(\\d+M)?");

    static long bucketNanos(final String text, final String p) {
        final Matcher m = SHORT_DURATION.matcher(text);
        final long nanos;
        try {
            if (m.matches()) {
                final long n = Long.parseLong(m.group(1));
                final long unit;
                switch (m.group(2)) {
                    case "ns":
                        unit = 1;
                        break;
                    case "us":
                        unit = 1_000;
                        break;
                    case "ms":
                        unit = 1_000_000;
                        break;
                    case "s":
                        unit = 1_000_000_000L;
                        break;
                    case "m":
                        unit = 60_000_000_000L;
                        break;
                    case "h":
                        unit = 3_600_000_000_000L;
                        break;
                    default:
                        unit = 86_400_000_000_000L;
                        break;
                }
                nanos = Math.multiplyExact(n, unit);
            } else {
                final String upper = text.toUpperCase(Locale.ROOT);
                if (upper.startsWith("P") && !upper.contains("T") && (upper.endsWith("W") || upper.endsWith("D"))) {
                    final Period period = Period.parse(upper);
                    if (period.getYears() != 0 || period.getMonths() != 0) {
                        throw Binder.invalid(p,
                            "a bucket of calendar months and years takes no days or weeks (P1M, P3M, P1Y, P1Y6M); '"
                                + text
                            + "' mixes them");
                    }
                    nanos = Math.multiplyExact(period.getDays(), 86_400_000_000_000L);
                } else {
                    nanos = Duration.parse(upper).toNanos();
                }
            }
        } catch (final DateTimeParseException | ArithmeticException | NumberFormatException e) {
            throw Binder.invalid(p, "bucket '" + text
                + "' is not a duration; use 1s 1m 5m 15m 1h 1d or an ISO-8601 duration such as PT30S or P1D");
        }
        if (nanos <= 0) {
            throw Binder.invalid(p, "bucket '" + text + "' must be a positive duration");
        }
        return nanos;
    }

    static Object outValue(final Object v, final String type, final String p) {
        if (v == null) {
            throw Binder.invalid(p, "value must not be null");
        }
        if (type.equals("symbol") || type.equals("char")) {
            if (!(v instanceof String)) {
                throw Binder.invalid(p, "output is a " + type + ": values are strings");
            }
            return v;
        }
        if (type.equals("timestamp")) {
            return timestamp(v, p);
        }
        if (v instanceof Long) {
            return v;
        }
        if (v instanceof BigInteger) {
            return new BigDecimal((BigInteger) v);
        }
        if (v instanceof BigDecimal) {
            return v;
        }
        if (v instanceof Number) {
            return new BigDecimal(((Number) v).toString());
        }
        if (v instanceof String) {
            return decimalText((String) v, p, "a number");
        }
        throw Binder.invalid(p, "values are numbers");
    }
}
