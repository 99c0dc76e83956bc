package io.tradestore.query.index;

import java.nio.CharBuffer;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

import org.roaringbitmap.buffer.ImmutableRoaringBitmap;
import org.roaringbitmap.buffer.MappeableArrayContainer;
import org.roaringbitmap.buffer.MappeableBitmapContainer;
import org.roaringbitmap.buffer.MutableRoaringBitmap;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.spi.Deadline;

/**
 * The in-memory bitmap index of one column of the open (still growing) segment, over its committed prefix. Committed
 * rows never change, so the prefix is indexed in immutable chunks of 64Ki rows (one Roaring container key each), built
 * once when the committed count first passes them; the partial chunk after the last full one is indexed per committed
 * row count and cached, so a query after a commit pays only for the rows of its last chunk.
 *
 * <pre>
 * rows of the open segment: | chunk 0 | chunk 1 | ... | chunk k-1 | tail (rows % 64Ki) | uncommitted ...
 *                            '--------- immutable, built once -----' '-- per row count --'
 * a chunk: values[] (sorted distinct raw values), offsets[] (into rows[]), rows[] (row in chunk, ascending per value)
 * </pre>
 *
 * <p>A value's bitmap over the full chunks is assembled per query from the chunks (microseconds for a sparse value);
 * a frequent value's is cached until the next full chunk is added. The tail's rows are added per query. Views hand
 * out bitmaps that may cover more rows than a snapshot holds (a newer commit extended the chunks): the executor clips
 * selections to the snapshot's row count. Thread-safe: chunks are published through volatile fields and never mutated.
 */
final class OpenSegmentIndex {
    static final int CHUNK_SHIFT = 16;
    static final int CHUNK_ROWS = 1 << CHUNK_SHIFT;
    /** Values an array container holds at most (Roaring's threshold; beyond it a container is a bitmap). */
    private static final int ARRAY_CONTAINER_MAX = 4096;
    /**
     * An integer column is indexed when a chunk has at most rows / this many distinct values. Lower than a sealed
     * segment's 8: a 64Ki-row chunk sees most of a column's values (10,000 clients), so only near-unique columns (trade
     * ids) are turned down.
     */
    private static final int MIN_ROWS_PER_VALUE = 2;
    private static final ImmutableRoaringBitmap EMPTY = new MutableRoaringBitmap();
    /**
     * Only bitmaps of values with at least this many rows are cached (a few frequent instruments). A sparse value (one
     * client) is rebuilt per query from the chunks in microseconds; caching thousands of small bitmaps made each
     * query's garbage long-lived, and the copying of it lengthened young-collection pauses.
     */
    private static final int CACHED_MIN_ROWS = 1 << 14;

    private final Segment segment;
    private final Column column;
    private final long nul;
    /** Full chunks and the cache of value bitmaps over them; replaced as a whole when a chunk is added. */
    private volatile Generation generation = new Generation(new Chunk[0]);
    /** The last tail built (the partial chunk after the full ones), reused while the committed count stays put. */
    private volatile Chunk tail;
    /** Set once a chunk shows the column is not worth indexing in this segment. */
    private volatile boolean notIndexed;
    /** Held while full chunks are added. */
    private final ReentrantLock extending = new ReentrantLock();

    OpenSegmentIndex(final Segment segment, final Column column) {
        this.segment = segment;
        this.column = column;
        this.nul = column.type().nullBits();
    }

    /** @return the segment indexed. */
    Segment segment() {
        return segment;
    }

    /**
     * Returns the index of the first {@code rows} rows, extending the immutable chunks as needed.
     *
     * @param rows     committed rows of the segment in the caller's snapshot.
     * @param deadline the query's, checked before each chunk is built (the chunks built before it passed are kept).
     * @return the view, or null when the column is not worth indexing in this segment.
     */
    ValueRows view(final int rows, final Deadline deadline) {
        if (notIndexed) {
            return null;
        }
        final int full = rows >>> CHUNK_SHIFT;
        Generation g = generation;
        if (g.chunks.length < full) {
            g = extend(full, deadline);
            if (g == null) {
                return null;
            }
        }
        Chunk t = null;
        final int tailRows = rows & (CHUNK_ROWS - 1);
        if (g.chunks.length == full && tailRows > 0) {
            t = tail;
            if (t == null || t.first != full * CHUNK_ROWS || t.rowCount != tailRows) {
                t = Chunk.build(segment, column, full * CHUNK_ROWS, tailRows);
                if (t == null) {
                    return null;
                }
                final Chunk old = tail;
                if (old == null || old.first < t.first || old.first == t.first && old.rowCount < t.rowCount) {
                    tail = t; // keep the newest: older snapshots build their own
                }
            }
        }
        return new View(g, t);
    }

