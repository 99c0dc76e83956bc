package io.tradestore.query.index;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.roaringbitmap.buffer.ImmutableRoaringBitmap;
import org.roaringbitmap.buffer.MutableRoaringBitmap;

import io.tradestore.core.Store;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryResult;
import io.tradestore.query.QueryResults;
import io.tradestore.query.spi.Deadline;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-memory index of the open segment's committed prefix: exact rows per value across chunk boundaries and
 * commits, views for older row counts, near-unique columns turned down, and queries that use it answering exactly as a
 * scan does while a writer appends.
 */
class OpenSegmentIndexTest {
    @TempDir
    Path dir;

    /** One open segment of 2^18 rows; client ids, instruments and venues with nulls; commits at odd counts. */
    private static final int SEGMENT_ROWS = 1 << 18;

    private static Schema schema(final Layout layout) {
        return TradesSchema.SCHEMA.with("trades", layout, SEGMENT_ROWS, 1 << 12);
    }

    private static void append(final TableWriter w, final SplittableRandom rnd, final int n) {
        final TradeFlyweight f = new TradeFlyweight();
        for (int i = 0; i < n; i++) {
            final long r = w.pendingRows();
            w.append(f);
            f.tradeId(r + 1).ts(1_795_000_000_000_000_000L + r * 1000);
            if (rnd.nextInt(50) != 0) {
                f.clientId(100_000 + (long) (Math.abs(rnd.nextGaussian()) * 150));
            }
            if (rnd.nextInt(40) != 0) {
                f.instrument("SYM" + (int) Math.min(99, Math.abs(rnd.nextGaussian()) * 25));
            }
            f.venue(rnd.nextBoolean() ? "XLON" : "XPAR").side(rnd.nextBoolean() ? 'B' : 'S')
                .price(1_000_000L + rnd.nextInt(1000))
                .quantity(1 + rnd.nextInt(100));
        }
    }

    /**
     * @return rows {@code [0, rows)} of the segment whose column holds {@code value} (nulls when {@code value} is
     * null).
     */
    private static MutableRoaringBitmap expected(final TableSnapshot snap, final int column, final Long value,
        final int rows) {
        final MutableRoaringBitmap b = new MutableRoaringBitmap();
        final long nul = snap.schema().column(column).type().nullBits();
        final long base = snap.segment(0).columnBase(column);
        final int stride = snap.segment(0).columnStride(column);
        final int width = snap.schema().column(column).width();
        for (int r = 0; r < rows; r++) {
            final long v = io.tradestore.core.memory.NativeMemory.getSigned(base + (long) r * stride, width);
            if (value == null ? v == nul : v == value && v != nul) {
                b.add(r);
            }
        }
        return b;
    }

