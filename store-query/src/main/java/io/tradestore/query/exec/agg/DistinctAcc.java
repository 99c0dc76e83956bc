package io.tradestore.query.exec.agg;

import java.util.Arrays;
import java.util.HashSet;

import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.longlong.Roaring64Bitmap;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.query.exec.BatchContext;

/**
 * Exact {@code countDistinct}: Roaring bitmaps of 32-bit values (symbol codes, chars, i8-i32), 64-bit Roaring for
 * longs, a set for f64.
 */
public final class DistinctAcc extends Acc {
    private final int slot;
    private final int kind;
    private RoaringBitmap[] small = new RoaringBitmap[1];
    private Roaring64Bitmap[] big = new Roaring64Bitmap[1];
    private Object[] doubles = new Object[1];

    private final Product product;

    /**
     * @param slot value slot. @param kind 0: fits in 32 bits, 1: 64-bit, 2: f64. @param product a product operand or
     * null.
     */
    public DistinctAcc(final int slot, final int kind, final Product product) {
        this.slot = slot;
        this.kind = product == null ? kind : product.isDouble() ? 2 : 1;
        this.product = product;
    }

    @Override
    public void grow(final int capacity) {
        if (capacity > small.length) {
            final int n = Math.max(capacity, small.length * 2);
            small = Arrays.copyOf(small, n);
            big = Arrays.copyOf(big, n);
            doubles = Arrays.copyOf(doubles, n);
        }
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

    /** Products: exact 128-bit values; those beyond 64 bits go to a set of BigIntegers (the f64 case to doubles). */
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
            if (kind == 2) {
                final double d = product.asDouble(x, y);
                if (d == d) {
                    set(g).add(Double.doubleToLongBits(d == 0.0 ? 0.0 : d));
                }
                continue;
            }
            final long hi = Math.multiplyHigh(x, y);
            final long lo = x * y;
            if (hi == (lo >> 63)) {
                if (big[g] == null) {
                    big[g] = new Roaring64Bitmap();
                }
                big[g].addLong(lo);
            } else {
                wide(g).add(java.math.BigInteger.valueOf(x).multiply(java.math.BigInteger.valueOf(y)));
            }
        }
    }

    @SuppressWarnings("unchecked")
    private HashSet<java.math.BigInteger> wide(final int g) {
        if (doubles[g] == null) {
            doubles[g] = new HashSet<java.math.BigInteger>();
        }
        return (HashSet<java.math.BigInteger>) doubles[g];
    }

    @SuppressWarnings("unchecked")
    private HashSet<Long> set(final int g) {
        if (doubles[g] == null) {
            doubles[g] = new HashSet<Long>();
        }
        return (HashSet<Long>) doubles[g];
    }

    @Override
    public void merge(final int dst, final Acc src, final int srcGid) {
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
            if (kind == 2) {
                set(dst).addAll(o.set(srcGid));
            } else {
                wide(dst).addAll(o.wide(srcGid));
            }
        }
    }

    @Override
    public Object result(final int gid, final long rows) {
        switch (kind) {
            case 0:
                return small[gid] == null ? 0L : (long) small[gid].getCardinality();
            case 1:
                return (big[gid] == null ? 0L : big[gid].getLongCardinality())
                    + (doubles[gid] == null ? 0L : wide(gid).size());
            default:
                return doubles[gid] == null ? 0L : (long) set(gid).size();
        }
    }
}
