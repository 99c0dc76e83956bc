package io.tradestore.query.exec;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;
import io.tradestore.query.QueryEngine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A block whose zone map lies inside a range skips the range check only when it is also null-free: a null hidden in
 * such a block (zone maps skip nulls) must still be filtered out, in sealed and open segments, with and without
 * bitmap indexes.
 */
class ProvenBlocksTest {
    private static final long T0 = 1_795_000_000_000_000_000L;
    private static final int BLOCK = 128;

    @TempDir
    Path dir;

    @Test
    void shouldNotCountNullsHiddenInBlocksInsideTheRange() {
        try (Store store = Store.open(dir)) {
            // 2 sealed segments of 8 blocks and an open one with 2.5 blocks
            final int rows = 2 * 8 * BLOCK + 5 * BLOCK / 2;
            try (TableWriter w = store.openOrCreate(TradesSchema.SCHEMA.with("trades", Layout.COLUMN, 8 * BLOCK, BLOCK))
                .writer()) {
                final TradeFlyweight f = new TradeFlyweight();
                for (int r = 0; r < rows; r++) {
                    w.append(f);
                    f.tradeId(r + 1).clientId(r % 3).instrument("SYM" + r % 2).venue("XLON").side('B').price(100)
                        .quantity(1 + r % 7);
                    // a null timestamp inside blocks 3 (sealed) and 17 (open, full), a null quantity inside block 5
                    if (r != 3 * BLOCK + 17 && r != 17 * BLOCK + 5) {
                        f.ts(T0 + r * 1000L);
                    }
                    if (r == 5 * BLOCK + 9) {
                        f.quantity(Long.MIN_VALUE); // the null sentinel
                    }
                }
                w.commit();
            }
            try (QueryEngine indexed = new QueryEngine(store, 2); QueryEngine scanning = new QueryEngine(store, 2)) {
                indexed.indexes().minSegmentRows(1);
                scanning.useIndexes(false);
                for (final QueryEngine e : new QueryEngine[] {indexed, scanning}) {
                    // the whole time range: every full block is inside it
                    assertThat(count(e, "\"time\":{\"from\":" + T0 + ",\"to\":" + (T0 + rows * 1000L) + "}", ""))
                        .isEqualTo(rows - 2);
                    assertThat(count(e, "\"time\":{\"from\":" + T0 + ",\"to\":" + (T0 + rows * 1000L) + "}",
                        ",\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM1\"}"))
                        .isEqualTo(rows / 2 - 2);
                    assertThat(count(e, "", ",\"filter\":{\"op\":\"range\",\"col\":\"quantity\",\"gte\":1,\"lte\":7}"))
                        .isEqualTo(rows - 1);
                    assertThat(count(e, "",
                        ",\"filter\":{\"op\":\"and\",\"args\":[{\"op\":\"range\",\"col\":\"quantity\",\"gte\":1},"
                        + "{\"op\":\"eq\",\"col\":\"client_id\",\"value\":0}]}"))
                        .isEqualTo(countWhere(rows, r -> r % 3 == 0 && r != 5 * BLOCK + 9));
                }
            }
        }
    }

    @Test
    void shouldSkipOnlyConjunctsAnIndexSelectsEveryRowOf() {
        try (Store store = Store.open(dir)) {
            // 3 sealed segments of 8 blocks and an open one: side is B or S but in one row of segment 1 (null), venue
            // XLON but in segment 2 (every seventh row XPAR)
            final int rows = 3 * 8 * BLOCK + 100;
            try (TableWriter w = store.openOrCreate(TradesSchema.SCHEMA.with("trades", Layout.COLUMN, 8 * BLOCK, BLOCK))
                .writer()) {
                final TradeFlyweight f = new TradeFlyweight();
                for (int r = 0; r < rows; r++) {
                    w.append(f);
                    f.tradeId(r + 1).ts(T0 + r * 1000L).clientId(r % 3).instrument("SYM" + r % 2).price(100)
                        .quantity(1 + r % 7).venue(r / (8 * BLOCK) == 2 && r % 7 == 0 ? "XPAR" : "XLON");
                    if (r != 8 * BLOCK + 300) {
                        f.side(r % 2 == 0 ? 'B' : 'S');
                    }
                }
                w.commit();
            }
            try (QueryEngine indexed = new QueryEngine(store, 2); QueryEngine scanning = new QueryEngine(store, 2)) {
                indexed.indexes().minSegmentRows(1);
                scanning.useIndexes(false);
                for (final QueryEngine e : new QueryEngine[] {indexed, scanning}) {
                    assertThat(count(e, "", ",\"filter\":{\"op\":\"in\",\"col\":\"side\",\"values\":[\"B\",\"S\"]}"))
                        .isEqualTo(rows - 1);
                    assertThat(count(e, "", ",\"filter\":{\"op\":\"ne\",\"col\":\"venue\",\"value\":\"XPAR\"}"))
                        .isEqualTo(countWhere(rows, r -> !(r / (8 * BLOCK) == 2 && r % 7 == 0)));
                    assertThat(count(e, "", ",\"filter\":{\"op\":\"and\",\"args\":[{\"op\":\"ne\",\"col\":\"venue\","
                        + "\"value\":\"XPAR\"},{\"op\":\"eq\",\"col\":\"side\",\"value\":\"B\"},"
                        + "{\"op\":\"range\",\"col\":\"quantity\",\"gte\":3}]}"))
                        .isEqualTo(countWhere(rows, r -> !(r / (8 * BLOCK) == 2 && r % 7 == 0) && r % 2 == 0
                            && r != 8 * BLOCK + 300 && 1 + r % 7 >= 3));
                }
            }
        }
    }

    private static long countWhere(final int rows, final java.util.function.IntPredicate p) {
        return java.util.stream.IntStream.range(0, rows).filter(p).count();
    }

    private static long count(final QueryEngine e, final String time, final String filter) {
        final String q = "{\"table\":\"trades\"" + (time.isEmpty() ? "" : "," + time) + filter
            + ",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";
        return (Long) e.execute(q).value(0, 0);
    }
}
