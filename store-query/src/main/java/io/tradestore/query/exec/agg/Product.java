package io.tradestore.query.exec.agg;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * An aggregate operand {@code a*b}: reads two value slots and yields the product exactly (128 bits for integral and
 * decimal columns, with scale s1+s2) or as a double when either column is f64. Null when either factor is null.
 */
public final class Product {
    final int slotA;
    final int slotB;
    final boolean f64A;
    final boolean f64B;
    final int scaleA;
    final int scaleB;
    private final double mulA;
    private final double mulB;

    public Product(final int slotA, final boolean f64A, final int scaleA, final int slotB, final boolean f64B,
        final int scaleB) {
        this.slotA = slotA;
        this.slotB = slotB;
        this.f64A = f64A;
        this.f64B = f64B;
        this.scaleA = scaleA;
        this.scaleB = scaleB;
        this.mulA = Math.pow(10, -scaleA);
        this.mulB = Math.pow(10, -scaleB);
    }

    /** @return whether the product is a double. */
    boolean isDouble() {
        return f64A || f64B;
    }

    /** @return the output type. */
    public String type() {
        return isDouble() ? "f64" : "decimal(" + (scaleA + scaleB) + ")";
    }

    /** @param x raw a. @param y raw b. @return whether either is null. */
    boolean isNull(final long x, final long y) {
        return (f64A ? Double.isNaN(Double.longBitsToDouble(x)) : x == Long.MIN_VALUE)
            || (f64B ? Double.isNaN(Double.longBitsToDouble(y)) : y == Long.MIN_VALUE);
    }

    /** @param x raw a. @param y raw b. @return the product as a double (scaled). */
    double asDouble(final long x, final long y) {
        return DoubleSumAcc.read(x, f64A, mulA) * DoubleSumAcc.read(y, f64B, mulB);
    }

    /** @param x raw a. @param y raw b. @return the result value: BigDecimal (exact) or Double. */
    Object value(final long x, final long y) {
        if (isDouble()) {
            return asDouble(x, y);
        }
        return new BigDecimal(BigInteger.valueOf(x).multiply(BigInteger.valueOf(y)), scaleA + scaleB);
    }
}
