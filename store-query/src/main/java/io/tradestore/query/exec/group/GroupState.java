package io.tradestore.query.exec.group;

import java.util.Arrays;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;
import io.tradestore.query.spi.Buckets;
import io.tradestore.query.spi.Summary;
import io.tradestore.query.spi.SummaryPart;
import io.tradestore.query.exec.BatchContext;
import io.tradestore.query.exec.agg.Acc;
import io.tradestore.query.exec.agg.Tasks;
import io.tradestore.query.exec.kernel.DenseSumKernel;
import io.tradestore.query.plan.Plan;

/**
 * One worker's partial aggregation: group ids from the keys (one group; a dense array indexed by the packed key; an
 * open-addressing table of packed keys; or of wide keys), a row count per group, and one {@link Acc} per aggregate.
 */
public final class GroupState {
    private final Plan plan;
    public final Acc[] accs;
    private final Acc[] rowAccs;
    private final Acc[] zoneAccs;
    private final KeySpec[] keys;
    private final int mode;
    /**
     * Rows per group; when the fused kernel ran without counting (no count or avg among the outputs) only a presence
     * measure: positive iff the group has rows, and less a sum's null count positive iff the sum has an addend
     * ({@link DenseSumKernel#finish}).
     */
    public long[] rows;
    final KeyTable table;
    private final long[][] wideCols;
    private static final int LANE_SHIFT = 2;
    private static final int LANES = 1 << LANE_SHIFT;
    private static final long MAX_LANED_GROUPS = 256;
    private final boolean singleDense;
    private final long[] laneRows;
    /**
     * Counts, integral sums and vwaps over direct dense keys (queries 1, 2, 4, 5): one fused loop per batch, or null.
     */
    private final DenseSumKernel kernel;
    /** Splits batches of sorted timestamps into runs of one bucket ({@link Plan#bucketRuns}), or null. */
    private final BucketRuns bucketRuns;
    /** The timestamp slot when a split batch need not gather it, else -1. */
    private final int runsSkipSlot;
    private final int[] runGid;

    public GroupState(final Plan plan) {
        this.plan = plan;
        this.keys = plan.keys;
        this.mode = plan.keyMode;
        this.accs = new Acc[plan.accs.size()];
        int nz = 0;
        for (int i = 0; i < accs.length; i++) {
            accs[i] = plan.accs.get(i).get();
            nz += accs[i].zoneCapable() ? 1 : 0;
        }
        for (final Acc a : accs) {
            a.bind(accs);
        }
        this.zoneAccs = new Acc[nz];
        this.rowAccs = new Acc[accs.length - nz];
        int z = 0;
        int r = 0;
        for (final Acc a : accs) {
            if (a.zoneCapable()) {
                zoneAccs[z++] = a;
            } else {
                rowAccs[r++] = a;
            }
        }
        final int initial = mode == Plan.DENSE ? (int) plan.denseSize : 1;
        rows = new long[Math.max(1, initial)];
        table = mode == Plan.HASH ? new KeyTable(1) : mode == Plan.WIDE ? new KeyTable(keys.length) : null;
        wideCols = mode == Plan.WIDE ? new long[keys.length][BatchContext.BATCH] : null;
        singleDense = plan.directKeys;
        final boolean lanes = singleDense && plan.denseSize <= MAX_LANED_GROUPS;
        laneRows = lanes ? new long[rows.length << LANE_SHIFT] : null;
        if (lanes) {
            for (final Acc a : accs) {
                a.lanes(LANE_SHIFT);
            }
        }
        for (final Acc a : accs) {
            a.grow(rows.length);
        }
        kernel = DenseSumKernel.create(plan, accs, rows.length);
        bucketRuns = plan.bucketRuns ? new BucketRuns(keys[0].col.index(), keys[0].bucketNs, plan.schema.blockRows(),
            plan.schema.segmentRows(), true) : null;
        runsSkipSlot = plan.tsGatherSkippable ? keys[0].slot : -1;
        runGid = bucketRuns != null ? new int[BucketRuns.MAX_RUNS] : null;
    }

