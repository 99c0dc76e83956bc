package io.tradestore.query.exec.filter;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.BatchContext;
import io.tradestore.query.exec.kernel.Imprints;
import io.tradestore.query.exec.kernel.NullFreeBlocks;

/**
 * {@code lo <= v <= hi} (or its negation) on an integral column of any width; null never passes. Branch-free loops
 * unless rows all go one way.
 */
public final class IntRangeFilter extends FilterNode {
    /** Rows of a batch tried first, to tell whether a branch per row would be predicted. */
    static final int SAMPLE = 64;
    /** Values within +-2^62: {@code v - lo} and {@code hi - v} of such values and clamped bounds do not overflow. */
    private static final long SAFE = 1L << 62;
    /** Widest range, in imprint bins of 64, read through the imprint: about half the lines meet one of four. */
    static final int IMPRINT_BINS = 4;
    public final int col;
    final int width;
    final long nul;
    public final long lo;
    public final long hi;
    public final boolean negated;
    /** Bounds of the sign-bit test, clamped so that its subtractions cannot overflow (see {@link #signed}). */
    private final long fastLo;
    private final long fastHi;
    /** Whether the sign-bit test alone excludes null: a positive range whose null sentinel is below every value. */
    private final boolean nullBelow;

    public IntRangeFilter(final int col, final int width, final long nul, final long lo, final long hi,
        final boolean negated) {
        this.col = col;
        this.width = width;
        this.nul = nul;
        this.lo = lo;
        this.hi = hi;
        this.negated = negated;
        // the null sentinel of every integral type is at or below its smallest value (type minimum, symbol -1, char
        // 0), so a positive range starting above it excludes null by itself
        this.nullBelow = !negated && (width == 8 && nul == Long.MIN_VALUE || lo > nul || floorNull(width, nul));
        // bounds clamped into +-(2^62 + 1), so no subtraction of the test overflows and values within +-2^62 pass
        // exactly when in the range; a positive range over a floor sentinel starts above it, so null fails the test
        this.fastLo = clampSafe(negated || !floorNull(width, nul) ? lo : Math.max(lo, nul + 1));
        this.fastHi = clampSafe(hi);
    }

    /**
     * @param other a range on the same column.
     * @return one positive range that holds exactly the rows both positive ranges hold, or null when either is
     *     negated, the columns differ, or the intersection is empty (left to the two filters, which answer it).
     */
    public IntRangeFilter intersect(final IntRangeFilter other) {
        final long l = Math.max(lo, other.lo);
        final long h = Math.min(hi, other.hi);
        if (negated || other.negated || col != other.col || width != other.width || nul != other.nul || l > h) {
            return null;
        }
        return new IntRangeFilter(col, width, nul, l, h, false);
    }

