package io.tradestore.query.index;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.tradestore.core.segment.Segment;
import io.tradestore.query.spi.Deadline;

/**
 * The heap that {@link BitmapIndexes} keeps under one budget: value summaries, bucket summaries and indexes whose file
 * could not be written ({@link HeldIndex}); their shared builds, and the eviction of the least recently used idle ones
 * to make room for new ones.
 */
final class SummaryCache {
    private final Map<SummaryKey, ValueSummary> summaries = new ConcurrentHashMap<>();
    /** Per-minute summaries. */
    private final Map<SummaryKey, BucketSummary> buckets = new ConcurrentHashMap<>();
    /**
     * Indexes of sealed segments whose file could not be written, kept on the heap: counted in {@link #summaryBytes}
     * and evicted when idle as the summaries are, since on a read-only store they are as many as the files would be.
     */
    private final Map<BitmapIndexes.Key, HeldIndex> held = new ConcurrentHashMap<>();
    private final AtomicLong summaryBytes = new AtomicLong();
    private final AtomicLong summaryBuilds = new AtomicLong();
    private final AtomicLong bucketBuilds = new AtomicLong();
    private final SummaryMap<ValueSummary> valueSummaries =
        new SummaryMap<>(summaries, new SharedBuilds<>(), summaryBuilds);
    private final SummaryMap<BucketSummary> bucketSummaries =
        new SummaryMap<>(buckets, new SharedBuilds<>(), bucketBuilds);
    private volatile long summaryBudget = BitmapIndexes.DEFAULT_SUMMARY_BUDGET;
    private volatile long summaryIdleNanos = BitmapIndexes.DEFAULT_SUMMARY_IDLE_MILLIS * 1_000_000L;
    private final AtomicLong summaryEvictions = new AtomicLong();
    private final AtomicLong idleScans = new AtomicLong();
    /** The clock of summaries' last use ({@link System#nanoTime()}; tests move their own). */
    private final LongSupplier clock;
    /** What the last scan for idle summaries found: too few of them, until when (see {@link #makeRoom}). */
    private volatile IdleScan lastIdleScan;

    /**
     * A scan for idle summaries that could not make a build's room: until {@code notBefore} (when the oldest summary
     * busy then turns idle; one built later turns idle later), no summary joins the {@code idleBytes} it found idle, so
     * a need larger than those and the free room is refused without a scan.
     */
    private record IdleScan(long notBefore, long idleBytes) {
    }

    /** A summary (or held index) idle long enough to be evicted: its map and key, when it was last used, its size. */
    private record Idle(Map<?, ? extends CachedSummary> map, Object key, CachedSummary summary, long lastUsed,
                        long bytes) {
    }

    /** A summary's segment (compared by identity), key column and measure columns (-1 for none). */
    record SummaryKey(Segment segment, int key, int colA, int colB) {
        @Override
        public boolean equals(final Object o) {
            return o instanceof SummaryKey && ((SummaryKey) o).segment == segment && ((SummaryKey) o).key == key
                && ((SummaryKey) o).colA == colA && ((SummaryKey) o).colB == colB;
        }

        @Override
        public int hashCode() {
            return ((System.identityHashCode(segment) * 31 + key) * 31 + colA) * 31 + colB;
        }
    }

    /** The value or the bucket summaries: the map, the builds running, the count of builds made. */
    private record SummaryMap<S extends CachedSummary>(Map<SummaryKey, S> map, SharedBuilds<SummaryKey> running,
                                                       AtomicLong builds) {
    }

    /** @param nanos the clock of summaries' last use and idle time. */
    SummaryCache(final LongSupplier nanos) {
        this.clock = nanos;
        this.lastIdleScan = new IdleScan(nanos.getAsLong(), 0);
    }

    /** @return the time on the clock of summaries' last use. */
    long now() {
        return clock.getAsLong();
    }

    /** @return the held index of a key, touched (it is in use), or null. */
    SegmentIndex heldIndex(final BitmapIndexes.Key key) {
        final HeldIndex h = held.get(key);
        if (h == null) {
            return null;
        }
        h.touch(clock.getAsLong());
        return h.index();
    }

    /** @return indexes held on the heap because their files could not be written. */
    int heldCount() {
        return held.size();
    }

