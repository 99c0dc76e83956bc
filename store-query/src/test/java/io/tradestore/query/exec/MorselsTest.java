package io.tradestore.query.exec;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryResult;
import io.tradestore.query.plan.Binder;
import io.tradestore.query.plan.Plan;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A scan whose zone maps keep a short run of blocks (a range of trade ids) is cut into morsels small enough for every
 * thread to get several of the kept blocks; a scan of every block keeps morsels of the plan's size; either way the
 * morsels tile each kept segment's blocks once, in order, and the answer is the rows'.
 */
class MorselsTest {
    private static final long T0 = 1_795_000_000_000_000_000L;
    private static final int BLOCK = 64;
    private static final int SEGMENT_BLOCKS = 64;
    private static final int ROWS = 4 * SEGMENT_BLOCKS * BLOCK;

    @TempDir
    Path dir;

    @Test
    void shouldShareAShortRunOfKeptBlocksBetweenThreads() {
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.openOrCreate(TradesSchema.SCHEMA.with("trades", Layout.COLUMN,
                SEGMENT_BLOCKS * BLOCK, BLOCK)).writer()) {
                final TradeFlyweight f = new TradeFlyweight();
                for (int r = 0; r < ROWS; r++) {
                    w.append(f);
                    f.tradeId(r + 1).ts(T0 + r * 1000L).clientId(r % 3).instrument("SYM" + r % 2).venue("XLON")
                        .side('B').price(100).quantity(1 + r % 7);
                }
                w.commit();
            }
            // trade ids 5,001 to 5,800: 13 blocks of the second segment (the others are pruned whole)
            final String narrow = "{\"table\":\"trades\",\"filter\":{\"op\":\"range\",\"col\":\"trade_id\","
                + "\"gte\":5001,\"lt\":5801},\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
                + "{\"name\":\"q\",\"op\":\"sum\",\"col\":\"quantity\"}]}";
            final String all = "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                final int perMorsel = 16;
                final Executor narrowCut = cut(engine, narrow, perMorsel, true);
                // rows 5,000 to 5,799: blocks 14 to 26 of segment 1
                final int firstKept = (5000 - SEGMENT_BLOCKS * BLOCK) / BLOCK;
                final int lastKept = (5799 - SEGMENT_BLOCKS * BLOCK) / BLOCK;
                int withKept = 0;
                for (int i = 0; i < narrowCut.morselSegment.length; i++) {
                    assertThat(narrowCut.morselToBlock[i] - narrowCut.morselFromBlock[i]).isEqualTo(1);
                    withKept += narrowCut.morselSegment[i] == 1 && narrowCut.morselFromBlock[i] >= firstKept
                        && narrowCut.morselFromBlock[i] <= lastKept ? 1 : 0;
                }
                assertThat(withKept).as("morsels holding kept blocks")
                    .isEqualTo(lastKept - firstKept + 1).isGreaterThanOrEqualTo(2 * Morsels.MORSELS_PER_THREAD);
                assertTiled(narrowCut);
                final Executor allCut = cut(engine, all, perMorsel, true);
                assertThat(allCut.morselSegment).hasSize(4 * SEGMENT_BLOCKS / perMorsel);
                assertTiled(allCut);
                assertThat(cut(engine, narrow, perMorsel, false).morselSegment)
                    .as("one thread: the kept segment in morsels of the plan's size")
                    .hasSize(SEGMENT_BLOCKS / perMorsel);
                engine.smallQueryRows(0);
                final QueryResult r = engine.execute(narrow);
                long q = 0;
                for (int row = 5000; row < 5800; row++) {
                    q += 1 + row % 7;
                }
                assertThat(r.value(0, 0)).isEqualTo(800L);
                assertThat(r.value(0, 1)).isEqualTo(java.math.BigDecimal.valueOf(q));
            }
        }
    }

    private static Executor cut(final QueryEngine engine, final String json, final int perMorsel,
        final boolean parallel) {
        final Plan plan = Binder.bind(QueryEngine.parse(json), engine.snapshot("trades"), System.nanoTime());
        plan.morselRows = perMorsel * BLOCK;
        final Executor e = new Executor(plan, null);
        final List<Integer> keep = e.candidates();
        e.selectAndEstimate(keep);
        e.morsels(keep, parallel, 2);
        return e;
    }

    /** Each segment's morsels start at block 0 and follow each other with no gap or overlap. */
    private static void assertTiled(final Executor e) {
        for (int i = 0; i < e.morselSegment.length; i++) {
            final boolean first = i == 0 || e.morselSegment[i - 1] != e.morselSegment[i];
            assertThat(e.morselFromBlock[i]).as("morsel %d", i).isEqualTo(first ? 0 : e.morselToBlock[i - 1]);
            assertThat(e.morselToBlock[i]).isGreaterThan(e.morselFromBlock[i]);
        }
    }
}
