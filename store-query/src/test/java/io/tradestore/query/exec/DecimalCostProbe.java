package io.tradestore.query.exec;

import java.math.BigDecimal;
import java.util.Locale;

/**
 * What the JDK's decimals cost on the inputs Binder bounds (its comments cite this): reading a decimal string of n
 * digits ({@code new BigDecimal(text)}, quadratic in n, hence {@code Literals.MAX_DECIMAL_TEXT_LENGTH}), and making an
 * integer of {@code 1eN} (what moving the point of an extreme literal computes, hence {@code Literals.tame}). Not a unit
 * test: JDK classes only, so it runs from its source without a build, {@code flock /tmp/tradestore-bench.lock java
 * store-query/src/test/java/io/tradestore/query/exec/DecimalCostProbe.java}.
 */
public final class DecimalCostProbe {
    private DecimalCostProbe() {
    }

    /** @param args none. */
    public static void main(final String[] args) {
        for (final int digits : new int[] {1_000, 10_000, 100_000, 1_000_000}) {
            final String text = "7".repeat(digits);
            long best = Long.MAX_VALUE;
            for (int rep = 0; rep < (digits < 1_000_000 ? 3 : 1); rep++) {
                final long t0 = System.nanoTime();
                final int h = new BigDecimal(text).hashCode();
                best = Math.min(best, System.nanoTime() - t0 + (h == 42 ? 1 : 0));
            }
            System.out.printf(Locale.ROOT, "new BigDecimal of %,d digits: %.1f ms (best of %d)%n", digits, best / 1e6, digits < 1_000_000 ? 3 : 1);
        }
        for (final int exponent : new int[] {1_000_000, 10_000_000}) {
            final long t0 = System.nanoTime();
            final int bits = new BigDecimal("1e" + exponent).toBigInteger().bitLength();
            System.out.printf(Locale.ROOT, "1e%d as an integer: %.2f s, %,d bits%n", exponent, (System.nanoTime() - t0) / 1e9, bits);
        }
    }
}