    /**
     * Holds an index on the heap, counting its bytes; the caller has made room for them ({@link #makeRoom}).
     *
     * @param key   the index's segment and column.
     * @param idx   the index, over a heap buffer.
     * @param bytes that buffer's size.
     */
    void hold(final BitmapIndexes.Key key, final SegmentIndex idx, final long bytes) {
        final HeldIndex h = new HeldIndex(idx, bytes);
        h.touch(clock.getAsLong());
        // counted before it is published: an eviction (or clear) can only subtract bytes already added
        summaryBytes.addAndGet(bytes);
        final HeldIndex old = held.put(key, h);
        if (old != null) {
            summaryBytes.addAndGet(-old.bytes());
        }
    }

    /** Forgets every held index and every (value or bucket) summary. */
    void clear() {
        drain(held);
        drain(summaries);
        drain(buckets);
    }

    /** Forgets the held indexes and summaries of closed segments (dropped tables and segments). */
    void evictClosed() {
        drainIf(held, k -> k.segment().isClosed());
        drainIf(summaries, k -> k.segment().isClosed());
        drainIf(buckets, k -> k.segment().isClosed());
    }

    private <K, S extends CachedSummary> void drainIf(final Map<K, S> map, final Predicate<K> gone) {
        for (final Map.Entry<K, S> e : map.entrySet()) {
            if (gone.test(e.getKey()) && map.remove(e.getKey(), e.getValue())) {
                summaryBytes.addAndGet(-e.getValue().bytes());
            }
        }
    }

    /** Removes every summary of a map, taking its bytes off the count (a build publishing meanwhile stays counted). */
    private <K, S extends CachedSummary> void drain(final Map<K, S> map) {
        drainIf(map, k -> true);
    }

    /** The value summary cached under a key, or one built now: see {@link #cached}. */
    ValueSummary value(final SummaryKey k, final Predicate<ValueSummary> fresh, final Supplier<ValueSummary> build,
                       final Deadline deadline) {
        return cached(valueSummaries, k, fresh, () -> true, () -> 1, build, deadline);
    }

    /** The bucket summary cached under a key, or one built now: see {@link #cached}. */
    BucketSummary bucket(final SummaryKey k, final BooleanSupplier ready, final LongSupplier needBytes,
                         final Supplier<BucketSummary> build, final Deadline deadline) {
        return cached(bucketSummaries, k, b -> true, ready, needBytes, build, deadline);
    }

    /**
     * The value or bucket summary cached under a key when it still answers, else one built now when the caller is
     * ready and the budget has (or idle summaries can make) the room it needs; else the cached one, or null. A query
     * asking while another builds the same one waits for it under its own deadline ({@link SharedBuilds}).
     *
     * @param m         the value or the bucket summaries.
     * @param k         the key.
     * @param fresh     whether a cached summary answers (an open segment's covers fewer rows than it now has).
     * @param ready     asked when none answers: whether to build now (a bucket summary waits for a query asked again).
     * @param needBytes the room the build needs at least (asked only when none answers).
     * @param build     builds the summary, or returns null (nothing is cached then); a build that throws (the query's
     *                  deadline passed) leaves the map and the bytes as they were.
     * @param deadline  the query's.
     * @param <S>       the kind of summary.
     * @return the summary, or null.
     */
    private <S extends CachedSummary> S cached(final SummaryMap<S> m, final SummaryKey k, final Predicate<S> fresh,
                                               final BooleanSupplier ready, final LongSupplier needBytes,
                                               final Supplier<S> build, final Deadline deadline) {
        final S cached = m.map().get(k);
        if (cached != null && fresh.test(cached)) {
            cached.touch(clock.getAsLong());
            return cached;
        }
        if (!ready.getAsBoolean() || !makeRoom(needBytes.getAsLong())) {
            return cached;
        }
        // the lookup above missed; a build this query waits for answers it (a fresh summary, or nothing: no second
        // pass)
        final S got = m.running().get(k, deadline, () -> {
            final S now = m.map().get(k);
            return now != null && fresh.test(now) ? now : null; // another query built it meanwhile
        }, () -> {
            final S v = build.get();
            if (v == null) {
                return null;
            }
            v.touch(clock.getAsLong());
            // counted before it is published: an eviction (or clear) can only subtract bytes already added
            summaryBytes.addAndGet(v.bytes());
            final S old = m.map().put(k, v);
            if (old != null) {
                summaryBytes.addAndGet(-old.bytes());
            }
            m.builds().incrementAndGet();
            return v;
        });
        return got != null ? got : cached;
    }