    /** @param s the segment whose batches follow. @param segmentRows its committed rows in the snapshot. */
    public void beginSegment(final Segment s, final int segmentRows) {
        for (final Acc a : accs) {
            a.beginSegment(s);
        }
        if (kernel != null) {
            kernel.beginSegment(s, rows, segmentRows);
        }
        if (bucketRuns != null) {
            bucketRuns.beginSegment(s, segmentRows);
        }
    }

    /**
     * Prepares a batch of the current segment ({@link BatchContext#batch}) and consumes it; a batch in time order of a
     * {@link Plan#bucketRuns} plan is consumed as runs of one bucket.
     *
     * @param c         the worker's context, positioned on the segment.
     * @param start     first row of a dense batch.
     * @param n         rows (at least one).
     * @param sel       the rows (ascending), or null for the dense range.
     * @param zoneBlock whether zone-capable aggregates fold this block from the zone map instead.
     */
    public void consume(final BatchContext c, final int start, final int n, final int[] sel, final boolean zoneBlock) {
        if (bucketRuns != null && bucketRuns.split(c, start, n, sel)) {
            c.batch(start, n, sel, runsSkipSlot);
            consumeRuns(c);
            return;
        }
        c.batch(start, n, sel);
        consume(c, zoneBlock);
    }

    /**
     * The group of each run from its bucket (one key lookup per run, not per row), then the aggregates (first/last by
     * run).
     */
    private void consumeRuns(final BatchContext c) {
        final BucketRuns br = bucketRuns;
        final KeySpec key = keys[0];
        final int[] gid = c.gid;
        final int[] start = br.runStart;
        final int runs = br.runs;
        for (int j = 0; j < runs; j++) {
            final int g = bucketGroup(key, br.runKey[j]);
            runGid[j] = g;
            Arrays.fill(gid, start[j], start[j + 1], g);
            rows[g] += start[j + 1] - start[j];
        }
        c.runCount = runs;
        c.runStart = start;
        c.runGid = runGid;
        for (final Acc a : accs) {
            a.update(c, gid);
        }
    }

    /**
     * Folds one part of a segment into group 0 from value summaries (a global aggregate of an index selection).
     *
     * @param views each aggregate's summary.
     * @param part    the part.
     * @param coarse  whether part is a coarse part ({@link Summary#readCoarse}).
     * @param rowBase the segment's first row in the table (first/last break ties by row).
     * @param tmp     scratch.
     * @return the selected rows of the part.
     */
    public long foldSummary(final Summary[] views, final int part, final boolean coarse, final long rowBase,
        final SummaryPart tmp) {
        long n = 0;
        for (int a = 0; a < accs.length; a++) {
            if (coarse) {
                views[a].readCoarse(part, tmp);
            } else {
                views[a].read(part, tmp);
            }
            if (tmp.firstRow >= 0) {
                tmp.firstRow += rowBase;
                tmp.lastRow += rowBase;
            }
            if (a == 0) {
                n = tmp.rows;
                rows[0] += n;
            }
            accs[a].foldSummary(0, tmp);
        }
        return n;
    }

    /** @param key the bucket key. @param bucket a bucket's number (timestamp / width, floored). @return its group. */
    private int bucketGroup(final KeySpec key, final long bucket) {
        final long code = bucket - (key.lo - 1);
        if (code < 1 || code >= key.radix) {
            throw new IllegalStateException("group key '" + key.name + "' outside its zone-map range; radix="
                + key.radix);
        }
        if (mode == Plan.DENSE) {
            return (int) code;
        }
        final int g = table.put(code);
        growTo(table.size());
        return g;
    }

