package io.tradestore.query.exec.agg;

import java.util.Arrays;
import java.util.HashSet;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.query.exec.BatchContext;

/**
 * Exact {@code countDistinct}: a bitset per group for values of a narrow range, one hash set of (group, value) pairs
 * for the others ({@link PairSet}), a set per group for f64 and for products beyond 64 bits.
 */
public final class DistinctAcc extends Acc {
    /** Widest value range counted in bitsets: 2^20 values, 128 KiB a group. */
    private static final long DENSE_MAX_VALUES = 1L << 20;
    /** Bitset memory per accumulator (one per worker): past it, further groups go to the pair set. */
    private static final long DENSE_BUDGET_BYTES = 32L << 20;
    private final int slot;
    /** Whether the values (or the product) are f64: counted in a set of their bits per group. */
    private final boolean f64;
    /** The values outside the bitsets, with their groups. */
    private final PairSet pairs = new PairSet();
    /** Per group: pairs not also in its bitset, counted at the first result after the last change; null: stale. */
    private long[] pairCounts;
    /** {@link #pairs} by group, built when another worker's accumulator first merges this one's groups. */
    private PairSet.Grouped byGroup;
    /** Per group: a set of f64 bits, or of integral products beyond 64 bits (BigIntegers), or null. */
    private Object[] sets = new Object[1];

    private final Product product;
    /** First value of the dense range (see {@link #withRange}); meaningful only when {@link #denseSpan} >= 0. */
    private long denseLo;
    /** Values in the dense range minus one, or -1 when values go to the pair set only. */
    private long denseSpan = -1;
    /** Per group: a bit per value of the dense range, or null (no value yet, or the budget was spent). */
    private long[][] dense = new long[1][];
    private long denseBytes;

    /**
     * @param slot value slot. @param f64 whether the column is f64. @param product a product operand or null.
     */
    public DistinctAcc(final int slot, final boolean f64, final Product product) {
        this.slot = slot;
        this.f64 = product == null ? f64 : product.isDouble();
        this.product = product;
    }

    /**
     * Counts integral values of {@code [lo, hi]} (the zone maps' range of the column, or a symbol column's codes) in a
     * bitset per group, a bit set per row, instead of a hash-set insert per row; groups past the memory budget, and any
     * value outside the range, still go to the pair set, and the result counts their union.
     *
     * @param lo the smallest value the column holds.
     * @param hi the largest.
     * @return this.
     */
    public DistinctAcc withRange(final long lo, final long hi) {
        if (product == null && !f64 && lo <= hi && hi - lo >= 0 && hi - lo < DENSE_MAX_VALUES) {
            denseLo = lo;
            denseSpan = hi - lo;
        }
        return this;
    }

    @Override
    public void grow(final int capacity) {
        if (capacity > sets.length) {
            final int n = Math.max(capacity, sets.length * 2);
            sets = Arrays.copyOf(sets, n);
            dense = Arrays.copyOf(dense, n);
        }
    }

    /** @return group {@code g}'s bitset, allocated now if the budget allows, else null. */
    private long[] denseOf(final int g) {
        final long[] w = dense[g];
        if (w != null) {
            return w;
        }
        final int words = (int) (denseSpan >>> 6) + 1;
        if (denseBytes + words * 8L > DENSE_BUDGET_BYTES) {
            return null;
        }
        denseBytes += words * 8L;
        return dense[g] = new long[words];
    }

    /** Adds one non-null value of group {@code g} outside its bitset. */
    private void addSparse(final int g, final long v) {
        if (pairs.add(g, v)) {
            pairCounts = null;
        }
    }

    private void updateDense(final BatchContext c, final int[] gid) {
        final int n = c.n;
        final long a = c.viewAddr[slot];
        final long s = c.viewStride[slot];
        final long lo = denseLo;
        final long span = denseSpan;
        if (gid == null && saturated()) {
            return;
        }
        for (int i = 0; i < n; i++) {
            final long v = NativeMemory.getLong(a + i * s);
            if (v == Long.MIN_VALUE) {
                continue;
            }
            final int g = gid == null ? 0 : gid[i];
            final long d = v - lo;
            if (d >= 0 && d <= span) {
                final long[] w = denseOf(g);
                if (w != null) {
                    // test before setting: a value seen before (most rows, once a group has met its values) is a
                    // load, where an unconditional or-store makes each row wait on the last store to the same word
                    final int word = (int) (d >>> 6);
                    if ((w[word] & 1L << d) == 0) {
                        w[word] |= 1L << d;
                    }
                    continue;
                }
            }
            addSparse(g, v);
        }
    }

    /**
     * @return whether one group's values fit one word (a venue's or a side's codes) that holds every value of the
     *     range already: no row can add to it (after the first rows of a symbol's codes, every batch).
     */
    private boolean saturated() {
        final long[] w = denseSpan < Long.SIZE ? dense[0] : null;
        return w != null && w[0] == -1L >>> (Long.SIZE - 1 - denseSpan);
    }

    /** @return whether value {@code v} is counted in group {@code g}'s bitset. */
    private boolean inDense(final int g, final long v) {
        final long d = v - denseLo;
        return dense[g] != null && d >= 0 && d <= denseSpan && (dense[g][(int) (d >>> 6)] & (1L << d)) != 0;
    }

