package io.tradestore.query.exec.agg;

import java.math.BigInteger;

/**
 * The double of an exact quotient without BigDecimal: {@code new BigDecimal(num, scale).divide(den, DECIMAL128)
 * .doubleValue()} strips the trailing zeros of an exact quotient one BigInteger division at a time, and every group's
 * average or vwap pays that.
 */
final class ExactQuotient {
    private static final double[] POW10 = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13,
        1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

    private ExactQuotient() {
    }

    /**
     * @param num   the dividend's unscaled value.
     * @param den   the divisor (unscaled at scale 0).
     * @param scale the quotient's scale.
     * @return {@code num / den / 10^scale} as BigDecimal's doubleValue gives it, when the division is exact and the
     *     quotient below 2^52 (BigDecimal's own exact fast path); NaN otherwise.
     */
    static double of(final BigInteger num, final BigInteger den, final int scale) {
        if (num.bitLength() < 63 && den.bitLength() < 63 && den.signum() > 0 && scale >= 0 && scale < POW10.length) {
            final long u = num.longValue();
            final long d = den.longValue();
            if (u % d == 0) {
                final long q = u / d;
                if (Math.abs(q) < 1L << 52) {
                    return scale == 0 ? (double) q : (double) q / POW10[scale];
                }
            }
        }
        return Double.NaN;
    }
}