    /**
     * Folds a segment's bucket-summary cells whose minutes lie in {@code [loMinute, hiMinute]} into their buckets'
     * groups (a plan grouped by one time bucket of whole minutes, {@link Plan#bucketRuns}).
     *
     * @param views     each aggregate's cells (the same cells in the same order).
     * @param loMinute  the first minute to fold.
     * @param hiMinute  the last minute to fold.
     * @param perBucket minutes per bucket.
     * @param rowBase   the segment's first row in the table (first/last break ties by row).
     * @param tmp       scratch.
     * @return the rows folded.
     */
    public long foldBuckets(final Buckets[] views, final long loMinute, final long hiMinute, final long perBucket,
                     final long rowBase, final SummaryPart tmp) {
        final KeySpec key = keys[0];
        long n = 0;
        for (int j = 0; j < views[0].cells(); j++) {
            final long minute = views[0].minute(j);
            if (minute < loMinute || minute > hiMinute) {
                continue;
            }
            final int g = bucketGroup(key, Math.floorDiv(minute, perBucket));
            for (int a = 0; a < accs.length; a++) {
                if (a == 0 || views[a] != views[a - 1]) { // aggregates of one measure share a view: read its cell once
                    views[a].read(j, tmp);
                    if (tmp.firstRow >= 0) {
                        tmp.firstRow += rowBase;
                        tmp.lastRow += rowBase;
                    }
                }
                if (a == 0) {
                    rows[g] += tmp.rows;
                    n += tmp.rows;
                }
                accs[a].foldSummary(g, tmp);
            }
        }
        return n;
    }

    /**
     * @param c         a prepared batch.
     * @param zoneBlock whether zone-capable aggregates fold this block from the zone map instead.
     */
    public void consume(final BatchContext c, final boolean zoneBlock) {
        final int n = c.n;
        final Acc[] list = zoneBlock ? rowAccs : accs;
        if (mode == Plan.GLOBAL) {
            rows[0] += n;
            for (final Acc a : list) {
                a.update(c, null);
            }
            return;
        }
        final int[] gid = c.gid;
        if (singleDense) {
            if (kernel != null && kernel.usable()) {
                final boolean inline = kernel.inline(c);
                if (!inline) {
                    denseGids(c, gid, false);
                }
                kernel.consume(c, gid, rows, inline);
                return;
            }
            denseGids(c, gid, true);
            for (final Acc a : list) {
                a.update(c, gid);
            }
            return;
        }
        if (mode == Plan.WIDE) {
            for (int k = 0; k < keys.length; k++) {
                final KeySpec key = keys[k];
                final long a = c.viewAddr[key.slot];
                final long s = c.viewStride[key.slot];
                final long[] dst = wideCols[k];
                for (int i = 0; i < n; i++) {
                    dst[i] = key.keyValue(NativeMemory.getLong(a + i * s));
                }
            }
            for (int i = 0; i < n; i++) {
                gid[i] = table.putWide(wideCols, i);
            }
            growTo(table.size());
        } else {
            final long[] packed = c.packed;
            for (int k = 0; k < keys.length; k++) {
                if (keys[k].bucket()) {
                    packBucket(c, keys[k], packed, k == 0);
                } else {
                    packColumn(c, keys[k], packed, k == 0);
                }
            }
            if (mode == Plan.DENSE) {
                for (int i = 0; i < n; i++) {
                    gid[i] = (int) packed[i];
                }
            } else {
                table.putAll(packed, n, gid);
                growTo(table.size());
            }
        }
        final long[] r = rows;
        for (int i = 0; i < n; i++) {
            r[gid[i]]++;
        }
        for (final Acc a : list) {
            a.update(c, gid);
        }
    }

    /**
     * The common case of plain keys in a dense array (side, venue, instrument, client_id, and their combinations):
     * group ids straight from the columns (no gather, no packing pass), then rows counted per group; with few groups
     * the counts go to {@link #LANES} interleaved lanes so that runs of one group do not serialise on one counter.
     */
    private void denseGids(final BatchContext c, final int[] gid, final boolean countRows) {
        for (int k = 0; k < keys.length; k++) {
            keyGids(c, gid, k);
        }
        if (!countRows) {
            return;
        }
        final int n = c.n;
        if (laneRows != null) {
            final long[] lr = laneRows;
            for (int i = 0; i < n; i++) {
                lr[(gid[i] << LANE_SHIFT) | (i & (LANES - 1))]++;
            }
        } else {
            final long[] r = rows;
            for (int i = 0; i < n; i++) {
                r[gid[i]]++;
            }
        }
    }

