package io.tradestore.core.ingest.line;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/**
 * The decimal reader agrees with BigDecimal on numbers of every length up to and past the 18- and 19-digit limits and
 * the scale: read exactly, or refused (out of range, or more fraction digits than the scale), never a wrong value.
 */
class LineValuesTest {
    @Test
    void shouldParseNumbersOfEveryLengthAsBigDecimalDoes() {
        final LineValues values = new LineValues();
        final SplittableRandom random = new SplittableRandom(19);
        for (int intDigits = 1; intDigits <= 20; intDigits++) {
            for (int fracDigits = 0; fracDigits <= 10; fracDigits++) {
                for (int run = 0; run < 20; run++) {
                    final StringBuilder t = new StringBuilder(random.nextBoolean() ? "-" : "");
                    for (int k = 0; k < intDigits; k++) {
                        t.append((char) ('0' + random.nextInt(10)));
                    }
                    if (fracDigits > 0) {
                        t.append('.');
                        for (int k = 0; k < fracDigits; k++) {
                            t.append((char) ('0' + random.nextInt(10)));
                        }
                    }
                    final byte[] b = t.toString().getBytes(StandardCharsets.US_ASCII);
                    final long m = values.decimal(b, 0, b.length, 8);
                    final BigDecimal exact = new BigDecimal(t.toString()).movePointRight(8).stripTrailingZeros();
                    if (fracDigits > 8 && exact.signum() != 0) {
                        // more fraction digits than the scale: refused, never rounded (past 19 digits as out of range)
                        assertThat(values.error).as(t.toString()).isIn(LineValues.E_SCALE, LineValues.E_RANGE);
                    } else if (exact.abs().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
                        assertThat(values.error).as(t.toString()).isEqualTo(LineValues.E_RANGE);
                    } else if (intDigits + fracDigits <= 18) {
                        assertThat(values.error).as(t.toString()).isEqualTo(LineValues.OK);
                        assertThat(m).as(t.toString()).isEqualTo(exact.setScale(0).longValueExact());
                    } else if (values.error == LineValues.OK) {
                        // past 18 digits a value is read exactly or refused as out of range, never wrong
                        assertThat(m).as(t.toString()).isEqualTo(exact.setScale(0).longValueExact());
                    } else {
                        assertThat(values.error).as(t.toString()).isEqualTo(LineValues.E_RANGE);
                    }
                }
            }
        }
    }
}
