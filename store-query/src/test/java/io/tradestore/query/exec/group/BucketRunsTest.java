package io.tradestore.query.exec.group;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryResult;

import static org.assertj.core.api.Assertions.assertThat;
import io.tradestore.query.plan.Plan;
import io.tradestore.query.exec.BatchContext;
import io.tradestore.query.exec.kernel.SortedBlocks;

/**
 * Time-bucketed aggregates over blocks of sorted timestamps go through {@link BucketRuns} (runs of one bucket, first
 * and last by row order, few timestamps read); every other block keeps the per-row path. Results must be the same as
 * a brute-force evaluation by (timestamp, row) order: sorted blocks, an unsorted block, sorted blocks whose zone maps
 * overlap, a null timestamp, ties of equal timestamps, bucket boundaries exactly at block edges, null prices and
 * quantities, and an open segment that grows between queries.
 */
class BucketRunsTest {
    /** A whole minute (and second) in epoch nanoseconds. */
    private static final long T0 = 1_795_000_020_000_000_000L;
    private static final long SECOND = 1_000_000_000L;
    private static final long NULL = Long.MIN_VALUE;
    private static final int BLOCK = 128;
    private static final int SEGMENT = 8 * BLOCK;
    /** A block whose timestamps are out of order (two rows swapped). */
    private static final int UNSORTED_BLOCK = 3;
    /** A block that starts exactly at a bucket boundary, with ties at that timestamp. */
    private static final int EDGE_BLOCK = 5;
    /** A block whose last row starts a new second exactly. */
    private static final int LAST_ROW_EDGE_BLOCK = 6;
    /** A sorted block that starts before its predecessor ends (overlapping zone maps). */
    private static final int OVERLAP_BLOCK = 9;
    /** A block with a null timestamp. */
    private static final int NULL_TS_BLOCK = 12;
    /** The first of 200 rows (in blocks 10 and 11) without a quantity. */
    private static final int ALL_NULL_QTY_FROM = 10 * BLOCK + 10;

    @TempDir
    Path dir;

    /** The rows of the test table, in Java arrays (NULL for null). */
    private static final class Rows {
        final long[] ts;
        final long[] price;
        final long[] qty;
        final int[] inst;

        Rows(final int n, final long seed) {
            ts = new long[n];
            price = new long[n];
            qty = new long[n];
            inst = new int[n];
            final SplittableRandom r = new SplittableRandom(seed);
            long t = T0;
            for (int i = 0; i < n; i++) {
                t += r.nextInt(4) == 0 ? 0 : r.nextInt(200) * 1_000_000L; // a quarter ties
                ts[i] = t;
                price[i] = r.nextInt(8) == 0 ? NULL : 1 + r.nextInt(1_000_000_000);
                qty[i] = r.nextInt(16) == 0 ? NULL : 1 + r.nextInt(1_000);
                final int u = r.nextInt(100);
                // SYM0 and SYM2 are rare enough for the bitmap index (< 25% of rows)
                inst[i] = u < 8 ? 0 : u < 28 ? 2 : 1;
            }
            startSecondAt(EDGE_BLOCK * BLOCK);
            ts[EDGE_BLOCK * BLOCK + 1] = ts[EDGE_BLOCK * BLOCK];
            ts[EDGE_BLOCK * BLOCK + 2] = ts[EDGE_BLOCK * BLOCK];
            startSecondAt((LAST_ROW_EDGE_BLOCK + 1) * BLOCK - 1);
            final int a = UNSORTED_BLOCK * BLOCK + 10;
            final int b = UNSORTED_BLOCK * BLOCK + 90;
            ts[b] = Math.max(ts[b], ts[a] + 1);
            final long x = ts[a];
            ts[a] = ts[b];
            ts[b] = x;
            for (int i = OVERLAP_BLOCK * BLOCK; i < (OVERLAP_BLOCK + 1) * BLOCK && i < n; i++) {
                ts[i] -= 3 * SECOND;
            }
            if (NULL_TS_BLOCK * BLOCK + 7 < n) {
                ts[NULL_TS_BLOCK * BLOCK + 7] = NULL;
            }
            // ~11 seconds without a quantity: whole buckets whose volume is null
            for (int i = ALL_NULL_QTY_FROM; i < ALL_NULL_QTY_FROM + 200 && i < n; i++) {
                qty[i] = NULL;
            }
        }

        /** Shifts rows from {@code row} on so that {@code row} starts the next second exactly. */
        private void startSecondAt(final int row) {
            startBucketAt(row, SECOND);
        }