    /**
     * Builds the missing full chunks up to {@code full}, one query at a time, publishing each as it is done (chunks are
     * immutable and complete: a query stopped by its deadline leaves them to the next). A query finding another one
     * building waits under its own deadline until it holds the lock or the chunks it needs are published, then goes on
     * from them.
     */
    private Generation extend(final int full, final Deadline deadline) {
        // the lock, or another query's build published what this one needs first (or found the column not worth it)
        if (SharedBuilds.lock(extending, deadline, () -> notIndexed || generation.chunks.length >= full)) {
            try {
                Generation g = generation;
                for (int i = g.chunks.length; i < full && !notIndexed; i++) {
                    deadline.check(); // a first query of a large open segment indexes all its chunks, one at a time
                    final Chunk c = Chunk.build(segment, column, i * CHUNK_ROWS, CHUNK_ROWS);
                    if (c == null || decidesNotIndexed(c)) {
                        return null;
                    }
                    final Chunk[] chunks = Arrays.copyOf(g.chunks, i + 1);
                    chunks[i] = c;
                    g = new Generation(chunks);
                    generation = g;
                }
            } finally {
                extending.unlock();
            }
        }
        return notIndexed ? null : generation;
    }

    /** Only full chunks decide: a short tail right after a commit can look near-unique by chance. */
    private boolean decidesNotIndexed(final Chunk c) {
        if (column.type() != ColumnType.SYMBOL && (long) c.values.length * MIN_ROWS_PER_VALUE > c.rowCount) {
            notIndexed = true;
            return true;
        }
        return false;
    }

    /** Full chunks and the bitmaps of the values asked for so far over them. */
    private static final class Generation {
        final Chunk[] chunks;
        final ConcurrentHashMap<Long, ImmutableRoaringBitmap> bitmaps = new ConcurrentHashMap<>();

        Generation(final Chunk[] chunks) {
            this.chunks = chunks;
        }

        /**
         * @return a new bitmap of the value's rows in the full chunks from {@code firstChunk} on, or null as soon as
         *         they
         *     reach {@code maxRows} (one search per chunk: the count and the rows come from the same one).
         */
        MutableRoaringBitmap union(final long value, final int firstChunk, final long maxRows) {
            final MutableRoaringBitmap b = new MutableRoaringBitmap();
            int[] scratch = null;
            long n = 0;
            for (int c = firstChunk; c < chunks.length; c++) {
                final int i = chunks[c].find(value);
                if (i >= 0) {
                    n += chunks[c].count(i);
                    if (n >= maxRows) {
                        return null;
                    }
                    scratch = chunks[c].addAt(b, i, scratch);
                }
            }
            return b;
        }

        /** @return the cached bitmap of a frequent value, or null. */
        ImmutableRoaringBitmap cached(final long value) {
            return bitmaps.isEmpty() ? null : bitmaps.get(value);
        }

        /** @return a new bitmap of the value's rows over the full chunks, cached when the value is frequent. */
        MutableRoaringBitmap build(final long value) {
            final MutableRoaringBitmap b = union(value, 0, Long.MAX_VALUE);
            if (b.getCardinality() >= CACHED_MIN_ROWS) {
                b.runOptimize(); // kept for later queries: worth compressing runs (a one-off bitmap is iterated once)
                bitmaps.putIfAbsent(value, b.clone());
            }
            return b;
        }
    }

    /** The index as of one committed row count: the full chunks' cached bitmaps plus the tail's rows. */
    private final class View implements ValueRows {
        private final Generation generation;
        private final Chunk tail;

        View(final Generation generation, final Chunk tail) {
            this.generation = generation;
            this.tail = tail;
        }

        @Override
        public ImmutableRoaringBitmap rows(final long value) {
            return value == nul ? EMPTY : of(value);
        }

        @Override
        public ImmutableRoaringBitmap nulls() {
            return of(nul);
        }

        @Override
        public ImmutableRoaringBitmap rowsFrom(final long value, final int fromRow) {
            final int firstChunk = fromRow >>> CHUNK_SHIFT;
            // a sparse value: the chunks from fromRow's on, and the tail, not cached (a query after summaries folded
            // the rest)
            final MutableRoaringBitmap b = value == nul || firstChunk == 0 || generation.cached(value) != null ? null
                : generation.union(value, firstChunk, CACHED_MIN_ROWS);
            if (b == null) {
                // a frequent value's bitmap is built once per generation and shared: assembling its rows per query
                // is the heaviest part of a window query over the open segment
                return rows(value);
            }
            if (tail != null) {
                tail.addTo(b, value, null);
            }
            return b;
        }

