package io.tradestore.query.index;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.tradestore.core.Store;
import io.tradestore.core.Table;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bitmap indexes built when commits seal segments: index files for the symbol columns of exactly the wholly committed
 * segments (not the open one, not rows a rollback discarded), which a query engine then reads instead of building.
 */
@ExtendWith(TestRows.NoLeaks.class)
class SealIndexerTest {
    private static final int SEGMENT = BitmapIndexes.DEFAULT_MIN_SEGMENT_ROWS;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldIndexTheSymbolColumnsOfEverySegmentACommitSeals(final Layout layout) {
        final Schema schema = TradesSchema.SCHEMA.with("trades", layout, SEGMENT, 1 << 12);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            final long built;
            try (TableWriter w = table.writer(); SealIndexer ix = SealIndexer.attach(table, w)) {
                final TradeFlyweight f = new TradeFlyweight();
                // two and a half segments in commits of 50,000 rows
                for (int r = 0; r < 2 * SEGMENT + SEGMENT / 2; r++) {
                    append(w, f);
                    if (w.pendingRows() % 50_000 == 0) {
                        w.commit();
                    }
                }
                w.commit();
                // rows that fill the third segment, rolled back: no index of them
                while (w.pendingRows() < 3L * SEGMENT + 10) {
                    append(w, f);
                }
                w.rollback();
                ix.close();
                built = ix.built();
            }
            try (TableReader reader = table.reader()) {
                final TableSnapshot snap = reader.snapshot();
                assertThat(snap.segmentCount()).isEqualTo(3);
                int symbols = 0;
                for (int si = 0; si < snap.segmentCount(); si++) {
                    for (int c = 0; c < schema.columnCount(); c++) {
                        final Column col = schema.column(c);
                        final boolean expected = si < 2 && col.type() == ColumnType.SYMBOL;
                        symbols += si == 0 && col.type() == ColumnType.SYMBOL ? 1 : 0;
                        assertThat(Files.exists(BitmapIndexes.file(snap.segment(si), col)))
                            .as("segment %d column %s", si, col.name())
                            .isEqualTo(expected);
                    }
                }
                assertThat(built).isEqualTo(2L * symbols);
            }
            final String q =
                "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM3\"},"
                + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"v\",\"op\":\"sum\",\"col\":\"quantity\"}]}";
            try (QueryEngine indexed = new QueryEngine(store, 2); QueryEngine scanning = new QueryEngine(store, 1)) {
                scanning.useIndexes(false);
                final QueryResult a = indexed.execute(q);
                final QueryResult b = scanning.execute(q);
                assertThat(a.value(0, 0)).isEqualTo(b.value(0, 0)).isNotEqualTo(0L);
                assertThat(a.value(0, 1)).isEqualTo(b.value(0, 1));
                assertThat(a.stats().indexedSegments()).isGreaterThanOrEqualTo(2);
                assertThat(indexed.indexes().loads()).as("index files read").isEqualTo(2);
                assertThat(indexed.indexes().builds()).as("index files built by the query").isZero();
            }
        }
    }

    /**
     * Closing the store while builds run (the writer and the indexer left open) waits for them: the store closes its
     * writer first, whose close waits for the builds before any reader's segments are unmapped.
     */
    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldFinishItsBuildsWhenTheStoreClosesUnderIt(final Layout layout) {
        final Schema schema = TradesSchema.SCHEMA.with("trades", layout, SEGMENT, 1 << 12);
        final SealIndexer ix;
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            final TableWriter w = table.writer();
            ix = SealIndexer.attach(table, w);
            final TradeFlyweight f = new TradeFlyweight();
            for (int r = 0; r < 3 * SEGMENT; r++) {
                append(w, f);
            }
            w.commit();
        }
        assertThat(ix.built()).isEqualTo(6);
        ix.close(); // a second close does nothing
        try (Store store = Store.open(dir); TableReader reader = store.table("trades").reader()) {
            final TableSnapshot snap = reader.snapshot();
            for (int si = 0; si < 3; si++) {
                for (final String col : new String[] {"venue", "instrument"}) {
                    assertThat(BitmapIndexes.load(
                        BitmapIndexes.file(snap.segment(si), schema.column(schema.indexOf(col))), SEGMENT))
                        .as("segment %d column %s", si, col).isNotNull();
                }
            }
        }
    }

    private static void append(final TableWriter w, final TradeFlyweight f) {
        final long r = w.pendingRows();
        w.append(f).tradeId(r).ts(1_795_000_000_000_000_000L + r).clientId(r % 97).venue("V" + r % 8)
            .instrument("SYM" + r % 50)
            .side(r % 3 == 0 ? 'S' : 'B').price(1_000_000 + r % 1000).quantity(1 + r % 100);
    }
}
