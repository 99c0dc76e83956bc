package io.tradestore.examples;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableReader;
import io.tradestore.examples.quotes.QuoteFlyweight;
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
    void shouldTrimTheTradesAndDropTheScratchTable() {
        EmbeddedTradesExample.run(dir, 1000);
        // one open segment: nothing is sealed, so nothing goes, however late the cut
        assertThat(EmbeddedTradesExample.retain(dir, Long.MAX_VALUE, System.currentTimeMillis() * 1_000_000L))
            .isEqualTo(1000);
        try (io.tradestore.core.Store store = io.tradestore.core.Store.open(dir)) {
            assertThat(store.hasTable("scratch")).isFalse();
            assertThat(store.table("trades").ttlNanos()).isEqualTo(java.util.concurrent.TimeUnit.DAYS.toNanos(30));
        }
    }

    @Test
    void shouldWriteAndReadTheUserDefinedQuotesRecord() {
        assertThat(QuotesExample.run(dir, 1000)).isEqualTo(10 + 12);
        assertThat(QuotesExample.schema().layout().name()).isEqualTo("ROW");
    }

    /**
     * Every column of every quote, read back after a reopen through the generated flyweight, across a segment boundary.
     */
    @Test
    void shouldReadBackEveryColumnOfTheQuotesAfterReopen() {
        final int rows = QuotesExample.schema().segmentRows() + 4_465;
        QuotesExample.run(dir, rows);
        try (Store store = Store.open(dir); TableReader reader = store.table("quotes").reader()) {
            final QuoteFlyweight q = new QuoteFlyweight().bind(reader.snapshot());
            int i = 0;
            while (q.next()) {
                final long bid = 99_000_000L + (i % 777);
                assertThat(q.ts()).as("ts of row %d", i).isEqualTo(1_000L * i);
                assertThat(q.instrumentValue()).as("instrument of row %d", i)
                    .isEqualTo(i % 2 == 0 ? "EURUSD" : "GBPUSD");
                assertThat(q.bid()).as("bid of row %d", i).isEqualTo(bid);
                assertThat(q.ask()).as("ask of row %d", i).isEqualTo(bid + 10 + i % 13);
                assertThat(q.bidSize()).as("bid_size of row %d", i).isEqualTo(1_000_000L);
                assertThat(q.askSize()).as("ask_size of row %d", i).isEqualTo(500_000L + i);
                i++;
            }
            assertThat(i).isEqualTo(rows);
            assertThat(reader.snapshot().segmentCount()).isEqualTo(2);
        }
    }
}
