package io.tradestore.query.index;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.roaringbitmap.buffer.ImmutableRoaringBitmap;
import org.roaringbitmap.buffer.MutableRoaringBitmap;

import io.tradestore.core.StoreException;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.spi.Buckets;
import io.tradestore.query.spi.Deadline;
import io.tradestore.query.spi.IndexLeaf;
import io.tradestore.query.spi.SegmentSelector;
import io.tradestore.query.spi.Selection;
import io.tradestore.query.index.SummaryCache.SummaryKey;

/**
 * The bitmap indexes of segments: for symbol columns (and integer columns with few distinct values per segment, such
 * as client ids) one Roaring bitmap of rows per value. A sealed segment's index is built on first use, persisted beside
 * the segment (temp file, atomic rename; a torn file fails its checksum), mapped and reused; a missing or corrupt file
 * is rebuilt. One that cannot be written (a read-only store, a full disk) is kept on the heap instead, under the
 * summaries' budget ({@link #indexesInMemory}), with one warning per table. The open segment's committed prefix is
 * indexed in memory ({@link OpenSegmentIndex}). Answers the eq/in/ne conjuncts of a query by intersecting per-leaf
 * bitmaps smallest first, stopping as soon as the result is empty. The entry point: the files are
 * {@link BitmapIndexFiles}' job, the budgeted heap of summaries and held indexes {@link SummaryCache}'s.
 */