    /**
     * Sets each row's group to key 0's code times its multiplier, or adds a later key's, checking the codes against
     * the key's zone-map range: one loop per key width and batch shape, picked here once per batch and key.
     */
    private void keyGids(final BatchContext c, final int[] gid, final int k) {
        final int n = c.n;
        final int[] sel = c.rows;
        final int start = c.start;
        final KeySpec key = keys[k];
        final int col = key.col.index();
        final long a = sel == null ? c.base[col] + start * c.stride[col] : c.base[col];
        final long s = c.stride[col];
        final int nul = (int) c.nul[col];
        final int lo = (int) key.lo - 1;
        final int radix = (int) key.radix;
        final int mult = (int) key.mult;
        final boolean first = k == 0;
        int bad = 0;
        switch (c.width[col]) {
            case 8: {
                final long lnul = c.nul[col];
                final long llo = key.lo - 1;
                long lbad = 0;
                for (int i = 0; i < n; i++) {
                    final long v = NativeMemory.getLong(a + (sel == null ? i : sel[i]) * s);
                    final long code = v == lnul ? 0 : v - llo;
                    lbad |= code | (radix - 1 - code);
                    gid[i] = first ? (int) code * mult : gid[i] + (int) code * mult;
                }
                bad = lbad < 0 ? -1 : 0;
                break;
            }
            case 4:
                if (sel == null && first && mult == 1) {
                    for (int i = 0; i < n; i++) {
                        final int v = NativeMemory.getInt(a + i * s);
                        final int code = v == nul ? 0 : v - lo;
                        bad |= code | (radix - 1 - code);
                        gid[i] = code;
                    }
                } else if (sel == null && !first) {
                    // a later key of a dense batch (venue x side): no selection indirection
                    for (int i = 0; i < n; i++) {
                        final int v = NativeMemory.getInt(a + i * s);
                        final int code = v == nul ? 0 : v - lo;
                        bad |= code | (radix - 1 - code);
                        gid[i] += code * mult;
                    }
                } else {
                    for (int i = 0; i < n; i++) {
                        final int v = NativeMemory.getInt(a + (sel == null ? i : sel[i]) * s);
                        final int code = v == nul ? 0 : v - lo;
                        bad |= code | (radix - 1 - code);
                        gid[i] = first ? code * mult : gid[i] + code * mult;
                    }
                }
                break;
            case 2:
                for (int i = 0; i < n; i++) {
                    final int v = NativeMemory.getShort(a + (sel == null ? i : sel[i]) * s);
                    final int code = v == nul ? 0 : v - lo;
                    bad |= code | (radix - 1 - code);
                    gid[i] = first ? code * mult : gid[i] + code * mult;
                }
                break;
            default:
                if (key.rawByte) {
                    // every byte is a code: no null select, no range check
                    for (int i = 0; i < n; i++) {
                        final int code = NativeMemory.getByte(a + (sel == null ? i : sel[i]) * s) & 0xFF;
                        gid[i] = first ? code * mult : gid[i] + code * mult;
                    }
                } else if (sel == null && first && mult == 1) {
                    for (int i = 0; i < n; i++) {
                        final int v = NativeMemory.getByte(a + i * s);
                        final int code = v == nul ? 0 : v - lo;
                        bad |= code | (radix - 1 - code);
                        gid[i] = code;
                    }
                } else if (sel == null && !first) {
                    // a later key of a dense batch (venue x side): no selection indirection
                    for (int i = 0; i < n; i++) {
                        final int v = NativeMemory.getByte(a + i * s);
                        final int code = v == nul ? 0 : v - lo;
                        bad |= code | (radix - 1 - code);
                        gid[i] += code * mult;
                    }
                } else {
                    for (int i = 0; i < n; i++) {
                        final int v = NativeMemory.getByte(a + (sel == null ? i : sel[i]) * s);
                        final int code = v == nul ? 0 : v - lo;
                        bad |= code | (radix - 1 - code);
                        gid[i] = first ? code * mult : gid[i] + code * mult;
                    }
                }
                break;
        }
        if (bad < 0) {
            throw new IllegalStateException("group key '" + key.name + "' outside its zone-map range; radix="
                + radix);
        }
    }

