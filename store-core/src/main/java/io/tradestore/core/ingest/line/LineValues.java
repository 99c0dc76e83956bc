package io.tradestore.core.ingest.line;

import java.nio.charset.StandardCharsets;

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

    private static final long[] POW10 = {
        1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L, 1_000_000_000L,
        10_000_000_000L, 100_000_000_000L, 1_000_000_000_000L, 10_000_000_000_000L, 100_000_000_000_000L,
        1_000_000_000_000_000L, 10_000_000_000_000_000L, 100_000_000_000_000_000L, 1_000_000_000_000_000_000L,
    };
    private static final double[] DOUBLE_POW10 = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    };
    /** Doubles hold integers exactly up to 2^53. */
    private static final long EXACT_DOUBLE_INTEGER = 1L << 53;

    /** Why the last read failed, or {@link #OK}. */
    int error;
    /** Fraction digits the last decimal had (after its exponent), for the scale message. */
    int fractionDigits;

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
                if (m > Long.MAX_VALUE / POW10[up]) {
                    error = E_RANGE;
                    return 0;
                }
                m *= POW10[up];
            }
            return minus ? -m : m;
        }
        return decimalSlow(b, s, e, scale);
    }

    /** {@link #decimal} for the other forms: exponents, more than 18 digits, fraction digits past the scale. */
    private long decimalSlow(final byte[] b, final int s, final int e, final int scale) {
        int p = s;
        final boolean negative = b[p] == '-';
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
                error = E_RANGE;
                return 0;
            }
            m = m * 10 + d;
        }
        if (!digits) {
            error = E_SYNTAX;
            return 0;
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
                    error = E_SYNTAX;
                    return 0;
                }
                exponent = Math.min(exponent * 10 + d, 1000);
            }
            if (expNegative) {
                exponent = -exponent;
            }
        }
        if (p != e) {
            error = E_SYNTAX;
            return 0;
        }
        final int frac = fraction - exponent;
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
            if (up >= POW10.length || m > Long.MAX_VALUE / POW10[up]) {
                error = E_RANGE;
                return 0;
            }
            m *= POW10[up];
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
        int p = s;
        final boolean negative = b[p] == '-';
        if (negative || b[p] == '+') {
            p++;
        }
        if (p < e && (b[p] == 'N' || b[p] == 'I' || b[p] == 'i')) {
            return b[p] == 'N' ? Double.NaN : negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        long m = 0;
        int significant = 0;
        int fraction = 0;
        boolean point = false;
        for (; p < e; p++) {
            final byte c = b[p];
            if (c == '.') {
                point = true;
                continue;
            }
            final int d = c - '0';
            if (d < 0 || d > 9) {
                break;
            }
            if (point) {
                fraction++;
            }
            if (m == 0 && d == 0) {
                continue;
            }
            if (++significant > 18) {
                return slowDouble(b, s, e);
            }
            m = m * 10 + d;
        }
        int exponent = 0;
        if (p < e) { // an exponent (the syntax was checked by the cursor)
            p++;
            boolean expNegative = false;
            if (b[p] == '-' || b[p] == '+') {
                expNegative = b[p] == '-';
                p++;
            }
            for (; p < e; p++) {
                exponent = Math.min(exponent * 10 + (b[p] - '0'), 1000);
            }
            if (expNegative) {
                exponent = -exponent;
            }
        }
        final int e10 = exponent - fraction;
        if (m >= EXACT_DOUBLE_INTEGER || e10 < -22 || e10 > 22) {
            return m == 0 ? (negative ? -0.0 : 0.0) : slowDouble(b, s, e);
        }
        final double v = e10 < 0 ? m / DOUBLE_POW10[-e10] : m * DOUBLE_POW10[e10];
        return negative ? -v : v;
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