        /** Shifts rows from {@code row} on so that {@code row} starts the next bucket of {@code width} exactly. */
        void startBucketAt(final int row, final long width) {
            final long shift = (Math.floorDiv(ts[row - 1], width) + 1) * width - ts[row];
            for (int i = row; i < ts.length; i++) {
                ts[i] += shift;
            }
        }

        void write(final TableWriter w, final int from, final int to) {
            final TradeFlyweight f = new TradeFlyweight();
            for (int i = from; i < to; i++) {
                w.append(f);
                f.tradeId(i + 1).clientId(i % 5).instrument("SYM" + inst[i]).venue("XLON").side('B');
                if (ts[i] != NULL) {
                    f.ts(ts[i]);
                }
                if (price[i] != NULL) {
                    f.price(price[i]);
                }
                if (qty[i] != NULL) {
                    f.quantity(qty[i]);
                }
            }
            w.commit();
        }

        /** @return per bucket start: open, high, low, close (price mantissas), volume, count; by (ts, row) order. */
        Map<Long, long[]> expected(final int rows, final long width, final int instrument, final long from,
            final long to) {
            final Map<Long, long[]> out = new TreeMap<>();
            final Map<Long, long[]> order = new TreeMap<>(); // first ts, first row, last ts, last row
            for (int i = 0; i < rows; i++) {
                if (ts[i] == NULL || ts[i] < from || ts[i] >= to || instrument >= 0 && inst[i] != instrument) {
                    continue;
                }
                final long key = Math.floorDiv(ts[i], width) * width;
                final long[] o = out.computeIfAbsent(key, k -> new long[] {NULL, NULL, NULL, NULL, NULL, 0});
                final long[] ord = order.computeIfAbsent(key, k -> new long[] {0, -1, 0, -1});
                o[5]++;
                if (qty[i] != NULL) {
                    o[4] = (o[4] == NULL ? 0 : o[4]) + qty[i];
                }
                if (price[i] == NULL) {
                    continue;
                }
                o[1] = o[1] == NULL ? price[i] : Math.max(o[1], price[i]);
                o[2] = o[2] == NULL ? price[i] : Math.min(o[2], price[i]);
                if (ord[1] < 0 || ts[i] < ord[0]) { // rows ascend: an equal timestamp keeps the earlier row
                    ord[0] = ts[i];
                    ord[1] = i;
                    o[0] = price[i];
                }
                if (ord[3] < 0 || ts[i] >= ord[2]) { // an equal timestamp takes the later row
                    ord[2] = ts[i];
                    ord[3] = i;
                    o[3] = price[i];
                }
            }
            return out;
        }
    }

    private static Schema schema() {
        return TradesSchema.SCHEMA.with("trades", Layout.COLUMN, SEGMENT, BLOCK);
    }

