package io.tradestore.examples;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.examples.quotes.QuotesExample;

import static org.assertj.core.api.Assertions.assertThat;

class ExamplesTest {
    @TempDir
    Path dir;

    @Test
    void shouldSumNotionalBySideLikeAPlainLoop() {
        final int rows = 250_000;
        final long[] notional = EmbeddedTradesExample.run(dir, rows);
        long buy = 0;
        long sell = 0;
        for (int i = 0; i < rows; i++) {
            final long n = (100_000_000L + i % 1000) * (1 + i % 500);
            if (i % 3 == 0) {
                sell += n;
            } else {
                buy += n;
            }
        }
        assertThat(notional).containsExactly(buy, sell);
    }

    @Test
    void shouldWriteAndReadTheUserDefinedQuotesRecord() {
        assertThat(QuotesExample.run(dir, 1000)).isEqualTo(10 + 12);
        assertThat(QuotesExample.schema().layout().name()).isEqualTo("ROW");
    }
}