        private ImmutableRoaringBitmap of(final long value) {
            final int inTailAt = tail == null ? -1 : tail.find(value);
            final boolean inTail = inTailAt >= 0;
            if (inTail) {
                // a tail follows exactly one generation (its first row is where the full chunks end): unions live there
                final ImmutableRoaringBitmap union = tail.unions.isEmpty() ? null : tail.unions.get(value);
                if (union != null) {
                    return union;
                }
            }
            final ImmutableRoaringBitmap cached = generation.cached(value);
            if (!inTail) {
                return cached != null ? cached : generation.build(value);
            }
            final MutableRoaringBitmap b = cached != null ? cached.toMutableRoaringBitmap() : generation.build(value);
            tail.addAt(b, inTailAt, null);
            if (b.getCardinality() >= CACHED_MIN_ROWS) {
                tail.unions.putIfAbsent(value, b);
            }
            return b;
        }
    }

    /**
     * Rows {@code [first, first + rowCount)} of a column grouped by value: a counting sort when the values span a small
     * range, a sort of (value, row) pairs otherwise.
     */
    static final class Chunk {
        final int first;
        final int rowCount;
        final long[] values;
        final int[] offsets;
        final char[] rows;
        /** For a tail: each frequent value's rows over the full chunks before it plus its own (see {@link View}). */
        final ConcurrentHashMap<Long, ImmutableRoaringBitmap> unions = new ConcurrentHashMap<>();

        private Chunk(final int first, final int rowCount, final long[] values, final int[] offsets,
                      final char[] rows) {
            this.first = first;
            this.rowCount = rowCount;
            this.values = values;
            this.offsets = offsets;
            this.rows = rows;
        }

        /** @return the chunk, or null when its values span more than pairs can pack (such a column is not indexed). */
        static Chunk build(final Segment s, final Column c, final int first, final int rowCount) {
            final long base = s.columnBase(c.index()) + (long) first * s.columnStride(c.index());
            final long stride = s.columnStride(c.index());
            final int width = c.width();
            final long nul = c.type().nullBits();
            final long[] v = new long[rowCount];
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            int nulls = 0;
            for (int r = 0; r < rowCount; r++) {
                final long x = NativeMemory.getSigned(base + r * stride, width);
                v[r] = x;
                if (x == nul) {
                    nulls++;
                } else {
                    min = Math.min(min, x);
                    max = Math.max(max, x);
                }
            }
            final Chunk values;
            if (nulls == rowCount) {
                values = new Chunk(first, 0, new long[0], new int[] {0}, new char[0]);
            } else {
                final long range = max - min; // negative when it overflows
                if (range >= 0 && range < 4L * CHUNK_ROWS) {
                    values = counting(first, v, nul, rowCount - nulls, min, (int) range + 1);
                } else if (range >= 0 && range < 1L << (63 - CHUNK_SHIFT)) {
                    values = sorting(first, v, nul, rowCount - nulls, min);
                } else {
                    return null;
                }
            }
            return nulls == 0 ? values : withNulls(values, v, nul, nulls);
        }

        /** Groups the non-null rows by a counting sort over a small range of values. */
        private static Chunk counting(final int first, final long[] v, final long nul, final int rowCount,
                                      final long min, final int slots) {
            final int[] counts = new int[slots + 1];
            for (final long x : v) {
                if (x != nul) {
                    counts[(int) (x - min) + 1]++;
                }
            }
            int distinct = 0;
            for (int i = 1; i <= slots; i++) {
                distinct += counts[i] > 0 ? 1 : 0;
            }
            final long[] values = new long[distinct];
            final int[] offsets = new int[distinct + 1];
            int d = 0;
            for (int i = 0; i < slots; i++) {
                if (counts[i + 1] > 0) {
                    values[d] = min + i;
                    offsets[d] = counts[i];
                    d++;
                }
                counts[i + 1] += counts[i];
            }
            offsets[distinct] = rowCount;
            final char[] rows = new char[rowCount];
            for (int r = 0; r < v.length; r++) {
                if (v[r] != nul) {
                    rows[counts[(int) (v[r] - min)]++] = (char) r;
                }
            }
            return new Chunk(first, rowCount, values, offsets, rows);
        }

