package io.tradestore.server.pg;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;

import io.netty.buffer.ByteBuf;
import io.tradestore.query.Timestamps;

/**
 * Values in PostgreSQL's text and binary forms: the engine's answers (Long, BigDecimal, Double, String, epoch
 * nanoseconds for timestamps) and the catalog's text answers out, bound parameters in.
 *
 * <pre>
 *  int8         text: decimal digits          binary: int64, big-endian
 *  float8       text: shortest exact digits   binary: IEEE 754 bits
 *  numeric      text: plain decimal, scale    binary: int16 ndigits | int16 weight | int16 sign | int16 dscale |
 *                     kept ("101.250000")             ndigits x int16 base-10000 digits, most significant first
 *  timestamptz  text: 2026-11-16 08:00:00.123456789+00 (the nanoseconds the store has, trailing zeros dropped)
 *               binary: int64 microseconds since 2000-01-01 UTC (nanoseconds below a microsecond are dropped:
 *               rounded toward the past, as PostgreSQL's own resolution is a microsecond)
 *  text         text and binary: UTF-8
 * </pre>
 */
final class PgValues {
    /** Microseconds from 1970-01-01 to 2000-01-01, PostgreSQL's epoch. */
    static final long PG_EPOCH_MICROS = 946_684_800_000_000L;
    private static final int NUMERIC_POS = 0x0000;
    private static final int NUMERIC_NEG = 0x4000;
    private static final int NUMERIC_NAN = 0xC000;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final DateTimeFormatter DATE_TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss");
    /** PostgreSQL's timestamp input: a date, a time with up to nine fraction digits, an offset (+00, +05:30, Z). */
    private static final DateTimeFormatter PG_TIMESTAMP = new DateTimeFormatterBuilder().parseCaseInsensitive()
        .append(DateTimeFormatter.ISO_LOCAL_DATE).optionalStart().appendLiteral(' ').optionalEnd()
        .optionalStart().appendLiteral('T').optionalEnd()
        .optionalStart().appendPattern("HH:mm").optionalStart().appendPattern(":ss").optionalEnd()
        .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd().optionalEnd()
        .optionalStart().appendOffset("+HH:mm", "Z").optionalEnd()
        .optionalStart().appendOffset("+HH", "Z").optionalEnd()
        .parseDefaulting(ChronoField.HOUR_OF_DAY, 0).toFormatter();

    private PgValues() {
    }

    // ------------------------------------------------------------------------------------------------- text out

    /**
     * @param type  the column's type.
     * @param value the engine's value (not null).
     * @return its text form.
     */
    static String text(final PgType type, final Object value) {
        switch (type) {
            case FLOAT8:
            case FLOAT4:
                return value instanceof Double d ? float8(d) : value.toString();
            case NUMERIC:
                return value instanceof BigDecimal b ? b.toPlainString() : value.toString();
            case TIMESTAMPTZ:
                return value instanceof Long l ? timestamptz(l) : value.toString();
            default:
                return value instanceof BigDecimal b ? b.toPlainString() : value.toString();
        }
    }

