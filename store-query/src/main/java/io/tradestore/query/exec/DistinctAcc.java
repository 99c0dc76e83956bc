package io.tradestore.query.exec;

import java.util.Arrays;
import java.util.HashSet;

import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.longlong.Roaring64Bitmap;

import io.tradestore.core.memory.NativeMemory;

/** Exact {@code countDistinct}: Roaring bitmaps of 32-bit values (symbol codes, chars, i8-i32), 64-bit Roaring for longs, a set for f64. */
final class DistinctAcc extends Acc {
    private final int slot;
    private final int kind;
    private RoaringBitmap[] small = new RoaringBitmap[1];
    private Roaring64Bitmap[] big = new Roaring64Bitmap[1];
    private Object[] doubles = new Object[1];

    /** @param slot value slot. @param kind 0: fits in 32 bits, 1: 64-bit, 2: f64. */
    DistinctAcc(final int slot, final int kind) {
        this.slot = slot;
        this.kind = kind;
    }

    @Override
    void grow(final int capacity) {
        if (capacity > small.length) {
            final int n = Math.max(capacity, small.length * 2);
            small = Arrays.copyOf(small, n);
            big = Arrays.copyOf(big, n);
            doubles = Arrays.copyOf(doubles, n);
        }
    }

    @Override
    void update(final BatchContext c, final int[] gid) {
        final int n = c.n;
        final long a = c.viewAddr[slot];
        final long s = c.viewStride[slot];
        for (int i = 0; i < n; i++) {
            final long v = NativeMemory.getLong(a + i * s);
            final int g = gid == null ? 0 : gid[i];
            if (kind == 2) {
                final double d = Double.longBitsToDouble(v);
                if (d == d) {
                    set(g).add(Double.doubleToLongBits(d == 0.0 ? 0.0 : d));
                }
            } else if (v != Long.MIN_VALUE) {
                if (kind == 0) {
                    if (small[g] == null) {
                        small[g] = new RoaringBitmap();
                    }
                    small[g].add((int) v);
                } else {
                    if (big[g] == null) {
                        big[g] = new Roaring64Bitmap();
                    }
                    big[g].addLong(v);
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    private HashSet<Long> set(final int g) {
        if (doubles[g] == null) {
            doubles[g] = new HashSet<Long>();
        }
        return (HashSet<Long>) doubles[g];
    }

    @Override
    void merge(final int dst, final Acc src, final int srcGid) {
        final DistinctAcc o = (DistinctAcc) src;
        if (o.small[srcGid] != null) {
            if (small[dst] == null) {
                small[dst] = new RoaringBitmap();
            }
            small[dst].or(o.small[srcGid]);
        }
        if (o.big[srcGid] != null) {
            if (big[dst] == null) {
                big[dst] = new Roaring64Bitmap();
            }
            big[dst].or(o.big[srcGid]);
        }
        if (o.doubles[srcGid] != null) {
            set(dst).addAll(o.set(srcGid));
        }
    }

    @Override
    Object result(final int gid, final long rows) {
        switch (kind) {
            case 0:
                return small[gid] == null ? 0L : (long) small[gid].getCardinality();
            case 1:
                return big[gid] == null ? 0L : big[gid].getLongCardinality();
            default:
                return doubles[gid] == null ? 0L : (long) set(gid).size();
        }
    }
}