    @Test
    void shouldMatchABruteForceOhlcOnSortedUnsortedAndTiedBlocks() {
        final int rows = 2 * SEGMENT + 5 * BLOCK / 2; // two sealed segments, an open one with 2.5 blocks
        final Rows data = new Rows(rows, 42);
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.openOrCreate(schema()).writer()) {
                data.write(w, 0, rows);
            }
            for (final QueryEngine e : engines(store)) {
                try (e) {
                    checkAll(e, data, rows);
                }
            }
        }
    }

    @Test
    void shouldSeeTheOpenSegmentGrow() {
        final int total = 2 * SEGMENT + 4 * BLOCK;
        final Rows data = new Rows(total, 7);
        // an out-of-order row in a block that is still incomplete at the first query
        final int late = 2 * SEGMENT + BLOCK + 100;
        data.ts[late] = data.ts[late - 60];
        try (Store store = Store.open(dir)) {
            final List<QueryEngine> engines = engines(store);
            try (TableWriter w = store.openOrCreate(schema()).writer()) {
                int written = 0;
                for (final int upTo
                    : new int[] {2 * SEGMENT + BLOCK / 2, 2 * SEGMENT + BLOCK + 70, 2 * SEGMENT + 2 * BLOCK + 3,
                    total}) {
                    data.write(w, written, upTo);
                    written = upTo;
                    for (final QueryEngine e : engines) {
                        checkAll(e, data, written);
                    }
                }
            } finally {
                engines.forEach(QueryEngine::close);
            }
        }
    }

    @ParameterizedTest(name = "bounds kept: {0}")
    @ValueSource(booleans = {true, false})
    void shouldSplitOnlyBatchesKnownToBeInTimeOrder(final boolean cachedBounds) {
        final int rows = 2 * SEGMENT + 5 * BLOCK / 2;
        final Rows data = new Rows(rows, 42);
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.openOrCreate(schema()).writer()) {
                data.write(w, 0, rows);
            }
            final TableSnapshot snap = store.table("trades").reader().snapshot();
            final Plan plan = new Plan();
            plan.schema = snap.schema();
            plan.slotColumn = new int[] {snap.schema().timestampIndex()};
            plan.slotSkipped = new boolean[1];
            try (BatchContext c = new BatchContext(plan)) {
                final BucketRuns runs =
                    new BucketRuns(snap.schema().timestampIndex(), SECOND, BLOCK, SEGMENT, cachedBounds);
                for (int si = 0; si < snap.segmentCount(); si++) {
                    final Segment s = snap.segment(si);
                    final int segmentRows = snap.segmentRowCount(si);
                    final int base = si * SEGMENT;
                    c.segment(s, base);
                    runs.beginSegment(s, segmentRows);
                    for (int b = 0; b * BLOCK < segmentRows; b++) {
                        final int block = si * 8 + b;
                        final boolean inOrder = block != UNSORTED_BLOCK && block != NULL_TS_BLOCK
                            && (b + 1) * BLOCK <= segmentRows;
                        final int n = Math.min(BLOCK, segmentRows - b * BLOCK);
                        // the whole block, dense
                        assertThat(runs.split(c, b * BLOCK, n, null)).as("block %d", block).isEqualTo(inOrder);
                        if (inOrder) {
                            checkRuns(runs, data, base, b * BLOCK, n, null, SECOND);
                        }
                        // every other row of this block and the next one: overlapping zone maps refuse
                        final int[] sel = new int[BLOCK];
                        int k = 0;
                        for (int r = b * BLOCK; r < Math.min(segmentRows, (b + 2) * BLOCK); r += 2) {
                            sel[k++] = r;
                        }
                        final int next = block + 1;
                        final boolean bothInOrder = inOrder
                            && (k * 2 <= n || next != UNSORTED_BLOCK && next != NULL_TS_BLOCK
                            && next != OVERLAP_BLOCK && (b + 2) * BLOCK <= segmentRows);
                        assertThat(runs.split(c, 0, k, sel)).as("blocks %d-%d", block, next).isEqualTo(bothInOrder);
                        if (bothInOrder) {
                            checkRuns(runs, data, base, 0, k, sel, SECOND);
                        }
                    }
                }
                // too many bucket changes for the rows (1 ms buckets): the per-row path
                final BucketRuns fine =
                    new BucketRuns(snap.schema().timestampIndex(), 1_000_000L, BLOCK, SEGMENT, cachedBounds);
                c.segment(snap.segment(0), 0);
                fine.beginSegment(snap.segment(0), snap.segmentRowCount(0));
                assertThat(fine.split(c, 0, BLOCK, null)).isFalse();
                // a bucket that holds the whole batch: one run, no timestamp read
                final BucketRuns hour =
                    new BucketRuns(snap.schema().timestampIndex(), 3_600 * SECOND, BLOCK, SEGMENT, cachedBounds);
                hour.beginSegment(snap.segment(0), snap.segmentRowCount(0));
                assertThat(hour.split(c, 0, BLOCK, null)).isTrue();
                assertThat(hour.runs).isEqualTo(1);
                checkRuns(hour, data, 0, 0, BLOCK, null, 3_600 * SECOND);
            }
        }
    }

    @Test
    void shouldKeepEachBlocksBucketChangesAsItsTimestampsGiveThem() {
        final int rows = 2 * SEGMENT;
        final Rows data = alignedBlocks(new Rows(rows, 42));
        try (Store store = written(data, rows)) {
            final TableSnapshot snap = store.table("trades").reader().snapshot();
            final int ts = snap.schema().timestampIndex();
            int kept = 0;
            int tooFine = 0;
            for (final long width : new long[] {1_000_000L, SECOND, 5 * SECOND, 60 * SECOND}) {
                for (int si = 0; si < snap.segmentCount(); si++) {
                    final Segment s = snap.segment(si);
                    for (int b = 0; b < SEGMENT / BLOCK; b++) {
                        if (!SortedBlocks.sorted(s, ts, b, BLOCK, snap.segmentRowCount(si))) {
                            continue;
                        }
                        final int first = si * SEGMENT + b * BLOCK;
                        // brute force: (offset, key) at every change of floorDiv(ts, width) in the block
                        final List<Long> want = new ArrayList<>(List.of(Math.floorDiv(data.ts[first], width)));
                        for (int r = 1; r < BLOCK; r++) {
                            final long key = Math.floorDiv(data.ts[first + r], width);
                            if (key != Math.floorDiv(data.ts[first + r - 1], width)) {
                                want.add((long) r);
                                want.add(key);
                            }
                        }
                        final long[] got = BucketBounds.of(s, ts, width, b, BLOCK, SEGMENT / BLOCK);
                        if (want.size() / 2 > BucketBounds.maxChanges(BLOCK)) {
                            assertThat(got).as("block %d of segment %d, width %d", b, si, width).isNull();
                            tooFine++;
                        } else {
                            assertThat(got).as("block %d of segment %d, width %d", b, si, width)
                                .containsExactly(want.stream().mapToLong(Long::longValue).toArray());
                            kept++;
                        }
                    }
                }
            }
            assertThat(kept).isGreaterThan(10);
            assertThat(tooFine).isGreaterThan(10);
        }
    }

    @Test
    void shouldSplitSparseSelectionsAlikeFromKeptBoundsAndFromTimestamps() {
        final int rows = 2 * SEGMENT;
        final Rows data = alignedBlocks(new Rows(rows, 11));
        try (Store store = written(data, rows)) {
            final TableSnapshot snap = store.table("trades").reader().snapshot();
            final Plan plan = new Plan();
            plan.schema = snap.schema();
            plan.slotColumn = new int[] {snap.schema().timestampIndex()};
            plan.slotSkipped = new boolean[1];
            final SplittableRandom random = new SplittableRandom(5);
            int compared = 0;
            try (BatchContext c = new BatchContext(plan)) {
                for (final long width : new long[] {SECOND, 5 * SECOND, 10 * SECOND, 60 * SECOND}) {
                    final BucketRuns cached =
                        new BucketRuns(snap.schema().timestampIndex(), width, BLOCK, SEGMENT, true);
                    final BucketRuns read =
                        new BucketRuns(snap.schema().timestampIndex(), width, BLOCK, SEGMENT, false);
                    for (int si = 0; si < snap.segmentCount(); si++) {
                        final Segment s = snap.segment(si);
                        c.segment(s, (long) si * SEGMENT);
                        cached.beginSegment(s, snap.segmentRowCount(si));
                        read.beginSegment(s, snap.segmentRowCount(si));
                        for (int trial = 0; trial < 200; trial++) {
                            // a sparse selection (1 in 2 to 1 in 40 rows) over up to four blocks from a random row
                            final int from = random.nextInt(SEGMENT - 1);
                            final int to = Math.min(SEGMENT, from + 1 + random.nextInt(4 * BLOCK));
                            final int every = 2 + random.nextInt(39);
                            final int[] sel = new int[BLOCK * 4];
                            int k = 0;
                            for (int r = from; r < to; r++) {
                                if (r == from || random.nextInt(every) == 0) {
                                    sel[k++] = r;
                                }
                            }
                            final boolean a = cached.split(c, 0, k, sel);
                            final boolean b = read.split(c, 0, k, sel);
                            assertThat(a).isEqualTo(b);
                            if (!a) {
                                continue;
                            }
                            checkRuns(cached, data, si * SEGMENT, 0, k, sel, width);
                            assertThat(Arrays.copyOf(cached.runStart, cached.runs + 1))
                                .isEqualTo(Arrays.copyOf(read.runStart, read.runs + 1));
                            assertThat(Arrays.copyOf(cached.runKey, cached.runs))
                                .isEqualTo(Arrays.copyOf(read.runKey, read.runs));
                            compared++;
                        }
                    }
                }
            }
            assertThat(compared).isGreaterThan(100);
        }
    }

    /**
     * @return a store in the test directory holding the first {@code rows} rows of {@code data} (the caller closes it).
     */
    private Store written(final Rows data, final int rows) {
        final Store store = Store.open(dir);
        try (TableWriter w = store.openOrCreate(schema()).writer()) {
            data.write(w, 0, rows);
        }
        return store;
    }

    /**
     * @return the rows with every other block (not the overlapping one) starting a new 5-second bucket exactly: a
     * bucket change at a block's first row.
     */
    private static Rows alignedBlocks(final Rows data) {
        for (int b = 2; b * BLOCK < data.ts.length; b += 2) {
            if (b != OVERLAP_BLOCK && b != OVERLAP_BLOCK + 1 && b != NULL_TS_BLOCK && b != NULL_TS_BLOCK + 1) {
                data.startBucketAt(b * BLOCK, 5 * SECOND);
            }
        }
        return data;
    }

    private static void checkRuns(final BucketRuns runs, final Rows data, final int base, final int start, final int n,
        final int[] sel,
                                  final long width) {
        assertThat(runs.runStart[0]).isZero();
        assertThat(runs.runStart[runs.runs]).isEqualTo(n);
        for (int j = 0; j < runs.runs; j++) {
            assertThat(runs.runStart[j + 1]).isGreaterThan(runs.runStart[j]);
            if (j > 0) {
                assertThat(runs.runKey[j]).isGreaterThan(runs.runKey[j - 1]);
            }
            for (int i = runs.runStart[j]; i < runs.runStart[j + 1]; i++) {
                final int row = base + (sel == null ? start + i : sel[i]);
                assertThat(Math.floorDiv(data.ts[row], width)).as("row %d", row).isEqualTo(runs.runKey[j]);
            }
        }
    }

    /**
     * Engines with and without bitmap indexes, on one and two threads, with small morsels so that two workers share
     * segments.
     */
    private static List<QueryEngine> engines(final Store store) {
        final List<QueryEngine> out = new ArrayList<>();
        for (final int threads : new int[] {1, 2}) {
            final QueryEngine indexed = new QueryEngine(store, threads);
            indexed.indexes().minSegmentRows(1);
            indexed.morselRows(2 * BLOCK);
            indexed.smallQueryRows(0);
            final QueryEngine scanning = new QueryEngine(store, threads);
            scanning.useIndexes(false);
            scanning.morselRows(2 * BLOCK);
            scanning.smallQueryRows(0);
            out.add(indexed);
            out.add(scanning);
        }
        return out;
    }

    private static void checkAll(final QueryEngine e, final Rows data, final int rows) {
        final long mid = data.ts[rows / 2] == NULL ? data.ts[rows / 2 + 1] : data.ts[rows / 2];
        for (final long width : new long[] {SECOND, 5 * SECOND, 60 * SECOND, 3_600 * SECOND}) {
            for (final int instrument : new int[] {-1, 0, 1, 2}) {
                check(e, data, rows, width, instrument, Long.MIN_VALUE + 1, Long.MAX_VALUE);
                check(e, data, rows, width, instrument, T0 + 7 * SECOND + 1, mid);
            }
        }
    }

    private static void check(final QueryEngine e, final Rows data, final int rows, final long width,
        final int instrument, final long from,
                              final long to) {
        final String q = "{\"table\":\"trades\",\"time\":{\"from\":" + from + ",\"to\":" + to + "}"
            + (instrument < 0 ? "" : ",\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM" + instrument
            + "\"}")
            + ",\"groupBy\":[{\"bucket\":\"" + width / SECOND + "s\",\"col\":\"ts\",\"as\":\"b\"}],\"aggs\":["
            + "{\"name\":\"open\",\"op\":\"first\",\"col\":\"price\"},{\"name\":\"high\",\"op\":\"max\",\"col\":\"pric"
            + "e\"},"
            + "{\"name\":\"low\",\"op\":\"min\",\"col\":\"price\"},{\"name\":\"close\",\"op\":\"last\",\"col\":\"price"
            + "\"},"
            + "{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"},{\"name\":\"n\",\"op\":\"count\"}],\"orderBy"
            + "\":[{\"col\":\"b\"}]}";
        final Map<Long, long[]> expected = data.expected(rows, width, instrument, from, to);
        final QueryResult r = e.execute(q);
        final List<String> actual = new ArrayList<>();
        for (int i = 0; i < r.rowCount(); i++) {
            actual.add(r.value(i, 0) + " " + r.value(i, 1) + " " + r.value(i, 2) + " " + r.value(i, 3) + " " + r
                .value(i, 4) + " "
                + r.value(i, 5) + " " + r.value(i, 6));
        }
        final List<String> want = new ArrayList<>();
        for (final Map.Entry<Long, long[]> en : expected.entrySet()) {
            final long[] o = en.getValue();
            want.add(en.getKey() + " " + dec(o[0], 6) + " " + dec(o[1], 6) + " " + dec(o[2], 6) + " " + dec(o[3], 6)
                + " " + dec(o[4], 0) + " " + o[5]);
        }
        assertThat(actual).as("%s on %d rows", q, rows).isEqualTo(want);
    }

    private static String dec(final long v, final int scale) {
        return v == NULL ? "null" : BigDecimal.valueOf(v, scale).toString();
    }
}
