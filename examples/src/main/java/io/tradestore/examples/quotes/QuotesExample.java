package io.tradestore.examples.quotes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.tradestore.core.Store;
import io.tradestore.core.Table;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableWriter;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.schema.SchemaCodec;

/**
 * A user-defined record type: {@code src/main/schema/quotes.schema.json} is turned into {@link QuoteFlyweight} by
 * the project's generator during this module's build (see its pom), then written and read back here.
 */
public final class QuotesExample {
    private QuotesExample() {
    }

    /** @return the quotes schema, parsed from the generated flyweight's own copy. */
    public static Schema schema() {
        return SchemaCodec.parse(QuoteFlyweight.SCHEMA_JSON, "QuoteFlyweight.SCHEMA_JSON");
    }

    /**
     * Writes {@code rows} quotes and returns the widest spread seen, as a mantissa with scale 6.
     *
     * @param dir  store directory.
     * @param rows how many quotes.
     * @return the widest ask - bid.
     */
    public static long run(final Path dir, final int rows) {
        try (Store store = Store.open(dir)) {
            final Table quotes = store.openOrCreate(schema());
            try (TableWriter writer = quotes.writer()) {
                final QuoteFlyweight q = new QuoteFlyweight();
                for (int i = 0; i < rows; i++) {
                    final long bid = 99_000_000L + (i % 777);
                    writer.append(q).ts(1_000L * i).instrument(i % 2 == 0 ? "EURUSD" : "GBPUSD")
                        .bid(bid).ask(bid + 10 + i % 13).bidSize(1_000_000L).askSize(500_000L + i);
                }
                writer.commit();
            }
            try (TableReader reader = quotes.reader()) {
                final QuoteFlyweight q = new QuoteFlyweight().bind(reader.snapshot());
                long widest = Long.MIN_VALUE;
                while (q.next()) {
                    widest = Math.max(widest, q.ask() - q.bid());
                }
                return widest;
            }
        }
    }

    /**
     * Runs the example in a temporary directory.
     *
     * @param args optional row count.
     * @throws IOException when the temporary directory cannot be made.
     */
    public static void main(final String[] args) throws IOException {
        final int rows = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        final long widest = run(Files.createTempDirectory("tradestore-quotes"), rows);
        System.out.printf("%,d quotes; widest spread %s%n", rows, java.math.BigDecimal.valueOf(widest, 6));
    }
}