        /** Groups the non-null rows by sorting (value - min, row) pairs packed in longs. */
        private static Chunk sorting(final int first, final long[] v, final long nul, final int rowCount,
                                     final long min) {
            final long[] packed = new long[rowCount];
            int k = 0;
            for (int r = 0; r < v.length; r++) {
                if (v[r] != nul) {
                    packed[k++] = (v[r] - min) << CHUNK_SHIFT | r;
                }
            }
            Arrays.sort(packed);
            int distinct = 0;
            for (int i = 0; i < rowCount; i++) {
                if (i == 0 || packed[i] >>> CHUNK_SHIFT != packed[i - 1] >>> CHUNK_SHIFT) {
                    distinct++;
                }
            }
            final long[] values = new long[distinct];
            final int[] offsets = new int[distinct + 1];
            final char[] rows = new char[rowCount];
            int d = -1;
            for (int i = 0; i < rowCount; i++) {
                final long key = packed[i] >>> CHUNK_SHIFT;
                if (i == 0 || key != packed[i - 1] >>> CHUNK_SHIFT) {
                    values[++d] = key + min;
                    offsets[d] = i;
                }
                rows[i] = (char) (packed[i] & (CHUNK_ROWS - 1));
            }
            offsets[distinct] = rowCount;
            return new Chunk(first, rowCount, values, offsets, rows);
        }

        /** Adds the null rows as one more group, at the sorted place of the sentinel (below or above every value). */
        private static Chunk withNulls(final Chunk c, final long[] v, final long nul, final int nulls) {
            final int n = c.values.length;
            final boolean low = n == 0 || nul < c.values[0];
            if (!low && nul < c.values[n - 1]) {
                throw new IllegalStateException("null sentinel " + nul + " lies inside the values of a chunk");
            }
            final long[] values = new long[n + 1];
            final int[] offsets = new int[n + 2];
            final char[] rows = new char[c.rowCount + nulls];
            final int shift = low ? 1 : 0;
            System.arraycopy(c.values, 0, values, shift, n);
            values[low ? 0 : n] = nul;
            for (int i = 0; i <= n; i++) {
                offsets[i + shift] = c.offsets[i] + (low ? nulls : 0);
            }
            offsets[low ? 0 : n + 1] = low ? 0 : c.rowCount + nulls;
            System.arraycopy(c.rows, 0, rows, low ? nulls : 0, c.rowCount);
            int k = low ? 0 : c.rowCount;
            for (int r = 0; r < v.length; r++) {
                if (v[r] == nul) {
                    rows[k++] = (char) r;
                }
            }
            return new Chunk(c.first, v.length, values, offsets, rows);
        }

        /** @return the bitmap words (one container's 1,024 longs) of rows {@code [from, from + n)} of {@link #rows}. */
        private long[] words(final int from, final int n) {
            final long[] w = new long[CHUNK_ROWS / Long.SIZE];
            for (int k = from; k < from + n; k++) {
                final int r = rows[k];
                w[r >>> 6] |= 1L << r;
            }
            return w;
        }

        /** @return the index of {@code value} among the chunk's values, negative when no row holds it. */
        int find(final long value) {
            return Arrays.binarySearch(values, value);
        }

        /** @param i a value's index ({@link #find}). @return the number of rows holding it. */
        int count(final int i) {
            return offsets[i + 1] - offsets[i];
        }

        /** Adds the rows holding {@code value} to {@code b}; returns the scratch array (grown as needed) for reuse. */
        int[] addTo(final MutableRoaringBitmap b, final long value, final int[] scratch) {
            final int i = find(value);
            return i < 0 ? scratch : addAt(b, i, scratch);
        }

        /** {@link #addTo} of the value at index {@code i} ({@link #find}). */
        int[] addAt(final MutableRoaringBitmap b, final int i, final int[] scratch) {
            final int from = offsets[i];
            final int n = offsets[i + 1] - from;
            // a chunk is one container key and its rows are sorted: the value's container is built at its final size
            // and type and appended, not grown row by row (a sparse value's array would regrow ~log2(n) times, and a
            // frequent value's would go through an array grown to 4,096 entries and then be converted)
            final char key = (char) (first >>> CHUNK_SHIFT);
            if ((first & (CHUNK_ROWS - 1)) == 0 && (b.isEmpty() || b.last() >>> CHUNK_SHIFT < key)) {
                b.append(key, n <= ARRAY_CONTAINER_MAX
                    ? new MappeableArrayContainer(CharBuffer.wrap(Arrays.copyOfRange(rows, from, from + n)), n)
                    : new MappeableBitmapContainer(LongBuffer.wrap(words(from, n)), n));
                return scratch;
            }
            final int[] buf = scratch != null && scratch.length >= n ? scratch : new int[Math.max(n, 1024)];
            for (int k = 0; k < n; k++) {
                buf[k] = first + rows[from + k];
            }
            b.addN(buf, 0, n);
            return buf;
        }
    }
}
