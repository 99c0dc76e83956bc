package io.tradestore.core.ingest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.tradestore.core.Store;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Schema;

/** Helpers for ingest tests: write CSV, load it, and summarise a trades table. */
final class IngestFixtures {
    static final String HEADER = "trade_id,ts,client_id,venue,instrument,side,price,quantity\n";
    /** The trades schema with small segments (4,096 rows) so tests are quick and cross segment boundaries. */
    static final Schema SMALL_TRADES =
        TradesSchema.SCHEMA.with("trades", io.tradestore.core.schema.Layout.COLUMN, 4096, 1024);

    private IngestFixtures() {
    }

    static Path write(final Path file, final String content) {
        try {
            Files.write(file, content.getBytes(StandardCharsets.UTF_8));
            return file;
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static LoadResult load(final Path storeDir, final Schema schema, final LoadOptions options, final Path... files) {
        try (Store store = Store.open(storeDir)) {
            return CsvLoader.load(store.openOrCreate(schema), List.of(files), options, null);
        }
    }

    static LoadResult load(final Path storeDir, final LoadOptions options, final Path... files) {
        return load(storeDir, SMALL_TRADES, options, files);
    }

    /** Summary of a trades table: counts, sums, and each row's text when small. */
    record Summary(long rows, long sumTradeId, long sumTs, long sumClient, long sumPrice, long sumQuantity, long buys,
                   List<String> venues, List<String> instruments, List<String> firstRows) {
    }

    static Summary summarise(final Path storeDir) {
        try (Store store = Store.open(storeDir)) {
            if (!store.hasTable("trades")) {
                return new Summary(0, 0, 0, 0, 0, 0, 0, List.of(), List.of(), List.of());
            }
            try (TableReader reader = store.table("trades").reader()) {
                final TableSnapshot snap = reader.snapshot();
                final TradeFlyweight f = new TradeFlyweight().bind(snap);
                long rows = 0;
                long a = 0;
                long b = 0;
                long c = 0;
                long d = 0;
                long e = 0;
                long buys = 0;
                final List<String> first = new ArrayList<>();
                while (f.next()) {
                    rows++;
                    a += f.tradeId();
                    b += f.ts();
                    c += f.clientId();
                    d += f.price();
                    e += f.quantity();
                    buys += f.side() == 'B' ? 1 : 0;
                    if (first.size() < 50) {
                        first.add(f.tradeId() + "|" + f.ts() + "|" + f.clientId() + "|" + f.venueValue() + "|" + f
                            .instrumentValue()
                            + "|" + (f.side() == 0 ? "" : String.valueOf(f.side())) + "|" + f.price() + "|" + f
                            .quantity());
                    }
                }
                final int venue = snap.schema().indexOf("venue");
                final int instrument = snap.schema().indexOf("instrument");
                return new Summary(rows, a, b, c, d, e, buys, dictionary(snap, venue), dictionary(snap, instrument),
                    first);
            }
        }
    }

    static List<String> dictionary(final TableSnapshot snap, final int column) {
        final List<String> values = new ArrayList<>();
        for (int code = 0; code < snap.dictionarySize(column); code++) {
            values.add(snap.symbolValue(column, code));
        }
        return values;
    }
}