    @Override
    public void update(final BatchContext c, final int[] gid) {
        final int n = c.n;
        final long a = c.viewAddr[slot];
        final long s = c.viewStride[slot];
        if (product != null) {
            updateProduct(c, gid);
            return;
        }
        if (denseSpan >= 0) {
            updateDense(c, gid);
            return;
        }
        for (int i = 0; i < n; i++) {
            final long v = NativeMemory.getLong(a + i * s);
            final int g = gid == null ? 0 : gid[i];
            if (f64) {
                final double d = Double.longBitsToDouble(v);
                if (d == d) {
                    set(g).add(Double.doubleToLongBits(d == 0.0 ? 0.0 : d));
                }
            } else if (v != Long.MIN_VALUE) {
                addSparse(g, v);
            }
        }
    }

    /** Products: exact 128-bit values, those beyond 64 bits in a set of BigIntegers; f64 products as doubles. */
    private void updateProduct(final BatchContext c, final int[] gid) {
        final int n = c.n;
        final long a = c.viewAddr[slot];
        final long s = c.viewStride[slot];
        final long b = c.viewAddr[product.slotB];
        final long sb = c.viewStride[product.slotB];
        for (int i = 0; i < n; i++) {
            final long x = NativeMemory.getLong(a + i * s);
            final long y = NativeMemory.getLong(b + i * sb);
            if (product.isNull(x, y)) {
                continue;
            }
            final int g = gid == null ? 0 : gid[i];
            if (f64) {
                final double d = product.asDouble(x, y);
                if (d == d) {
                    set(g).add(Double.doubleToLongBits(d == 0.0 ? 0.0 : d));
                }
                continue;
            }
            final long hi = Math.multiplyHigh(x, y);
            final long lo = x * y;
            if (hi == (lo >> 63)) {
                addSparse(g, lo);
            } else {
                wide(g).add(java.math.BigInteger.valueOf(x).multiply(java.math.BigInteger.valueOf(y)));
            }
        }
    }

    @SuppressWarnings("unchecked")
    private HashSet<java.math.BigInteger> wide(final int g) {
        if (sets[g] == null) {
            sets[g] = new HashSet<java.math.BigInteger>();
        }
        return (HashSet<java.math.BigInteger>) sets[g];
    }

    @SuppressWarnings("unchecked")
    private HashSet<Long> set(final int g) {
        if (sets[g] == null) {
            sets[g] = new HashSet<Long>();
        }
        return (HashSet<Long>) sets[g];
    }

    /**
     * Same groups on both sides: the other worker's pairs join this set's at once, unsorted and not made distinct
     * (the one compaction before the counts does that for both), where a group at a time needs them sorted by group.
     */
    @Override
    public void mergeSame(final Acc src, final int[] groups) {
        final DistinctAcc o = (DistinctAcc) src;
        for (final int g : groups) {
            mergeSets(g, o, g);
        }
        if (pairs.absorb(o.pairs)) {
            pairCounts = null;
        }
    }

    @Override
    public void merge(final int dst, final Acc src, final int srcGid) {
        final DistinctAcc o = (DistinctAcc) src;
        mergeSets(dst, o, srcGid);
        if (o.pairs.size() > 0) {
            if (o.byGroup == null) {
                o.byGroup = o.pairs.byGroup(o.sets.length);
            }
            final int[] start = o.byGroup.start();
            final long[] values = o.byGroup.values();
            for (int i = start[srcGid], end = start[srcGid + 1]; i < end; i++) {
                addSparse(dst, values[i]);
            }
        }
    }

    /** Merges group {@code srcGid}'s bitset and set of {@code o} into group {@code dst}'s. */
    private void mergeSets(final int dst, final DistinctAcc o, final int srcGid) {
        final long[] ow = o.dense[srcGid];
        if (ow != null) {
            final long[] w = denseOf(dst);
            for (int i = 0; i < ow.length; i++) {
                if (w != null) {
                    w[i] |= ow[i];
                } else {
                    for (long bits = ow[i]; bits != 0; bits &= bits - 1) {
                        addSparse(dst, o.denseLo + ((long) i << 6) + Long.numberOfTrailingZeros(bits));
                    }
                }
            }
        }
        if (o.sets[srcGid] != null) {
            if (f64) {
                set(dst).addAll(o.set(srcGid));
            } else {
                wide(dst).addAll(o.wide(srcGid));
            }
        }
    }

    @Override
    public void beforeResults(final Tasks tasks) {
        pairs.compact(tasks);
    }

    @Override
    public Object result(final int gid, final long rows) {
        if (f64) {
            return sets[gid] == null ? 0L : (long) set(gid).size();
        }
        return denseCount(gid) + sparseCount(gid) + (sets[gid] == null ? 0L : wide(gid).size());
    }

    private long denseCount(final int g) {
        long n = 0;
        if (dense[g] != null) {
            for (final long w : dense[g]) {
                n += Long.bitCount(w);
            }
        }
        return n;
    }

    /** @return the values of group {@code g} in the pair set that its bitset does not hold already (after a merge). */
    private long sparseCount(final int g) {
        if (pairs.size() == 0) {
            return 0;
        }
        if (pairCounts == null) {
            // one walk of the set counts every group's pairs
            final long[] counts = new long[sets.length];
            for (int i = 0, n = pairs.capacity(); i < n; i++) {
                final int pg = pairs.groupAt(i);
                if (pg >= 0 && !inDense(pg, pairs.valueAt(i))) {
                    counts[pg]++;
                }
            }
            pairCounts = counts;
        }
        return g < pairCounts.length ? pairCounts[g] : 0;
    }
}