    /**
     * Whether the budget has {@code needBytes} of room; when it has not, makes it by evicting the least recently used
     * summaries (value and bucket) and held indexes that no query used for {@link #summaryIdleMillis}: enough to free
     * what is needed, and at least a quarter of the budget (so the next builds find room without a scan each), or none
     * when all the idle ones together would not free enough. A scan that finds too few remembers how many bytes were
     * idle and when the oldest summary busy then turns idle: until then, an ask that those and the free room cannot
     * serve returns at once, so a full budget of busy (or too few idle) summaries costs each query a clock read, not a
     * pass over every summary.
     *
     * @param needBytes the room a build needs.
     * @return whether the budget has that room now.
     */
    boolean makeRoom(final long needBytes) {
        final long budget = summaryBudget;
        if (budget - summaryBytes.get() >= needBytes) {
            return true;
        }
        final long now = clock.getAsLong();
        final IdleScan last = lastIdleScan;
        if (needBytes > budget
            || now - last.notBefore < 0 && budget - summaryBytes.get() + last.idleBytes < needBytes) {
            return false; // more than the whole budget, or no more can be idle yet than the last scan found
        }
        idleScans.incrementAndGet();
        final long idle = summaryIdleNanos;
        final List<Idle> candidates = new ArrayList<>();
        final long oldestBusy = Math.min(Math.min(idleOf(summaries, now, idle, candidates),
            idleOf(buckets, now, idle, candidates)), idleOf(held, now, idle, candidates));
        long idleBytes = 0;
        for (final Idle c : candidates) {
            idleBytes += c.bytes;
        }
        if (budget - summaryBytes.get() + idleBytes < needBytes) {
            // evicting them all would not make the room: keep them, and scan again once one busy now (or built
            // later) can be idle
            lastIdleScan = new IdleScan(Math.min(oldestBusy, now) + idle, idleBytes);
            return false;
        }
        lastIdleScan = new IdleScan(now, 0);
        candidates.sort(Comparator.comparingLong(Idle::lastUsed));
        final long target = budget - Math.max(needBytes, budget / 4);
        for (final Idle c : candidates) {
            if (summaryBytes.get() <= target) {
                break;
            }
            if (c.map.remove(c.key, c.summary)) {
                summaryBytes.addAndGet(-c.bytes);
                summaryEvictions.incrementAndGet();
            }
        }
        return budget - summaryBytes.get() >= needBytes;
    }

    /**
     * Adds a map's summaries idle for {@code idle} nanoseconds to {@code out}.
     *
     * @return when the least recently used of the others was used, or Long.MAX_VALUE.
     */
    private static <K> long idleOf(final Map<K, ? extends CachedSummary> map, final long now, final long idle,
                                   final List<Idle> out) {
        long oldestBusy = Long.MAX_VALUE;
        for (final Map.Entry<K, ? extends CachedSummary> e : map.entrySet()) {
            final CachedSummary s = e.getValue();
            final long used = s.lastUsed();
            if (now - used >= idle) {
                out.add(new Idle(map, e.getKey(), s, used, s.bytes()));
            } else {
                oldestBusy = Math.min(oldestBusy, used);
            }
        }
        return oldestBusy;
    }

    /** @return heap bytes the value and bucket summaries, and the held indexes, hold now. */
    long summaryBytes() {
        return summaryBytes.get();
    }

    /** @return bytes of the budget not held now (negative when a larger budget was lowered). */
    long room() {
        return summaryBudget - summaryBytes.get();
    }

    /** @return scans of the summaries for idle ones. */
    long idleScans() {
        return idleScans.get();
    }

    /** @return summaries evicted to make room for others. */
    long summaryEvictions() {
        return summaryEvictions.get();
    }

    /** @param millis how long a summary must go unused before it may be evicted to make room for another. */
    void summaryIdleMillis(final long millis) {
        this.summaryIdleNanos = millis * 1_000_000L;
        this.lastIdleScan = new IdleScan(clock.getAsLong(), 0);
    }

    /** @return per-minute bucket summaries built. */
    long bucketSummaryBuilds() {
        return bucketBuilds.get();
    }

    /** @return value summaries built. */
    long summaryBuilds() {
        return summaryBuilds.get();
    }

    /** @param bytes heap bytes the summaries may take before no new one is built. */
    void summaryBudget(final long bytes) {
        this.summaryBudget = bytes;
    }
}
