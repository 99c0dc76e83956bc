package io.tradestore.query.exec.agg;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The shortcut gives the very double of the BigDecimal division it stands in for, whenever it answers. */
class ExactQuotientTest {
    @Test
    void shouldGiveTheBigDecimalDivisionsDouble() {
        final SplittableRandom r = new SplittableRandom(27);
        int answered = 0;
        for (int i = 0; i < 1_000_000; i++) {
            final long d = 1 + (r.nextBoolean() ? r.nextInt(8) : r.nextLong(1L << r.nextInt(1, 40)));
            final long q = r.nextLong(-(1L << r.nextInt(1, 60)), 1L << r.nextInt(1, 60));
            final long u = r.nextInt(4) == 0 ? q : q * d; // mostly exact quotients, some not
            final int scale = r.nextInt(0, 24);
            if (u / d != q && u != q) {
                continue; // overflowed
            }
            final BigInteger num = BigInteger.valueOf(u);
            final BigInteger den = BigInteger.valueOf(d);
            final double fast = ExactQuotient.of(num, den, scale);
            if (fast == fast) {
                answered++;
                final double slow = new BigDecimal(num, scale).divide(new BigDecimal(den), MathContext.DECIMAL128)
                    .doubleValue();
                assertThat(Double.doubleToRawLongBits(fast)).as("%d / %d scale %d", u, d, scale)
                    .isEqualTo(Double.doubleToRawLongBits(slow));
            }
        }
        assertThat(answered).isGreaterThan(100_000);
    }
}