    /** @return the rows of {@code b} below {@code rows} (a view may hold rows a newer commit added). */
    private static ImmutableRoaringBitmap clip(final ImmutableRoaringBitmap b, final int rows) {
        final MutableRoaringBitmap beyond = new MutableRoaringBitmap();
        beyond.add((long) rows, 1L << 32);
        return ImmutableRoaringBitmap.andNot(b, beyond);
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldHoldExactlyTheRowsOfEachValueAcrossChunksCommitsAndOlderViews(final Layout layout) {
        try (Store store = Store.open(dir)) {
            final SplittableRandom rnd = new SplittableRandom(11);
            final int client = schema(layout).indexOf("client_id");
            final int instrument = schema(layout).indexOf("instrument");
            final BitmapIndexes indexes = new BitmapIndexes();
            indexes.minSegmentRows(1);
            final List<TableSnapshot> snapshots = new ArrayList<>();
            try (TableWriter w = store.openOrCreate(schema(layout)).writer()) {
                // odd commit sizes: tails of every length, chunks completed inside a commit and exactly at one
                for (final int n : new int[] {1, 999, 64_535, 1, 70_000, 30_000, 31_072}) {
                    append(w, rnd, n);
                    w.commit();
                    snapshots.add(store.table("trades").reader().snapshot());
                    assertThat(snapshots.get(snapshots.size() - 1).segmentSealed(0)).isFalse();
                    for (final TableSnapshot snap : snapshots) { // the newest snapshot and every older one
                        check(indexes, snap, client, rnd);
                        check(indexes, snap, instrument, rnd);
                    }
                }
            }
            assertThat(snapshots.get(snapshots.size() - 1).rowCount()).isEqualTo(3 * OpenSegmentIndex.CHUNK_ROWS);
        }
    }

    private static void check(final BitmapIndexes indexes, final TableSnapshot snap, final int column,
        final SplittableRandom rnd) {
        final int rows = snap.segmentRowCount(0);
        final ValueRows fresh = new OpenSegmentIndex(snap.segment(0), snap.schema().column(column))
            .view(rows, Deadline.NONE);
        final ValueRows shared = indexes.openIndex(snap, 0, column, Deadline.NONE);
        assertThat(fresh).as("column %d is indexed at rows=%d", column, rows).isNotNull();
        assertThat(shared).isNotNull();
        final long nul = snap.schema().column(column).type().nullBits();
        for (int k = 0; k < 6; k++) {
            final long value = column == snap.schema().indexOf("client_id") ? 100_000 + rnd.nextInt(300) : rnd
                .nextInt(60);
            final MutableRoaringBitmap want = expected(snap, column, value, rows);
            assertThat(clip(fresh.rows(value), rows)).as("value=%d rows=%d", value, rows).isEqualTo(want);
            assertThat(clip(shared.rows(value), rows)).as("shared value=%d rows=%d", value, rows).isEqualTo(want);
        }
        assertThat(clip(fresh.nulls(), rows)).isEqualTo(expected(snap, column, null, rows));
        assertThat(clip(shared.nulls(), rows)).isEqualTo(expected(snap, column, null, rows));
        assertThat(fresh.rows(nul).isEmpty()).isTrue();
        assertThat(fresh.rows(Long.MAX_VALUE).isEmpty()).isTrue();
    }

    /**
     * Like {@link #append} but with one instrument in ~30% of rows and one client in ~10%: denser than an array
     * container.
     */
    private static void appendWithHotValues(final TableWriter w, final SplittableRandom rnd, final int n) {
        final TradeFlyweight f = new TradeFlyweight();
        for (int i = 0; i < n; i++) {
            final long r = w.pendingRows();
            w.append(f);
            f.tradeId(r + 1).ts(1_795_000_000_000_000_000L + r * 1000);
            f.clientId(rnd.nextInt(10) == 0 ? 100_000 : 100_001 + rnd.nextInt(300));
            f.instrument(rnd.nextInt(10) < 3 ? "HOT" : "SYM" + rnd.nextInt(60));
            f.venue("XLON").side('B').price(1_000_000L).quantity(1);
        }
    }

    /** @return the rows of {@code b} in {@code [from, to)}. */
    private static ImmutableRoaringBitmap range(final ImmutableRoaringBitmap b, final int from, final int to) {
        final MutableRoaringBitmap keep = new MutableRoaringBitmap();
        keep.add((long) from, (long) to);
        return ImmutableRoaringBitmap.and(b, keep);
    }

    @Test
    void shouldAnswerRowsFromExactlyForDenseAndSparseValuesAndShareAFrequentValuesBitmap() {
        try (Store store = Store.open(dir)) {
            final SplittableRandom rnd = new SplittableRandom(17);
            try (TableWriter w = store.openOrCreate(schema(Layout.COLUMN)).writer()) {
                for (final int n
                    : new int[] {3 * OpenSegmentIndex.CHUNK_ROWS + 1234, 2 * OpenSegmentIndex.CHUNK_ROWS - 1234}) {
                    appendWithHotValues(w, rnd, n);
                    w.commit();
                    final TableSnapshot snap = store.table("trades").reader().snapshot();
                    final int rows = snap.segmentRowCount(0);
                    final int client = snap.schema().indexOf("client_id");
                    final int instrument = snap.schema().indexOf("instrument");
                    final long hot = snap.findSymbol(instrument, "HOT");
                    final long sparse = snap.findSymbol(instrument, "SYM7");
                    for (final int column : new int[] {client, instrument}) {
                        final ValueRows view = new OpenSegmentIndex(snap.segment(0), snap.schema().column(column))
                            .view(rows, Deadline.NONE);
                        final long dense = column == client ? 100_000 : hot;
                        final long thin = column == client ? 100_042 : sparse;
                        for (final long value : new long[] {dense, thin}) {
                            final MutableRoaringBitmap want = expected(snap, column, value, rows);
                            assertThat(clip(view.rows(value), rows))
                                .as("column=%d value=%d rows=%d", column, value, rows).isEqualTo(want);
                            for (final int from
                                : new int[] {0, 1, OpenSegmentIndex.CHUNK_ROWS - 1, OpenSegmentIndex.CHUNK_ROWS,
                                2 * OpenSegmentIndex.CHUNK_ROWS + 5, 3 * OpenSegmentIndex.CHUNK_ROWS, rows - 1}) {
                                // fresh views: rowsFrom before any rows() of the value, so its own assembly is checked
                                final ValueRows v = new OpenSegmentIndex(snap.segment(0), snap.schema().column(column))
                                    .view(rows, Deadline.NONE);
                                assertThat(range(v.rowsFrom(value, from), from, rows))
                                    .as("column=%d value=%d from=%d rows=%d", column, value, from,
                                    rows).isEqualTo(range(want, from, rows));
                            }
                        }
                    }
                    // HOT has ~19,700 rows a chunk: its rows from a later chunk come from one bitmap built once per
                    // generation of chunks (and tail), not assembled per call
                    final ValueRows v = new OpenSegmentIndex(snap.segment(0), snap.schema().column(instrument))
                        .view(rows, Deadline.NONE);
                    v.rowsFrom(hot, 2 * OpenSegmentIndex.CHUNK_ROWS);
                    assertThat(v.rowsFrom(hot, 2 * OpenSegmentIndex.CHUNK_ROWS))
                        .isSameAs(v.rowsFrom(hot, 2 * OpenSegmentIndex.CHUNK_ROWS + 7));
                }
            }
        }
    }

    @Test
    void shouldNotIndexANearUniqueIntegerColumn() {
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.openOrCreate(schema(Layout.COLUMN)).writer()) {
                append(w, new SplittableRandom(3), 70_000);
                w.commit();
            }
            final TableSnapshot snap = store.table("trades").reader().snapshot();
            final int tradeId = snap.schema().indexOf("trade_id");
            assertThat(new OpenSegmentIndex(snap.segment(0), snap.schema().column(tradeId))
                .view(70_000, Deadline.NONE)).isNull();
            assertThat(new OpenSegmentIndex(snap.segment(0), snap.schema().require("client_id"))
                .view(70_000, Deadline.NONE)).isNotNull();
        }
    }

    @Test
    void shouldAnswerSelectiveQueriesOnTheOpenSegmentLikeAScanWhileAWriterAppends() {
        try (Store store = Store.open(dir);
             QueryEngine indexed = new QueryEngine(store, 2);
             QueryEngine scanning = new QueryEngine(store, 2)) {
            scanning.useIndexes(false);
            final SplittableRandom rnd = new SplittableRandom(5);
            final String[] queries = {
                "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"client_id\",\"value\":100003},\"aggs\":[{\""
                    + "name\":\"n\",\"op\":\"count\"},"
                    + "{\"name\":\"q\",\"op\":\"sum\",\"col\":\"quantity\"}]}",
                "{\"table\":\"trades\",\"filter\":{\"op\":\"in\",\"col\":\"instrument\",\"values\":[\"SYM3\",\"SYM40\""
                + ",\"NOPE\"]},\"groupBy\":[\"instrument\"],"
                    + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
                    + "{\"name\":\"hi\",\"op\":\"max\",\"col\":\"price\"}]}",
                "{\"table\":\"trades\",\"filter\":{\"op\":\"and\",\"args\":[{\"op\":\"eq\",\"col\":\"instrument\",\"va"
                + "lue\":\"SYM1\"},"
                    + "{\"op\":\"ne\",\"col\":\"client_id\","
                    + "\"value\":100000},{\"op\":\"range\",\"col\":\"trade_id\",\"gte\":1000,\"lt\":150000}]},\"aggs\""
                    + ":[{\"name\":\"n\",\"op\":\"count\"},"
                    + "{\"name\":\"v\",\"op\":\"vwap\"}]}",
                "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"client_id\",\"value\":100001},\"columns\":["
                + "\"trade_id\",\"quantity\"],"
                    + "\"orderBy\":[{\"col\":\"trade_id\",\"desc\":true}],\"limit\":5}"};
            long indexedSegments = 0;
            try (TableWriter w = store.openOrCreate(schema(Layout.COLUMN)).writer()) {
                for (int step = 0; step < 6; step++) {
                    append(w, rnd, 20_000 + rnd.nextInt(20_000));
                    w.commit();
                    for (final String q : queries) {
                        final QueryResult a = indexed.execute(q);
                        final QueryResult b = scanning.execute(q);
                        assertThat(QueryResults.rows(a)).as("step %d: %s", step, q).isEqualTo(QueryResults.rows(b));
                        indexedSegments += a.stats().indexedSegments();
                    }
                }
            }
            assertThat(indexedSegments).as("the open segment was read through its index").isGreaterThan(0);
        }
    }
}