public final class BitmapIndexes implements SegmentSelector {
    /** Segments smaller than this are scanned: reading a few thousand rows is cheaper than any index file. */
    public static final int DEFAULT_MIN_SEGMENT_ROWS = 1 << 16;
    private final Map<Key, SegmentIndex> cache = new ConcurrentHashMap<>();
    private final SharedBuilds<Key> indexBuilds = new SharedBuilds<>();
    /** Per index that could not be written nor held (no room in the budget), its bytes: scanned until room is made. */
    private final Map<Key, Long> heldOverBudget = new ConcurrentHashMap<>();
    /** Tables (their directories) whose index files could not be written: warned about once each. */
    private final Set<Path> unwritable = ConcurrentHashMap.newKeySet();
    /** The JDK's logger facade: a server's logging backend (or java.util.logging's stderr) gets the warning. */
    private static final System.Logger LOG = System.getLogger(BitmapIndexes.class.getName());
    /**
     * Entries (slots x parts) of one value summary at most by default: ~4 MB of arrays; a column with more slots gets
     * none.
     */
    public static final int DEFAULT_SUMMARY_ENTRIES = 1 << 16;
    /** Rows per part, log2, of a sealed segment's summary of all rows: 4,096 (128 KB per measure for 4M rows). */
    static final int ALL_ROWS_PART_SHIFT = 12;
    private volatile int summaryEntries = DEFAULT_SUMMARY_ENTRIES;
    /**
     * Heap the value summaries may take by default: an eighth of the heap, at most 256 MB (for 50M trades in 12
     * segments, by their sizes: one client measure 12 x 4 parts x 10,002 slots x 64 B = 31 MB, two instrument measures
     * 2 x 12 x 64 parts x ~501 slots x 64 B = 49 MB).
     */
    public static final long DEFAULT_SUMMARY_BUDGET = Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 8);
    /**
     * Sealed segments whose timestamps are not in order (a property of the segment, whatever the key and measure): no
     * bucket summary is built for them, and a second key or measure does not pay a pass (nor evict summaries) to learn
     * it. Segments compare by identity.
     */
    private final Set<Segment> outOfOrder = ConcurrentHashMap.newKeySet();
    /**
     * Per bucket summary that had more cells than the budget left, the cells it has: tried again only once the budget
     * has room for them all (made by evicting idle summaries, a larger {@link #summaryBudget}, or after
     * {@link #clear}), not by every query at the cost of a pass.
     */
    private final Map<SummaryKey, Long> overBudget = new ConcurrentHashMap<>();
    /** How many times a bucket summary is asked for before it is built (see {@link #bucketSummaryAfter(int)}). */
    public static final int DEFAULT_BUCKET_SUMMARY_AFTER = 2;
    private volatile int bucketSummaryAfter = DEFAULT_BUCKET_SUMMARY_AFTER;
    /** Per bucket summary not built yet: the queries that asked for it. */
    private final Map<SummaryKey, AtomicInteger> bucketAsks = new ConcurrentHashMap<>();
    /** Value and bucket summaries and held indexes, under one budget. */
    private final SummaryCache summaryCache;
    /**
     * How long a summary must have gone unused before it may be evicted to make room for another (default one minute):
     * a server whose queries move on (other instruments, other days) gets room for the new ones, while a working set
     * larger than the budget is not rebuilt over and over (a build is a pass over a segment: the rest of such a
     * workload reads its rows instead).
     */
    public static final long DEFAULT_SUMMARY_IDLE_MILLIS = 60_000;
    /**
     * Per open segment (segments compare by identity), its columns' in-memory indexes of the committed prefix; the
     * entry is dropped once the segment is seen sealed.
     */
    private final Map<Segment, AtomicReferenceArray<OpenSegmentIndex>> open = new ConcurrentHashMap<>();
    private volatile int minSegmentRows = DEFAULT_MIN_SEGMENT_ROWS;
    private final AtomicLong builds = new AtomicLong();
    private final AtomicLong loads = new AtomicLong();

    /** A segment (compared by identity) and a column of it: the key of its index. */
    record Key(Segment segment, int column) {
        @Override
        public boolean equals(final Object o) {
            return o instanceof Key && ((Key) o).segment == segment && ((Key) o).column == column;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(segment) * 31 + column;
        }
    }

    /** Indexes and summaries on {@link System#nanoTime()}. */
    public BitmapIndexes() {
        this(System::nanoTime);
    }

    /**
     * @param nanos the clock of summaries' last use and idle time, instead of {@link System#nanoTime()} (tests move
     * it).
     */
    BitmapIndexes(final LongSupplier nanos) {
        this.summaryCache = new SummaryCache(nanos);
    }

    /** @param rows segments with fewer rows are scanned, not indexed (tests lower it). */
    public void minSegmentRows(final int rows) {
        this.minSegmentRows = rows;
    }

    /** @return indexes built (and written) by this object. */
    public long builds() {
        return builds.get();
    }

    /** @return indexes read from disk by this object. */
    public long loads() {
        return loads.get();
    }

    /** @return indexes of sealed segments held on the heap because their files could not be written. */
    public int indexesInMemory() {
        return summaryCache.heldCount();
    }

    /** @param c a column. @return whether the column type can be indexed. */
    static boolean indexable(final Column c) {
        switch (c.type()) {
            case SYMBOL:
            case CHAR:
            case I8:
            case I16:
            case I32:
            case I64:
                return true;
            default:
                return false;
        }
    }

    /**
     * Returns a sealed segment's index of a column, loading or building it.
     *
     * @param snap     the snapshot.
     * @param segment  a sealed segment.
     * @param column   the column.
     * @param deadline the query's, checked while the index is built (nothing is cached or written when it passes) or
     *                 while the query waits for another query's build of it ({@link SharedBuilds}).
     * @return the index, or null when the column is not worth indexing there, or when its file could not be written and
     *         the summaries' budget has no room to hold it (the query scans the segment then).
     */
    public SegmentIndex index(final TableSnapshot snap, final int segment, final int column,
                              final Deadline deadline) {
        final Column c = snap.schema().column(column);
        if (!indexable(c) || !snap.segmentSealed(segment) || snap.segmentRowCount(segment) < minSegmentRows) {
            return null;
        }
        final Segment s = snap.segment(segment);
        final Key key = new Key(s, column);
        final SegmentIndex cached = lookup(key);
        final SegmentIndex idx = cached != null ? cached : indexBuilds.get(key, deadline, () -> lookup(key), () -> {
            final Long need = heldOverBudget.get(key);
            if (need != null && !makeRoom(need)) {
                // its file cannot be written and it has no room on the heap: a scan is cheaper than a build
                return null;
            }
            return loadOrBuild(snap, segment, c, key, deadline);
        });
        return idx == SegmentIndex.NONE ? null : idx;
    }

    /** @return the mapped or held index of a key (a held one is touched: it is in use), or null. */
    private SegmentIndex lookup(final Key key) {
        final SegmentIndex mapped = cache.get(key);
        if (mapped != null) {
            return mapped;
        }
        return summaryCache.heldIndex(key);
    }

    /**
     * Returns the in-memory index of an open segment's first {@code rows} committed rows, extending it as needed.
     *
     * @param snap    the snapshot.
     * @param segment the open segment.
     * @param column  the column.
     * @return the index, or null when the column is not worth indexing there.
     */
    ValueRows openIndex(final TableSnapshot snap, final int segment, final int column,
                        final Deadline deadline) {
        final Column c = snap.schema().column(column);
        final int rows = snap.segmentRowCount(segment);
        if (!indexable(c) || rows < minSegmentRows) {
            return null;
        }
        final Segment s = snap.segment(segment);
        final AtomicReferenceArray<OpenSegmentIndex> columns =
            open.computeIfAbsent(s, k -> new AtomicReferenceArray<>(snap.schema().columnCount()));
        OpenSegmentIndex idx = columns.get(column);
        if (idx == null) {
            columns.compareAndSet(column, null, new OpenSegmentIndex(s, c));
            idx = columns.get(column);
        }
        return idx.view(rows, deadline);
    }

    /**
     * Forgets every mapped index (files stay on disk), every held index, every open segment's index and every (value or
     * bucket) summary.
     */
    public void clear() {
        cache.clear();
        open.clear();
        heldOverBudget.clear();
        summaryCache.clear();
        outOfOrder.clear();
        overBudget.clear();
        bucketAsks.clear();
    }

    /**
     * Forgets everything held for segments that were closed since: the segments of a dropped table, or those retention
     * dropped, once no snapshot spans them. Their mapped index files would otherwise keep the deleted files' blocks.
     */
    public void evictClosed() {
        cache.keySet().removeIf(k -> k.segment().isClosed());
        heldOverBudget.keySet().removeIf(k -> k.segment().isClosed());
        open.keySet().removeIf(Segment::isClosed);
        outOfOrder.removeIf(Segment::isClosed);
        overBudget.keySet().removeIf(k -> k.segment().isClosed());
        bucketAsks.keySet().removeIf(k -> k.segment().isClosed());
        summaryCache.evictClosed();
    }

    /** @param s segment. @param c column. @return the index file of the column in the segment. */
    public static Path file(final Segment s, final Column c) {
        return BitmapIndexFiles.file(s, c);
    }

    /**
     * Loads the index file, or builds the index and writes it, caching what it gets (a held index when the write
     * fails).
     */
    private SegmentIndex loadOrBuild(final TableSnapshot snap, final int segment, final Column c, final Key key,
                                     final Deadline deadline) {
        final Segment s = snap.segment(segment);
        final Path path = file(s, c);
        final int rows = snap.segmentRowCount(segment);
        final SegmentIndex loaded = BitmapIndexFiles.load(path, rows);
        if (loaded != null) {
            loads.incrementAndGet();
            cache.put(key, loaded);
            return loaded;
        }
        final ByteBuffer image = BitmapIndexFiles.build(s, c, rows, path, deadline);
        builds.incrementAndGet();
        try {
            BitmapIndexFiles.write(path, image);
        } catch (final StoreException e) {
            return hold(key, s, path, image, rows, e);
        }
        final SegmentIndex built = BitmapIndexFiles.load(path, rows);
        if (built == null) {
            throw new StoreException("bitmap index " + path + " failed its checks right after it was written");
        }
        cache.put(key, built);
        return built;
    }

    /**
     * Keeps an index whose file could not be written on the heap when the budget has (or idle summaries make) room for
     * it; else it answers this query only, and the segment is scanned until there is room. Holding it instead of
     * scanning: the query has paid for the build already, and a held index answers the next ones as fast as a mapped
     * one.
     *
     * @return the index.
     */
    private SegmentIndex hold(final Key key, final Segment s, final Path path, final ByteBuffer image, final int rows,
                              final StoreException e) {
        if (unwritable.add(s.directory().getParent())) {
            LOG.log(System.Logger.Level.WARNING, "bitmap indexes of table directory " + s.directory().getParent()
                + " cannot be written (first: " + e.getMessage() + "); queries keep them in memory, within the "
                + "summaries' budget, and scan what does not fit. Make the segment directories writable or free disk "
                + "space to keep them on disk; this is logged once per table");
        }
        final SegmentIndex idx = BitmapIndexFiles.read(image, image.capacity(), rows);
        if (idx == null) {
            throw new StoreException("bitmap index " + path + " failed its checks right after it was built");
        }
        if (idx == SegmentIndex.NONE) {
            cache.put(key, idx); // a marker holds no bitmaps: nothing to count
            return idx;
        }
        final long bytes = image.capacity();
        if (!makeRoom(bytes)) {
            heldOverBudget.put(key, bytes);
            return idx;
        }
        heldOverBudget.remove(key);
        summaryCache.hold(key, idx, bytes);
        return idx;
    }

    /** @return the mapped index, NONE for a marker, or null when the file is missing or fails its checks. */
    static SegmentIndex load(final Path path, final int rows) {
        return BitmapIndexFiles.load(path, rows);
    }

    /**
     * Builds the index of one column of a sealed segment and writes it (not when the deadline passes first).
     *
     * @throws StoreException when the file cannot be written.
     */
    static void buildFile(final Segment s, final Column c, final int rows, final Path path,
                          final Deadline deadline) {
        BitmapIndexFiles.buildFile(s, c, rows, path, deadline);
    }

    @Override
    public Selection select(final TableSnapshot snap, final int segment, final List<IndexLeaf> leaves,
                            final int fromRow, final int toRow, final Deadline deadline) {
        if (leaves.isEmpty()) {
            return null;
        }
        final int rows = snap.segmentRowCount(segment);
        final int from = Math.max(0, fromRow);
        final int to = Math.min(rows, toRow);
        final boolean whole = from == 0 && to == rows;
        final boolean sealed = snap.segmentSealed(segment);
        if (sealed && !open.isEmpty()) {
            open.remove(snap.segment(segment)); // sealed now: its file index takes over
        }
        final List<ImmutableRoaringBitmap> parts = new ArrayList<>();
        final List<Object> answered = new ArrayList<>(leaves.size());
        if (!sealed) {
            final Selection lazy = openSelection(snap, segment, leaves, deadline);
            if (lazy != null) {
                return lazy;
            }
        }
        for (final IndexLeaf leaf : leaves) {
            final ValueRows idx = sealed ? index(snap, segment, leaf.column(), deadline)
                : openIndex(snap, segment, leaf.column(), deadline);
            if (idx == null) {
                continue;
            }
            ImmutableRoaringBitmap b = whole || leaf.values().length == 1 ? rowsOf(idx, leaf.values(), 0)
                : ImmutableRoaringBitmap.or(Arrays.asList(valueRows(idx, leaf.values(), 0)).iterator(), (long) from,
                    (long) to);
            if (leaf.negated()) {
                final MutableRoaringBitmap all = new MutableRoaringBitmap();
                all.add((long) from, (long) to);
                b = ImmutableRoaringBitmap.andNot(ImmutableRoaringBitmap.andNot(all, idx.nulls()), b);
            }
            parts.add(b);
            answered.add(leaf.node());
        }
        if (parts.isEmpty()) {
            return null;
        }
        // a mapped bitmap's cardinality walks its container headers: count each part once
        // one sealed leaf: its cardinality is walked only if asked (summaries folding the segment never ask)
        final boolean lazy = sealed && parts.size() == 1;
        final long[] cards = new long[parts.size()];
        int smallest = 0;
        for (int i = 0; i < cards.length && !lazy; i++) {
            cards[i] = IndexSelection.cardinality(parts.get(i), from, to, rows);
            smallest = cards[i] < cards[smallest] ? i : smallest;
        }
        // A selection that keeps most rows is slower to read than a scan of the column (unless summaries answer it).
        if (!lazy && cards[smallest] > (to - from) / 4) {
            return null;
        }
        ImmutableRoaringBitmap result = parts.get(smallest);
        long cardinality = lazy ? -1 : cards[smallest];
        if (parts.size() > 1) {
            final Integer[] order = new Integer[parts.size()];
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
            }
            Arrays.sort(order, Comparator.comparingLong(i -> cards[i]));
            for (int i = 1; i < order.length && !result.isEmpty(); i++) {
                result = ImmutableRoaringBitmap.and(result, parts.get(order[i]));
            }
            cardinality = IndexSelection.cardinality(result, from, to, rows);
        }
        final ImmutableRoaringBitmap chosen = result;
        // one plain eq/in leaf: its rows per value are summarised per part (an open segment's complete parts)
        final IndexLeaf summarised = parts.size() == 1 ? leafOf(leaves, answered.get(0)) : null;
        return new IndexSelection(this, snap, segment, sealed, from, to, chosen, cardinality, answered, summarised,
            deadline);
    }


    @Override
    public int[] dropped(final TableSnapshot snap, final int segment, final IndexLeaf leaf, final int maxRows,
                         final Deadline deadline) {
        if (!leaf.negated() || !snap.segmentSealed(segment)) {
            return null;
        }
        final SegmentIndex idx = index(snap, segment, leaf.column(), deadline);
        if (idx == null) {
            return null;
        }
        final ImmutableRoaringBitmap b = ImmutableRoaringBitmap.or(rowsOf(idx, leaf.values(), 0), idx.nulls());
        return b.getLongCardinality() > maxRows ? null : b.toArray();
    }


    @Override
    public Buckets buckets(final TableSnapshot snap, final int segment, final IndexLeaf leaf,
                                    final int colA, final int colB, final Deadline deadline) {
        if (leaf.negated() || !snap.segmentSealed(segment)) {
            return null;
        }
        final BucketSummary b = bucketSummary(snap, segment, leaf.column(), colA, colB, deadline);
        return b == null ? null : b.view(leaf.values());
    }

    /**
     * All rows of a segment, for a global aggregate whose filter the zone maps prove for whole blocks (none, a time
     * range, ranges on columns that grow with the rows): whole parts fold from a summary of all rows (per part: rows,
     * and the measure's present count, exact sum and min/max), so only parts the ranges cut, and an open segment's
     * incomplete last part, are read.
     */
    @Override
    public Selection selectAll(final TableSnapshot snap, final int segment, final Deadline deadline) {
        return new AllRowsSelection(this, snap, segment, deadline);
    }


    /**
     * @return the summary of all rows of a segment (a sealed one's, or an open one's complete parts), built once; null
     *     when a measure is f64, no part is complete yet or the budget is spent.
     */
    ValueSummary allSummary(final TableSnapshot snap, final int segment, final int colA, final int colB,
                            final Deadline deadline) {
        final Column[] m = measures(snap, segment, colA, colB);
        if (m == null) {
            return null;
        }
        final int rows = snap.segmentRowCount(segment);
        final boolean sealed = snap.segmentSealed(segment);
        final int partShift = sealed ? allRowsPartShift(snap, summaryEntries) : partShift(snap, 2, summaryEntries);
        final int covered = sealed ? rows : rows >>> partShift << partShift;
        if (covered == 0) {
            return null;
        }
        final int blockShift = Integer.numberOfTrailingZeros(snap.schema().blockRows());
        return cachedSummary(snap, segment, -1, colA, colB, covered, () -> {
            final ValueSummary v = ValueSummary.build(snap.segment(segment), covered, null, 0, 2, partShift, m[0],
                m[1], false, deadline);
            return v == null || partShift >= blockShift ? v : v.withCoarse(blockShift);
        }, deadline);
    }

    /**
     * @return the measure columns {a, b} (either null when -1), or null when there is no exact summary of them in the
     *     segment: one is f64, or the zone maps let the product's sums reach 2^125 (
     * {@link ValueSummary#productSumsFit}:
     *     asked here, before a build is approved and room made for it, so a summary that would be refused evicts none).
     */
    private static Column[] measures(final TableSnapshot snap, final int segment, final int colA, final int colB) {
        final Schema schema = snap.schema();
        final Column a = colA < 0 ? null : schema.column(colA);
        final Column b = colB < 0 ? null : schema.column(colB);
        if (a != null && !ValueSummary.measurable(a.type()) || b != null && !ValueSummary.measurable(b.type())) {
            return null;
        }
        return ValueSummary.productSumsFit(snap.segment(segment), snap.segmentRowCount(segment), a, b)
            ? new Column[] {a, b} : null;
    }

    /**
     * An open segment's selection by its one indexed eq/in leaf, assembled only when and as far as it is read: value
     * summaries fold the complete parts first, so a query usually reads only the rows after them.
     *
     * @return the selection, or null when not exactly one leaf has an index here or the leaf is negated.
     */
    private Selection openSelection(final TableSnapshot snap, final int segment,
                                             final List<IndexLeaf> leaves, final Deadline deadline) {
        IndexLeaf only = null;
        ValueRows idx = null;
        for (final IndexLeaf leaf : leaves) {
            final ValueRows i = openIndex(snap, segment, leaf.column(), deadline);
            if (i != null) {
                if (only != null) {
                    return null;
                }
                only = leaf;
                idx = i;
            }
        }
        if (only == null || only.negated()) {
            return null;
        }
        return new OpenSegmentSelection(this, snap, segment, only, idx, deadline);
    }

    /**
     * @return the rows holding any of {@code values} (from at least {@code fromRow} on; see
     * {@link ValueRows#rowsFrom}).
     */
    static ImmutableRoaringBitmap rowsOf(final ValueRows idx, final long[] values, final int fromRow) {
        if (values.length == 1) {
            return idx.rowsFrom(values[0], fromRow);
        }
        final ImmutableRoaringBitmap[] bs = valueRows(idx, values, fromRow);
        return bs.length == 0 ? new MutableRoaringBitmap() : ImmutableRoaringBitmap.or(bs);
    }

    /** @return per value, the rows holding it (from at least {@code fromRow} on). */
    private static ImmutableRoaringBitmap[] valueRows(final ValueRows idx, final long[] values, final int fromRow) {
        final ImmutableRoaringBitmap[] bs = new ImmutableRoaringBitmap[values.length];
        for (int i = 0; i < bs.length; i++) {
            bs[i] = idx.rowsFrom(values[i], fromRow);
        }
        return bs;
    }

    private static IndexLeaf leafOf(final List<IndexLeaf> leaves, final Object node) {
        for (final IndexLeaf l : leaves) {
            if (l.node() == node) {
                return l;
            }
        }
        return null;
    }

    /**
     * Returns (building once) the summary of a measure per value of an indexed column in a sealed segment.
     *
     * @param snap     the snapshot.
     * @param segment  a sealed segment.
     * @param key      the indexed column.
     * @param colA     the measure, or -1 for row counts only.
     * @param colB     a product's second factor, or -1.
     * @param deadline the query's, checked while the index or the summary is built (nothing is cached when it passes).
     * @return the summary, or null when the column has no index there, a measure column is f64, the index has more than
     *         {@link #summaryEntries(int)} slots, or the summaries already hold {@link #summaryBudget} bytes.
     */
    public ValueSummary summary(final TableSnapshot snap, final int segment, final int key, final int colA,
                                final int colB, final Deadline deadline) {
        final SegmentIndex idx = index(snap, segment, key, deadline);
        final Schema schema = snap.schema();
        final int entries = summaryEntries;
        final Column[] m = measures(snap, segment, colA, colB);
        if (idx == null || idx.slotCount() > entries || m == null) {
            return null;
        }
        final int rows = snap.segmentRowCount(segment);
        final int partShift = partShift(snap, idx.slotCount(), entries);
        return cachedSummary(snap, segment, key, colA, colB, rows, () -> ValueSummary.build(snap.segment(segment), rows,
            schema.column(key), idx.min(), idx.slotCount(), partShift, m[0], m[1], false, deadline), deadline);
    }

    /**
     * @return log2 of the rows per part of a sealed segment's summary of all rows: finer than a block (down to
     *     {@link #ALL_ROWS_PART_SHIFT}) as far as the entries allow, so that a time range whose ends a sorted search
     *     finds inside blocks reads less than two parts' rows at either end. An open segment's keep whole blocks: it
     *     is rebuilt each time a part completes.
     */
    private static int allRowsPartShift(final TableSnapshot snap, final int entries) {
        final int blockShift = Integer.numberOfTrailingZeros(snap.schema().blockRows());
        final int maxParts = Integer.highestOneBit(Math.max(1, entries / 2));
        return Math.max(Math.min(blockShift, ALL_ROWS_PART_SHIFT),
            snap.segmentShift() - Integer.numberOfTrailingZeros(maxParts));
    }

    /**
     * @return log2 of rows per part: whole blocks, as many parts as the entry budget allows (500 values: one per
     * block).
     */
    private static int partShift(final TableSnapshot snap, final int slots, final int entries) {
        final int blockShift = Integer.numberOfTrailingZeros(snap.schema().blockRows());
        final int maxParts = Integer.highestOneBit(Math.max(1, entries / slots));
        return Math.max(blockShift, snap.segmentShift() - Integer.numberOfTrailingZeros(maxParts));
    }

    /** @return the cached summary when it covers {@code rows} rows, else one built now (unless the budget is spent). */
    private ValueSummary cachedSummary(final TableSnapshot snap, final int segment, final int key, final int colA,
                                       final int colB, final int rows, final Supplier<ValueSummary> build,
                                       final Deadline deadline) {
        return summaryCache.value(new SummaryKey(snap.segment(segment), key, colA, colB), v -> v.coveredRows() >= rows,
            build, deadline);
    }


    /**
     * The summary of an open segment's complete parts (committed rows never change): rebuilt when more parts are
     * complete, so a growing segment pays one pass over its rows per part completed. The key range comes from the zone
     * maps of the complete blocks.
     *
     * @return the summary, or null when none applies (no complete part yet, too many slots, an f64 measure, budget).
     */
    ValueSummary openSummary(final TableSnapshot snap, final int segment, final int key, final int colA, final int colB,
                             final Deadline deadline) {
        final Schema schema = snap.schema();
        final Column kc = schema.column(key);
        final int rows = snap.segmentRowCount(segment);
        final Column[] m = measures(snap, segment, colA, colB);
        if (!indexable(kc) || rows < minSegmentRows || m == null) {
            return null;
        }
        final Segment s = snap.segment(segment);
        final int blocks = rows / schema.blockRows();
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        for (int b = 0; b < blocks; b++) {
            final long zmin = s.zoneMin(b, key);
            final long zmax = s.zoneMax(b, key);
            if (zmin <= zmax) {
                lo = Math.min(lo, zmin);
                hi = Math.max(hi, zmax);
            }
        }
        final int entries = summaryEntries;
        final long min = lo > hi ? 0 : lo;
        final long range = lo > hi ? 0 : hi - lo + 1;
        if (range < 0 || range + 1 > entries) {
            return null;
        }
        final int slots = (int) range + 1;
        final int partShift = partShift(snap, slots, entries);
        final int parts = rows >>> partShift;
        if (parts == 0) {
            return null;
        }
        return cachedSummary(snap, segment, key, colA, colB, parts << partShift, () -> ValueSummary.build(s,
            parts << partShift, kc, min, slots, partShift, m[0], m[1], true, deadline), deadline);
    }

    /**
     * Returns (building once) the per-minute summary of a measure per value of an indexed column in a sealed segment.
     *
     * @param snap     the snapshot.
     * @param segment  a sealed segment.
     * @param key      the indexed column.
     * @param colA     the measure, or -1 for row counts only.
     * @param colB     a product's second factor, or -1.
     * @param deadline the query's, checked while the index or the summary is built (nothing is cached when it passes).
     * @return the summary, or null when the column has no index there, a measure column is f64, the index has more than
     *         {@link #summaryEntries(int)} slots, the segment's timestamps are not in order (remembered for the
     * segment,
     *         whatever the key and measure: never retried), or its cells would take more than what the summaries leave
     * of
     *         {@link #summaryBudget} (tried again only with room for more).
     */
    BucketSummary bucketSummary(final TableSnapshot snap, final int segment, final int key, final int colA,
                                final int colB, final Deadline deadline) {
        final SegmentIndex idx = index(snap, segment, key, deadline);
        final Schema schema = snap.schema();
        final Column[] m = measures(snap, segment, colA, colB);
        final Segment s = snap.segment(segment);
        if (idx == null || idx.slotCount() > summaryEntries || m == null || !snap.segmentSealed(segment)
            || outOfOrder.contains(s)) {
            return null;
        }
        final SummaryKey k = new SummaryKey(s, key, colA, colB);
        // a one-off query reads its rows (a build is one more pass over the segment); a repeated one builds;
        // a segment that had more cells than the room it was given waits for room for all of them
        return summaryCache.bucket(k,
            () -> bucketAsks.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet() >= bucketSummaryAfter,
            () -> overBudget.getOrDefault(k, 1L) * BucketSummary.CELL_BYTES, () -> {
                final long maxCells = Math.max(0, summaryCache.room()) / BucketSummary.CELL_BYTES;
                final BucketSummary b = BucketSummary.build(s, snap.segmentRowCount(segment),
                    schema.column(schema.timestampIndex()), schema.column(key), idx.min(), idx.slotCount(), m[0], m[1],
                    maxCells, deadline);
                if (b.cellsNeeded() > 0) {
                    overBudget.put(k, b.cellsNeeded()); // over budget now, not for ever
                    return null;
                }
                overBudget.remove(k);
                bucketAsks.remove(k);
                if (b == BucketSummary.OUT_OF_ORDER) {
                    outOfOrder.add(s);
                    return null;
                }
                return b;
            }, deadline);
    }

    /**
     * Whether the budget has {@code needBytes} of room, making it by evicting idle summaries and held indexes
     * ({@link SummaryCache#makeRoom}).
     */
    private boolean makeRoom(final long needBytes) {
        return summaryCache.makeRoom(needBytes);
    }

    /** @return heap bytes the value and bucket summaries, and the held indexes ({@link #indexesInMemory}), hold now. */
    public long summaryBytes() {
        return summaryCache.summaryBytes();
    }

    /** @return scans of the summaries for idle ones (tests: a full budget of busy summaries is not scanned per ask). */
    long idleScans() {
        return summaryCache.idleScans();
    }

    /** @return summaries evicted to make room for others. */
    public long summaryEvictions() {
        return summaryCache.summaryEvictions();
    }

    /**
     * @param millis how long a summary must go unused before it may be evicted to make room for another (default
     *               {@link #DEFAULT_SUMMARY_IDLE_MILLIS}; 0 evicts the least recently used whenever room is needed).
     */
    public void summaryIdleMillis(final long millis) {
        summaryCache.summaryIdleMillis(millis);
    }

    /**
     * @param asks how many queries must ask for a bucket summary before it is built (default
     *             {@link #DEFAULT_BUCKET_SUMMARY_AFTER}: a one-off query, such as a CLI run, reads its rows instead of
     *             paying a pass over each segment; 1 builds on first use).
     */
    public void bucketSummaryAfter(final int asks) {
        this.bucketSummaryAfter = asks;
    }

    /** @return per-minute bucket summaries built by this object. */
    public long bucketSummaryBuilds() {
        return summaryCache.bucketSummaryBuilds();
    }

    /** @return summaries built by this object. */
    public long summaryBuilds() {
        return summaryCache.summaryBuilds();
    }

    /**
     * @param entries slots x parts of one summary at most: more parts per segment fold more of a time-cut range, fewer
     *                save memory (tests lower it to get parts of several blocks).
     */
    public void summaryEntries(final int entries) {
        this.summaryEntries = entries;
    }

    /** @param bytes heap bytes the summaries may take before no new one is built (tests lower it). */
    public void summaryBudget(final long bytes) {
        summaryCache.summaryBudget(bytes);
    }
}