    /**
     * @param conj the arguments of a conjunction.
     * @return whether its ranges on some column hold no value together (quantity < 12 and quantity = 14): then no row
     *     passes it. Only positive ranges and negated one-sided ones (one interval of values) are weighed; null passes
     *     none of them.
     */
    public static boolean disjoint(final List<FilterNode> conj) {
        final Map<Integer, long[]> within = new HashMap<>();
        for (final FilterNode n : conj) {
            if (!(n instanceof IntRangeFilter r)) {
                continue;
            }
            final long l;
            final long h;
            if (!r.negated) {
                l = r.lo;
                h = r.hi;
            } else if (r.hi == Long.MAX_VALUE && r.lo > Long.MIN_VALUE + 1) {
                l = Long.MIN_VALUE + 1; // not (v >= lo)
                h = r.lo - 1;
            } else if (r.lo <= Long.MIN_VALUE + 1 && r.hi < Long.MAX_VALUE) {
                l = r.hi + 1; // not (v <= hi)
                h = Long.MAX_VALUE;
            } else {
                continue; // values on both sides of a range: not one interval
            }
            final long[] w = within.computeIfAbsent(r.col, k -> new long[] {Long.MIN_VALUE, Long.MAX_VALUE});
            w[0] = Math.max(w[0], l);
            w[1] = Math.min(w[1], h);
            if (w[0] > w[1]) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param width a column width. @param nul its null sentinel. @return whether every value read from the column is
     * above the sentinel: the signed minimum of a 2- or 4-byte integer, a symbol's -1 (codes count from 0).
     */
    private static boolean floorNull(final int width, final long nul) {
        return width == 4 && (nul == Integer.MIN_VALUE || nul == -1) || width == 2 && nul == Short.MIN_VALUE
            || width == 1 && nul == Byte.MIN_VALUE;
    }

    private static long clampSafe(final long v) {
        return Math.max(-SAFE - 1, Math.min(SAFE + 1, v));
    }

    @Override
    int column() {
        return col;
    }

    @Override
    public int apply(final BatchContext c, final int start, final int n, final int[] sel, final int[] out) {
        final long a = c.base[col];
        final long s = c.stride[col];
        // an empty range becomes [null, null], which no non-null value is in: one loop serves both
        final long l = lo <= hi ? lo : nul;
        final long h = lo <= hi ? hi : nul;
        if (width < 8 && SpanWord.fits(c, col, nul)) {
            final long base = c.zoneMin[col];
            final long span = c.zoneMax[col] - base;
            final long from = Math.max(lo, base) - base;
            final long to = Math.min(hi, base + span) - base;
            final long w = from > to ? 0 : (-1L >>> (63 - to)) & (-1L << from);
            return SpanWord.apply(c, col, width, negated ? SpanWord.negate(span, w) : w, base, start, n, sel, out);
        }
        final boolean signed = lo <= hi && (width < 8 || c.zoneMin[col] >= -SAFE && c.zoneMax[col] <= SAFE);
        final int head = Math.min(n, SAMPLE);
        final int k = signed ? signed(a, s, start, 0, head, sel, out, 0)
            : branchless(a, s, start, 0, head, sel, out, 0, l, h);
        if (head == n) {
            return k;
        }
        // a branch is cheaper only when it is predicted: when (nearly) every row of the sample went the same way
        if (k <= 1 || k >= head - 1) {
            if (k <= 1 && signed && nullBelow && width == 8 && sel == null) {
                return imprinted(c, a, s, start, head, n, out, k);
            }
            return branchy(a, s, start, head, n, sel, out, k, l, h);
        }
        return signed ? signed(a, s, start, head, n, sel, out, k) : branchless(a, s, start, head, n, sel, out, k, l, h);
    }

    /**
     * The batch's rows with {@code lo <= v <= hi} tested as the sign bit of {@code (v - lo) | (hi - v)}, five
     * instructions a row and no branch, exact when neither subtraction overflows: always for columns narrower than 8
     * bytes, whose values are read as longs, and for 8-byte ones when the segment's zone map puts every value within
     * +-2^62 (null, {@code Long.MIN_VALUE}, then fails both ways: see the comment in the loop).
     */
    private int signed(final long a, final long s, final int start, final int from, final int to, final int[] sel,
        final int[] out, final int passed) {
        return nullBelow ? signedNoNull(a, s, start, from, to, sel, out, passed)
            : signedNull(a, s, start, from, to, sel, out, passed);
    }

    /** {@link #signed} of a positive range that null cannot pass. */
    private int signedNoNull(final long a, final long s, final int start, final int from, final int to,
        final int[] sel, final int[] out, final int passed) {
        final long l = fastLo;
        final long h = fastHi;
        int k = passed;
        if (width == 8) {
            // Long.MIN_VALUE - l overflows to a positive number only when l > 0, and then h - MIN_VALUE overflows to
            // a negative one: null is outside every clamped range
            for (int i = from; i < to; i++) {
                final int r = sel == null ? start + i : sel[i];
                final long v = NativeMemory.getLong(a + r * s);
                out[k] = r;
                k += (int) ((((v - l) | (h - v)) >>> 63) ^ 1);
            }
        } else if (width == 4) {
            for (int i = from; i < to; i++) {
                final int r = sel == null ? start + i : sel[i];
                final long v = NativeMemory.getInt(a + r * s);
                out[k] = r;
                k += (int) ((((v - l) | (h - v)) >>> 63) ^ 1);
            }
        } else {
            for (int i = from; i < to; i++) {
                final int r = sel == null ? start + i : sel[i];
                final long v = NativeMemory.getSigned(a + r * s, width);
                out[k] = r;
                k += (int) ((((v - l) | (h - v)) >>> 63) ^ 1);
            }
        }
        return k;
    }

    /** {@link #signed} with a test for null: a negated range, or one whose bounds do not exclude null. */
    private int signedNull(final long a, final long s, final int start, final int from, final int to,
        final int[] sel, final int[] out, final int passed) {
        final long l = fastLo;
        final long h = fastHi;
        final long z = nul;
        final long flip = negated ? 0 : 1;
        int k = passed;
        if (width == 8) {
            for (int i = from; i < to; i++) {
                final int r = sel == null ? start + i : sel[i];
                final long v = NativeMemory.getLong(a + r * s);
                out[k] = r;
                k += (int) (((((v - l) | (h - v)) >>> 63) ^ flip) & Branchless.nonZero(v ^ z));
            }
        } else if (width == 4) {
            for (int i = from; i < to; i++) {
                final int r = sel == null ? start + i : sel[i];
                final long v = NativeMemory.getInt(a + r * s);
                out[k] = r;
                k += (int) (((((v - l) | (h - v)) >>> 63) ^ flip) & Branchless.nonZero(v ^ z));
            }
        } else {
            for (int i = from; i < to; i++) {
                final int r = sel == null ? start + i : sel[i];
                final long v = NativeMemory.getSigned(a + r * s, width);
                out[k] = r;
                k += (int) (((((v - l) | (h - v)) >>> 63) ^ flip) & Branchless.nonZero(v ^ z));
            }
        }
        return k;
    }

    /** Rows {@code [from, to)} of the batch, without a branch per row (rows pass at random). */
    private int branchless(final long a, final long s, final int start, final int from, final int to,
        final int[] sel, final int[] out, final int passed, final long l, final long h) {
        final long span = h - l;
        final long z = nul;
        final long neg = negated ? 1 : 0;
        int k = passed;
        switch (width) {
            case 8:
                for (int i = from; i < to; i++) {
                    final int r = sel == null ? start + i : sel[i];
                    final long v = NativeMemory.getLong(a + r * s);
                    out[k] = r;
                    k += (int) ((Branchless.inSpan(v, l, span) ^ neg) & Branchless.nonZero(v ^ z));
                }
                break;
            case 4:
                for (int i = from; i < to; i++) {
                    final int r = sel == null ? start + i : sel[i];
                    final long v = NativeMemory.getInt(a + r * s);
                    out[k] = r;
                    k += (int) ((Branchless.inSpan(v, l, span) ^ neg) & Branchless.nonZero(v ^ z));
                }
                break;
            case 2:
                for (int i = from; i < to; i++) {
                    final int r = sel == null ? start + i : sel[i];
                    final long v = NativeMemory.getShort(a + r * s);
                    out[k] = r;
                    k += (int) ((Branchless.inSpan(v, l, span) ^ neg) & Branchless.nonZero(v ^ z));
                }
                break;
            default:
                for (int i = from; i < to; i++) {
                    final int r = sel == null ? start + i : sel[i];
                    final long v = NativeMemory.getByte(a + r * s);
                    out[k] = r;
                    k += (int) ((Branchless.inSpan(v, l, span) ^ neg) & Branchless.nonZero(v ^ z));
                }
                break;
        }
        return k;
    }

    /**
     * {@link #signedNoNull} of an 8-byte column over consecutive rows that (nearly) all fail, as a price equal to one
     * value does: four rows are tested at a time and their sign bits combined, so the loop stores and branches once
     * per four rows instead of once per row.
     */
    private int sparse8(final long a, final long s, final int start, final int from, final int to, final int[] out,
        final int passed) {
        final long l = fastLo;
        final long h = fastHi;
        int k = passed;
        int i = from;
        for (; i + 4 <= to; i += 4) {
            final long p = a + (start + i) * s;
            final long v0 = NativeMemory.getLong(p);
            final long v1 = NativeMemory.getLong(p + s);
            final long v2 = NativeMemory.getLong(p + 2 * s);
            final long v3 = NativeMemory.getLong(p + 3 * s);
            final long x0 = (v0 - l) | (h - v0);
            final long x1 = (v1 - l) | (h - v1);
            final long x2 = (v2 - l) | (h - v2);
            final long x3 = (v3 - l) | (h - v3);
            // the sign bit of the AND is set only when all four fail
            if ((x0 & x1 & x2 & x3) >= 0) {
                out[k] = start + i;
                k += (int) (~x0 >>> 63);
                out[k] = start + i + 1;
                k += (int) (~x1 >>> 63);
                out[k] = start + i + 2;
                k += (int) (~x2 >>> 63);
                out[k] = start + i + 3;
                k += (int) (~x3 >>> 63);
            }
        }
        for (; i < to; i++) {
            final long v = NativeMemory.getLong(a + (start + i) * s);
            out[k] = start + i;
            k += (int) (~((v - l) | (h - v)) >>> 63);
        }
        return k;
    }

    /**
     * {@link #sparse8} over rows {@code [from, to)} of the batch, skipping each group of {@link Imprints#GROUP} rows
     * whose imprint has none of the bins the range's values fall in: a range of one price reads a byte a row of
     * masks and about one cache line of values in eight. Blocks without an imprint, or where the range spans more than
     * {@link #IMPRINT_BINS} bins (too many lines would be read anyway), are read whole.
     */
    private int imprinted(final BatchContext c, final long a, final long s, final int start, final int from,
        final int to, final int[] out, final int passed) {
        final int blockRows = c.blockRows();
        int k = passed;
        for (int i = from; i < to;) {
            final int block = (start + i) / blockRows;
            final int blockStart = block * blockRows;
            final int end = Math.min(to, blockStart + blockRows - start);
            final Imprints.Imprint im = c.imprint(col, block);
            final long bins = im == null ? -1L : im.bins(fastLo, fastHi);
            final int g0 = (start + i - blockStart + Imprints.GROUP - 1) / Imprints.GROUP;
            final int g1 = (start + end - blockStart) / Imprints.GROUP;
            if (Long.bitCount(bins) > IMPRINT_BINS || g0 >= g1) {
                k = sparse8(a, s, start, i, end, out, k);
                i = end;
                continue;
            }
            // rows before the block's first whole group of the range, the groups, the rows after the last
            k = sparse8(a, s, start, i, blockStart + g0 * Imprints.GROUP - start, out, k);
            final int[] hits = c.borrow();
            int m = 0;
            final int w1 = (g1 - 1) >>> 6;
            for (int w = g0 >>> 6; w <= w1; w++) {
                long bits = im.groups(bins, w);
                bits &= w == g0 >>> 6 ? -1L << g0 : -1L;
                bits &= w == w1 ? -1L >>> (63 - ((g1 - 1) & 63)) : -1L;
                for (; bits != 0; bits &= bits - 1) {
                    hits[m++] = (w << 6) + Long.numberOfTrailingZeros(bits);
                }
            }
            k = lines(c, a, s, blockStart, hits, m, out, k);
            c.release(hits);
            k = sparse8(a, s, start, blockStart + g1 * Imprints.GROUP - start, end, out, k);
            i = end;
        }
        return k;
    }

    /**
     * The rows of groups {@code hits[0..m)} of the block at row {@code blockStart} that are in the range. Each group's
     * first value is loaded first, group after group: loads with no branch between them miss the cache together, where
     * a test between two lines' loads would make each miss wait for the one before (figures in commit 2ad9c5b).
     */
    private int lines(final BatchContext c, final long a, final long s, final int blockStart, final int[] hits,
        final int m, final int[] out, final int passed) {
        long[] first = (long[]) c.filterState(this);
        if (first == null) {
            first = new long[BatchContext.BATCH / Imprints.GROUP + 1];
            c.filterState(this, first);
        }
        for (int j = 0; j < m; j++) {
            first[j] = NativeMemory.getLong(a + (blockStart + hits[j] * Imprints.GROUP) * s);
        }
        final long l = fastLo;
        final long h = fastHi;
        int k = passed;
        for (int j = 0; j < m; j++) {
            final int r = blockStart + hits[j] * Imprints.GROUP;
            final long p = a + r * s;
            long v = first[j];
            out[k] = r;
            k += (int) (~((v - l) | (h - v)) >>> 63);
            for (int x = 1; x < Imprints.GROUP; x++) {
                v = NativeMemory.getLong(p + x * s);
                out[k] = r + x;
                k += (int) (~((v - l) | (h - v)) >>> 63);
            }
        }
        return k;
    }

    /**
     * Rows {@code [from, to)} of the batch with a compare and branch per row (rows nearly all pass or all fail). The
     * range is one unsigned compare of {@code v - l} with {@code h - l}: two compares of v with l and with h, each
     * branched on by the compiled loop, mispredict on values spread around the range however predictable their
     * outcome ({@code client_id <> x}; figures in the body of commit ca8da3f).
     */
    private int branchy(final long a, final long s, final int start, final int from, final int to,
        final int[] sel, final int[] out, final int passed, final long l, final long h) {
        final long z = nul;
        final boolean neg = negated;
        final long w = h - l;
        int k = passed;
        switch (width) {
            case 8:
                for (int i = from; i < to; i++) {
                    final int r = sel == null ? start + i : sel[i];
                    final long v = NativeMemory.getLong(a + r * s);
                    out[k] = r;
                    k += (v != z & (Long.compareUnsigned(v - l, w) <= 0) != neg) ? 1 : 0;
                }
                break;
            case 4:
                for (int i = from; i < to; i++) {
                    final int r = sel == null ? start + i : sel[i];
                    final long v = NativeMemory.getInt(a + r * s);
                    out[k] = r;
                    k += (v != z & (Long.compareUnsigned(v - l, w) <= 0) != neg) ? 1 : 0;
                }
                break;
            default:
                for (int i = from; i < to; i++) {
                    final int r = sel == null ? start + i : sel[i];
                    final long v = NativeMemory.getSigned(a + r * s, width);
                    out[k] = r;
                    k += (v != z & (Long.compareUnsigned(v - l, w) <= 0) != neg) ? 1 : 0;
                }
                break;
        }
        return k;
    }

    @Override
    public boolean passesAll(final Segment s, final int block, final int blockRows, final int rows) {
        final long zmin = s.zoneMin(block, col);
        final long zmax = s.zoneMax(block, col);
        // negated: every value outside the range (any value, for an empty one, as "not in ()" is "not null")
        final boolean all = negated ? lo > hi || zmax < lo || zmin > hi : lo <= hi && zmin >= lo && zmax <= hi;
        return all && zmin <= zmax && NullFreeBlocks.nullFree(s, col, width, nul, block, blockRows, rows);
    }

    @Override
    public boolean mayMatch(final Segment s, final int block) {
        final long zmin = s.zoneMin(block, col);
        final long zmax = s.zoneMax(block, col);
        if (zmin > zmax) {
            return false;
        }
        if (negated) {
            return !(zmin >= lo && zmax <= hi);
        }
        return lo <= hi && zmax >= lo && zmin <= hi;
    }
}