    /** Adds a time bucket's codes (of its gathered timestamps) to the batch's packed keys. */
    private static void packBucket(final BatchContext c, final KeySpec key, final long[] packed,
                                   final boolean first) {
        final int n = c.n;
        final long a = c.viewAddr[key.slot];
        final long s = c.viewStride[key.slot];
        final long lo = key.lo - 1;
        final long radix = key.radix;
        final long mult = key.mult;
        final long w = key.bucketNs;
        long bad = 0;
        // calendar buckets in a loop of their own, so that the fixed-width loop (the common one) stays as it was
        if (key.bucketMonths > 0) {
            for (int i = 0; i < n; i++) {
                final long v = NativeMemory.getLong(a + i * s);
                final long code = v == Long.MIN_VALUE ? 0 : key.keyValue(v) - lo;
                bad |= code | (radix - 1 - code);
                packed[i] = first ? code * mult : packed[i] + code * mult;
            }
        } else {
            // a division only where the bucket changes: rows in time order stay in one bucket for many rows, and a
            // 64-bit division costs more than the rest of the loop
            long from = 1;
            long to = 0;
            long bucketCode = 0;
            for (int i = 0; i < n; i++) {
                final long v = NativeMemory.getLong(a + i * s);
                if (v < from || v >= to) {
                    final long b = Math.floorDiv(v, w);
                    bucketCode = b - lo;
                    from = v - Math.floorMod(v, w);
                    to = from + w;
                    if (from > v || to <= from) { // within a width of the long range: this value alone
                        from = v;
                        to = v + 1 > v ? v + 1 : v;
                    }
                }
                final long code = v == Long.MIN_VALUE ? 0 : bucketCode;
                bad |= code | (radix - 1 - code);
                packed[i] = first ? code * mult : packed[i] + code * mult;
            }
        }
        if (bad < 0) {
            throw new IllegalStateException("group key '" + key.name + "' outside its zone-map range; radix=" + radix);
        }
    }

    /**
     * Adds a plain key's codes to the batch's packed keys, straight from its column at its own width (a one-byte side,
     * a four-byte symbol code): its slot is gathered only when an aggregate reads it ({@code Plan.slotSkipped}).
     */
    private static void packColumn(final BatchContext c, final KeySpec key, final long[] packed,
                                   final boolean first) {
        final int n = c.n;
        final int[] sel = c.rows;
        final int col = key.col.index();
        final long s = c.stride[col];
        final long a = sel == null ? c.base[col] + c.start * s : c.base[col];
        final long nul = c.nul[col];
        final int width = c.width[col];
        final long lo = key.lo - 1;
        final long radix = key.radix;
        final long mult = key.mult;
        long bad = 0;
        // as Gather widens: signed reads, the column's null marker (an 8-byte column's is Long.MIN_VALUE) as null;
        // a loop per width, so that each stays a plain loop
        switch (width) {
            case 8:
                for (int i = 0; i < n; i++) {
                    final long v = NativeMemory.getLong(a + (sel == null ? i : sel[i]) * s);
                    final long code = v == nul ? 0 : v - lo;
                    bad |= code | (radix - 1 - code);
                    packed[i] = first ? code * mult : packed[i] + code * mult;
                }
                break;
            case 4:
                for (int i = 0; i < n; i++) {
                    final long v = NativeMemory.getInt(a + (sel == null ? i : sel[i]) * s);
                    final long code = v == nul ? 0 : v - lo;
                    bad |= code | (radix - 1 - code);
                    packed[i] = first ? code * mult : packed[i] + code * mult;
                }
                break;
            default:
                for (int i = 0; i < n; i++) {
                    final long at = a + (sel == null ? i : sel[i]) * s;
                    final long v = width == 2 ? NativeMemory.getShort(at) : NativeMemory.getByte(at);
                    final long code = v == nul ? 0 : v - lo;
                    bad |= code | (radix - 1 - code);
                    packed[i] = first ? code * mult : packed[i] + code * mult;
                }
                break;
        }
        if (bad < 0) {
            throw new IllegalStateException("group key '" + key.name + "' outside its zone-map range; radix=" + radix);
        }
    }