    /** @param d a double. @return PostgreSQL's output of it: shortest exact digits, 1e+21 past 15 digits. */
    static String float8(final double d) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "Infinity" : "-Infinity";
        }
        final String s = Double.toString(d);
        final int e = s.indexOf('E');
        if (e < 0) {
            return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
        }
        final String mantissa = s.substring(0, e);
        final int exponent = Integer.parseInt(s.substring(e + 1));
        if (exponent >= -4 && exponent < 15) {
            final String plain = new BigDecimal(s).toPlainString();
            return plain.indexOf('.') >= 0 ? plain.replaceAll("\\.?0+$", "") : plain;
        }
        final String m = mantissa.endsWith(".0") ? mantissa.substring(0, mantissa.length() - 2) : mantissa;
        final int abs = Math.abs(exponent);
        return m + "e" + (exponent < 0 ? "-" : "+") + (abs < 10 ? "0" : "") + abs;
    }

    /** @param nanos epoch nanoseconds. @return {@code 2026-11-16 08:00:00.5+00}: every digit the value has. */
    static String timestamptz(final long nanos) {
        final long seconds = Math.floorDiv(nanos, NANOS_PER_SECOND);
        final int fraction = (int) Math.floorMod(nanos, NANOS_PER_SECOND);
        final StringBuilder b = new StringBuilder(40);
        b.append(DATE_TIME.format(LocalDateTime.ofEpochSecond(seconds, 0, ZoneOffset.UTC)));
        if (fraction != 0) {
            String f = Integer.toString(fraction + 1_000_000_000).substring(1);
            int end = f.length();
            while (f.charAt(end - 1) == '0') {
                end--;
            }
            f = f.substring(0, end);
            b.append('.').append(f);
        }
        return b.append("+00").toString();
    }

    // ----------------------------------------------------------------------------------------------- binary out

    /**
     * Writes a value's binary form, its int32 length first.
     *
     * @param out   where.
     * @param type  the column's type.
     * @param value the engine's value, or the catalog's text (not null).
     * @throws PgFailure 22003 when an integer does not fit its type, 22P02 when a catalog's text is no such value.
     */
    static void binary(final ByteBuf out, final PgType type, final Object value) {
        switch (type) {
            case INT8:
                out.writeInt(8).writeLong(integer(value));
                return;
            case INT4:
            case OID:
                out.writeInt(4).writeInt((int) integer(value));
                return;
            case INT2:
                out.writeInt(2).writeShort((int) integer(value));
                return;
            case FLOAT8:
                out.writeInt(8).writeLong(Double.doubleToLongBits(value instanceof Number n ? n.doubleValue()
                    : parseDouble(value.toString())));
                return;
            case FLOAT4:
                out.writeInt(4).writeInt(Float.floatToIntBits(value instanceof Number n ? n.floatValue()
                    : (float) parseDouble(value.toString())));
                return;
            case BOOL:
                final String b = value.toString();
                out.writeInt(1).writeByte(b.equals("t") || b.equalsIgnoreCase("true") ? 1 : 0);
                return;
            case NUMERIC:
                numeric(out, value instanceof BigDecimal d ? d : value instanceof Long l ? BigDecimal.valueOf(l)
                    : decimal(value.toString()));
                return;
            case TIMESTAMPTZ:
            case TIMESTAMP:
                final long nanos = value instanceof Long l ? l : timestampNanos(value.toString());
                out.writeInt(8).writeLong(Math.floorDiv(nanos, 1_000L) - PG_EPOCH_MICROS);
                return;
            default:
                final byte[] utf8 = value.toString().getBytes(StandardCharsets.UTF_8);
                out.writeInt(utf8.length).writeBytes(utf8);
        }
    }

    private static long integer(final Object value) {
        if (value instanceof Long l) {
            return l;
        }
        final BigInteger b;
        try {
            b = value instanceof BigDecimal d ? d.toBigIntegerExact() : value instanceof BigInteger i ? i
                : new BigInteger(value.toString().strip());
        } catch (final ArithmeticException | NumberFormatException e) {
            throw new PgFailure(PgError.of(PgError.INVALID_TEXT_REPRESENTATION, "'" + value
                + "' is not an integer"));
        }
        if (b.bitLength() >= 64) {
            throw new PgFailure(PgError.of(PgError.NUMERIC_VALUE_OUT_OF_RANGE, value
                + " is out of range for int8; ask for text results"));
        }
        return b.longValue();
    }

    /** 10^0 .. 10^18. */
    private static final long[] POW10 = new long[19];

    static {
        POW10[0] = 1;
        for (int i = 1; i < POW10.length; i++) {
            POW10[i] = POW10[i - 1] * 10;
        }
    }

    /**
     * Writes a numeric in base-10000 digits. A value whose unscaled magnitude fits a long with a scale up to 15 (every
     * decimal column's value, and their sums up to 10^18) is split by arithmetic, without text; others go through
     * {@link #numericViaText}.
     */
    static void numeric(final ByteBuf out, final BigDecimal value) {
        final int scale = value.scale();
        if (scale < 0 || scale > 15 || value.precision() > 18) {
            numericViaText(out, value);
            return;
        }
        final long magnitude = Math.abs(value.unscaledValue().longValue());
        final long intPart = magnitude / POW10[scale];
        // the fraction padded on the right to whole groups of four digits: < 10^(scale + 3) <= 10^18
        final int fracGroups = (scale + 3) / 4;
        long frac = (magnitude - intPart * POW10[scale]) * POW10[fracGroups * 4 - scale];
        int intGroups = 0;
        for (long v = intPart; v != 0; v /= 10_000) {
            intGroups++;
        }
        // groups most significant first: intGroups + fracGroups <= 5 + 4
        final short[] digits = new short[intGroups + fracGroups];
        long v = intPart;
        for (int g = intGroups - 1; g >= 0; g--) {
            digits[g] = (short) (v % 10_000);
            v /= 10_000;
        }
        for (int g = digits.length - 1; g >= intGroups; g--) {
            digits[g] = (short) (frac % 10_000);
            frac /= 10_000;
        }
        writeNumeric(out, digits, intGroups, value.signum(), scale);
    }

    private static void writeNumeric(final ByteBuf out, final short[] digits, final int intGroups, final int signum,
        final int dscale) {
        int first = 0;
        int last = digits.length;
        while (first < last && digits[first] == 0) {
            first++;
        }
        while (last > first && digits[last - 1] == 0) {
            last--;
        }
        final int ndigits = last - first;
        final int weight = ndigits == 0 ? 0 : intGroups - 1 - first;
        out.writeInt(8 + 2 * ndigits).writeShort(ndigits).writeShort(weight)
            .writeShort(signum < 0 ? NUMERIC_NEG : NUMERIC_POS).writeShort(dscale);
        for (int i = first; i < last; i++) {
            out.writeShort(digits[i]);
        }
    }

    /** Writes a numeric in base-10000 digits: integral groups from the point leftwards, fraction groups rightwards. */
    static void numericViaText(final ByteBuf out, final BigDecimal value) {
        final int dscale = Math.max(0, value.scale());
        final String plain = value.abs().setScale(dscale).toPlainString();
        final int point = plain.indexOf('.');
        final String intPart = point < 0 ? plain : plain.substring(0, point);
        final String fracPart = point < 0 ? "" : plain.substring(point + 1);
        final int intGroups = (intPart.length() + 3) / 4;
        final int fracGroups = (fracPart.length() + 3) / 4;
        final short[] digits = new short[intGroups + fracGroups];
        final String paddedInt = "000".substring(0, intGroups * 4 - intPart.length()) + intPart;
        for (int g = 0; g < intGroups; g++) {
            digits[g] = Short.parseShort(paddedInt.substring(g * 4, g * 4 + 4));
        }
        final StringBuilder paddedFrac = new StringBuilder(fracPart);
        while (paddedFrac.length() < fracGroups * 4) {
            paddedFrac.append('0');
        }
        for (int g = 0; g < fracGroups; g++) {
            digits[intGroups + g] = Short.parseShort(paddedFrac.substring(g * 4, g * 4 + 4));
        }
        writeNumeric(out, digits, intGroups, value.signum(), dscale);
    }

    // ------------------------------------------------------------------------------------------- parameters in

    /**
     * Reads a numeric's binary form.
     *
     * @param b      the bytes.
     * @return the value.
     * @throws PgFailure 22P03 when the bytes are no numeric.
     */
    static BigDecimal readNumeric(final byte[] b) {
        if (b.length < 8) {
            throw badBinary("numeric");
        }
        final int ndigits = u16(b, 0);
        final int weight = (short) u16(b, 2);
        final int sign = u16(b, 4);
        final int dscale = u16(b, 6);
        if (b.length != 8 + 2 * ndigits || sign == NUMERIC_NAN || sign != NUMERIC_POS && sign != NUMERIC_NEG
            || dscale > 16_383) {
            throw badBinary("numeric");
        }
        BigInteger unscaled = BigInteger.ZERO;
        final BigInteger base = BigInteger.valueOf(10_000);
        for (int i = 0; i < ndigits; i++) {
            final int d = u16(b, 8 + 2 * i);
            if (d > 9_999) {
                throw badBinary("numeric");
            }
            unscaled = unscaled.multiply(base).add(BigInteger.valueOf(d));
        }
        // the last digit group stands for 10000^(weight - ndigits + 1)
        final BigDecimal v = new BigDecimal(unscaled, -4 * (weight - ndigits + 1));
        final BigDecimal scaled = v.setScale(dscale, java.math.RoundingMode.DOWN);
        return sign == NUMERIC_NEG ? scaled.negate() : scaled;
    }

    private static int u16(final byte[] b, final int at) {
        return (b[at] & 0xFF) << 8 | b[at + 1] & 0xFF;
    }

    static long readLong(final byte[] b, final String type) {
        if (b.length == 8) {
            long v = 0;
            for (final byte x : b) {
                v = v << 8 | x & 0xFF;
            }
            return v;
        }
        if (b.length == 4) {
            return (b[0] << 24) | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | b[3] & 0xFF;
        }
        if (b.length == 2) {
            return (short) ((b[0] << 8) | b[1] & 0xFF);
        }
        throw badBinary(type);
    }

    static PgFailure badBinary(final String type) {
        return new PgFailure(PgError.of(PgError.INVALID_BINARY_REPRESENTATION, "the binary value is no " + type
            + ": its length does not fit"));
    }

    static BigDecimal decimal(final String text) {
        try {
            return new BigDecimal(text.strip());
        } catch (final NumberFormatException e) {
            throw new PgFailure(PgError.of(PgError.INVALID_TEXT_REPRESENTATION, "invalid input syntax for type "
                + "numeric: \"" + text + "\""));
        }
    }

    private static double parseDouble(final String text) {
        try {
            return Double.parseDouble(text.strip());
        } catch (final NumberFormatException e) {
            throw new PgFailure(PgError.of(PgError.INVALID_TEXT_REPRESENTATION, "invalid input syntax for type "
                + "double precision: \"" + text + "\""));
        }
    }

    /**
     * @param text PostgreSQL's text of a timestamp ({@code 2026-11-16 08:00:00.123456+00}; UTC without an offset).
     * @return epoch nanoseconds.
     * @throws PgFailure 22P02 when the text is no timestamp.
     */
    static long timestampNanos(final String text) {
        final long utc = utcNanos(text);
        return utc != Long.MIN_VALUE ? utc : timestampNanosViaFormatter(text);
    }

    /**
     * The forms clients send for a UTC instant ({@code 2026-11-16 08:00:00[.f]} followed by {@code +00} as the JDBC
     * driver writes an OffsetDateTime, {@code +00:00} as psycopg, {@code Z}, or nothing) read by the engine's
     * allocation-free reader instead of java.time's parser, which is costly per parameter.
     *
     * @return epoch nanoseconds, or Long.MIN_VALUE for any other form (which the formatter then reads or refuses).
     */
    private static long utcNanos(final String text) {
        final String s = text.strip();
        final int n = s.length();
        final int end = s.endsWith("+00:00") ? n - 6 : s.endsWith("+00") ? n - 3 : s.endsWith("Z") ? n - 1 : n;
        if (end < 19 || s.charAt(10) != ' ' && s.charAt(10) != 'T') {
            return Long.MIN_VALUE;
        }
        return Timestamps.utcNanos(s.substring(0, 10) + 'T' + s.substring(11, end) + 'Z');
    }

    /** The general reading: any offset, a date alone, minutes without seconds, either case. */
    static long timestampNanosViaFormatter(final String text) {
        try {
            final var parsed = PG_TIMESTAMP.parse(text.strip());
            final LocalDateTime local = LocalDateTime.from(parsed);
            final ZoneOffset offset = parsed.isSupported(ChronoField.OFFSET_SECONDS)
                ? ZoneOffset.ofTotalSeconds(parsed.get(ChronoField.OFFSET_SECONDS)) : ZoneOffset.UTC;
            final Instant i = OffsetDateTime.of(local, offset).toInstant();
            return Math.addExact(Math.multiplyExact(i.getEpochSecond(), NANOS_PER_SECOND), i.getNano());
        } catch (final ArithmeticException | java.time.DateTimeException e) {
            throw new PgFailure(PgError.of(PgError.INVALID_TEXT_REPRESENTATION, "invalid input syntax for type "
                + "timestamp with time zone: \"" + text + "\""));
        }
    }
}
