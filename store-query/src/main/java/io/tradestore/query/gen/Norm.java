package io.tradestore.query.gen;

import java.math.BigDecimal;
import java.math.BigInteger;

/** Normalises values from the engine and from JDBC so that equal numbers compare equal whatever their Java type. */
public final class Norm {
    private Norm() {
    }

    /**
     * @param v a Number (Long, Integer, Short, Byte, BigInteger, BigDecimal, Double, Float).
     * @return it as an exact BigDecimal.
     */
    public static BigDecimal number(final Object v) {
        if (v instanceof BigDecimal) {
            return (BigDecimal) v;
        }
        if (v instanceof BigInteger) {
            return new BigDecimal((BigInteger) v);
        }
        if (v instanceof Double || v instanceof Float) {
            return new BigDecimal(((Number) v).doubleValue());
        }
        if (v instanceof Number) {
            return BigDecimal.valueOf(((Number) v).longValue());
        }
        throw new IllegalArgumentException("not a number: " + v + " (" + v.getClass().getSimpleName() + ")");
    }

    /**
     * @param v a value or null. @return a canonical text: equal for equal numbers of any type, quoted strings, NULL.
     */
    public static String key(final Object v) {
        if (v == null) {
            return "NULL";
        }
        if (v instanceof String || v instanceof Character) {
            return "'" + v + "'";
        }
        if (v instanceof Double && (((Double) v).isNaN() || ((Double) v).isInfinite())) {
            return v.toString();
        }
        final BigDecimal d = number(v);
        return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
    }

    /** @param v a value. @return it with its Java type, for mismatch reports. */
    public static String show(final Object v) {
        return v == null ? "null" : v + ":" + v.getClass().getSimpleName();
    }
}