    private void growTo(final int groups) {
        if (groups > plan.maxGroups) {
            throw new QueryException(ErrorCode.TOO_MANY_GROUPS, "the query makes more than maxGroups=" + plan.maxGroups
                + " groups; filter more, group by fewer keys, or raise options.maxGroups", "/groupBy");
        }
        if (groups > rows.length) {
            final int n = Math.max(groups, rows.length * 2);
            rows = Arrays.copyOf(rows, n);
            for (final Acc a : accs) {
                a.grow(n);
            }
        }
    }

    /** Folds a whole unfiltered block of a global aggregate from the zone map. */
    public void zoneFold(final Segment s, final int block) {
        for (final Acc a : zoneAccs) {
            a.updateFromZone(s, block);
        }
    }

    public void finish() {
        if (kernel != null) {
            kernel.finish(rows);
        }
        if (laneRows != null) {
            for (int i = 0; i < laneRows.length; i++) {
                rows[i >>> LANE_SHIFT] += laneRows[i];
                laneRows[i] = 0;
            }
        }
        for (final Acc a : accs) {
            a.finish();
        }
    }

    /** @return the number of groups with rows. */
    public int groupCount() {
        switch (mode) {
            case Plan.GLOBAL:
                return 1;
            case Plan.DENSE: {
                int n = 0;
                for (final long r : rows) {
                    n += r > 0 ? 1 : 0;
                }
                return n;
            }
            default:
                return table.size();
        }
    }

    /** Readies the merged partial's accumulators for results, with the threads {@code tasks} lends. */
    public void beforeResults(final Tasks tasks) {
        for (final Acc a : accs) {
            a.beforeResults(tasks);
        }
    }

    /** Gives back the memory its accumulators took from pools ({@link Acc#release}); its results are made. */
    public void release() {
        for (final Acc a : accs) {
            a.release();
        }
    }

    /** Merges another worker's finished partial into this one. */
    public void merge(final GroupState o) {
        switch (mode) {
            case Plan.GLOBAL:
            case Plan.DENSE: {
                final int[] same = o.groups();
                for (final int g : same) {
                    rows[g] += o.rows[g];
                }
                for (int i = 0; i < accs.length; i++) {
                    accs[i].mergeSame(o.accs[i], same);
                }
                break;
            }
            case Plan.HASH:
                for (int g = 0; g < o.table.size(); g++) {
                    final int d = table.put(o.table.keys[g]);
                    growTo(table.size());
                    mergeGroup(d, o, g);
                }
                break;
            default:
                for (int g = 0; g < o.table.size(); g++) {
                    final int d = table.putWide(o.table.keys, g * keys.length);
                    growTo(table.size());
                    mergeGroup(d, o, g);
                }
                break;
        }
    }

    private void mergeGroup(final int dst, final GroupState o, final int src) {
        rows[dst] += o.rows[src];
        for (int i = 0; i < accs.length; i++) {
            accs[i].merge(dst, o.accs[i], src);
        }
    }

    /** @return the group ids that have rows (a global aggregate always has group 0). */
    public int[] groups() {
        if (mode == Plan.GLOBAL) {
            return new int[] {0};
        }
        if (mode == Plan.DENSE) {
            final int[] out = new int[groupCount()];
            int k = 0;
            for (int g = 0; g < rows.length; g++) {
                if (rows[g] > 0) {
                    out[k++] = g;
                }
            }
            return out;
        }
        final int[] out = new int[table.size()];
        for (int g = 0; g < out.length; g++) {
            out[g] = g;
        }
        return out;
    }

    /**
     * @param gid a group. @param k a key index. @return the key's value as a raw output long (Long.MIN_VALUE: null).
     */
    public long keyRaw(final int gid, final int k) {
        final KeySpec key = keys[k];
        if (mode == Plan.WIDE) {
            return key.outputRaw(table.keys[gid * keys.length + k]);
        }
        final long packed = mode == Plan.DENSE ? gid : table.keys[gid];
        return key.decode((packed / key.mult) % key.radix);
    }
}
