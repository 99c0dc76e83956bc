package io.tradestore.core.ingest.line;

import java.nio.charset.StandardCharsets;

import io.tradestore.core.ingest.TenPowers;

/**
 * Numbers of line protocol read exactly from their bytes: decimals into fixed-point mantissas (never through a
 * double), doubles by the exact fast path where it applies, plain integers. Each returns its value, or sets
 * {@link #error} and returns 0.
 */
final class LineValues {
    static final int OK = 0;
    /** Not a value of the kind asked for. */
    static final int E_SYNTAX = 1;
    /** Beyond the column's range. */
    static final int E_RANGE = 2;
    /** More fraction digits than the column's scale. */
    static final int E_SCALE = 3;

    /** Doubles hold integers exactly up to 2^53. */
    private static final long EXACT_DOUBLE_INTEGER = 1L << 53;

    /** Why the last read failed, or {@link #OK}. */
    int error;
    /** Fraction digits the last decimal had (after its exponent), for the scale message. */
    int fractionDigits;
    // the number {@link #read} read last: value = (negative ? -1 : 1) * mantissa * 10^exponent10
    private boolean negative;
    private long mantissa;
    private int exponent10;
    /** Whether it had more than 18 significant digits (then {@link #mantissa} holds none of them). */
    private boolean tooLong;

    /**
     * Reads a float token ({@code [+-]?digits[.digits][e[+-]digits]}) as a decimal mantissa of {@code scale}.
     *
     * @param b     the body.
     * @param s     first byte.
     * @param e     end.
     * @param scale the column's scale.
     * @return the mantissa (value * 10^scale); check {@link #error}.
     */
    long decimal(final byte[] b, final int s, final int e, final int scale) {
        error = OK;
        int p = s;
        final boolean minus = b[p] == '-';
        if (minus || b[p] == '+') {
            p++;
        }
        // the common form, up to 18 digits with or without a point and no exponent: one pass, no overflow possible
        long m = 0;
        final int intFrom = p;
        int d;
        while (p < e && (d = b[p] - '0') >= 0 && d <= 9) {
            m = m * 10 + d;
            p++;
        }
        int digits = p - intFrom;
        int fraction = 0;
        if (p < e && b[p] == '.') {
            final int fracFrom = ++p;
            while (p < e && (d = b[p] - '0') >= 0 && d <= 9) {
                m = m * 10 + d;
                p++;
            }
            fraction = p - fracFrom;
            digits += fraction;
        }
        if (p == e && digits > 0 && digits <= 18 && fraction <= scale) {
            fractionDigits = fraction;
            final int up = scale - fraction;
            if (up > 0) {
                if (m > Long.MAX_VALUE / TenPowers.of(up)) {
                    error = E_RANGE;
                    return 0;
                }
                m *= TenPowers.of(up);
            }
            return minus ? -m : m;
        }
        return decimalSlow(b, s, e, scale);
    }

    /** {@link #decimal} for the other forms: exponents, more than 18 digits, fraction digits past the scale. */
    private long decimalSlow(final byte[] b, final int s, final int e, final int scale) {
        if (!read(b, s, e)) {
            error = E_SYNTAX;
            return 0;
        }
        if (tooLong) {
            error = E_RANGE;
            return 0;
        }
        long m = mantissa;
        final int frac = -exponent10;
        fractionDigits = frac;
        if (frac > scale) {
            if (m == 0) {
                return 0; // 0.0000000 is zero at any scale
            }
            error = E_SCALE;
            return 0;
        }
        final int up = scale - frac;
        if (m != 0) {
            if (up >= TenPowers.LONG_COUNT || m > Long.MAX_VALUE / TenPowers.of(up)) {
                error = E_RANGE;
                return 0;
            }
            m *= TenPowers.of(up);
        }
        return negative ? -m : m;
    }

    /**
     * Reads a float token as a double: exactly by the fast path (a mantissa below 2^53 times or over a power of ten up
     * to 10^22, each exact, so the one rounding is correct), otherwise through {@link Double#parseDouble}.
     *
     * @param b the body.
     * @param s first byte.
     * @param e end.
     * @return the value.
     */
    double toDouble(final byte[] b, final int s, final int e) {
        error = OK;
        final int p = b[s] == '-' || b[s] == '+' ? s + 1 : s;
        if (p < e && (b[p] == 'N' || b[p] == 'I' || b[p] == 'i')) {
            return b[p] == 'N' ? Double.NaN : b[s] == '-' ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (!read(b, s, e) || tooLong) {
            return slowDouble(b, s, e);
        }
        final long m = mantissa;
        final int e10 = exponent10;
        if (m >= EXACT_DOUBLE_INTEGER || e10 < -22 || e10 > 22) {
            return m == 0 ? (negative ? -0.0 : 0.0) : slowDouble(b, s, e);
        }
        final double v = e10 < 0 ? m / TenPowers.exactDouble(-e10) : m * TenPowers.exactDouble(e10);
        return negative ? -v : v;
    }

    /**
     * Reads {@code [+-]?digits[.digits][(e|E)[+-]digits]} (at least one digit) into {@link #negative},
     * {@link #mantissa}, {@link #exponent10} and {@link #tooLong}: the one reading both decimals and doubles use
     * past their fast paths.
     *
     * @return whether the bytes are such a number.
     */
    private boolean read(final byte[] b, final int s, final int e) {
        int p = s;
        negative = b[p] == '-';
        if (negative || b[p] == '+') {
            p++;
        }
        long m = 0;
        int significant = 0;
        int fraction = 0;
        boolean point = false;
        boolean digits = false;
        for (; p < e; p++) {
            final byte c = b[p];
            if (c == '.' && !point) {
                point = true;
                continue;
            }
            final int d = c - '0';
            if (d < 0 || d > 9) {
                break;
            }
            digits = true;
            if (point) {
                fraction++;
            }
            if (m == 0 && d == 0) {
                continue; // leading zeros count as fraction digits but not toward the mantissa's size
            }
            if (++significant > 18) {
                tooLong = true;
                return true;
            }
            m = m * 10 + d;
        }
        tooLong = false;
        if (!digits) {
            return false;
        }
        int exponent = 0;
        if (p < e && (b[p] == 'e' || b[p] == 'E')) {
            p++;
            boolean expNegative = false;
            if (p < e && (b[p] == '-' || b[p] == '+')) {
                expNegative = b[p] == '-';
                p++;
            }
            for (; p < e; p++) {
                final int d = b[p] - '0';
                if (d < 0 || d > 9) {
                    return false;
                }
                exponent = Math.min(exponent * 10 + d, 1000);
            }
            if (expNegative) {
                exponent = -exponent;
            }
        }
        mantissa = m;
        exponent10 = exponent - fraction;
        return p == e;
    }

    private static double slowDouble(final byte[] b, final int s, final int e) {
        return Double.parseDouble(new String(b, s, e - s, StandardCharsets.US_ASCII));
    }

    /**
     * Reads a float token that is a plain integer ({@code [+-]?digits}, as InfluxDB writes a whole float).
     *
     * @param b the body.
     * @param s first byte.
     * @param e end.
     * @return the value; {@link #error} is {@link #E_SYNTAX} for a point or exponent, {@link #E_RANGE} past 64 bits.
     */
    long plainInteger(final byte[] b, final int s, final int e) {
        final long v = decimal(b, s, e, 0);
        if (error == E_SCALE) {
            error = E_SYNTAX;
        }
        return v;
    }
}
