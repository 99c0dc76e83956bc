package io.tradestore.query.exec;

import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.spi.SummaryPart;
import io.tradestore.query.exec.kernel.Gather;
import io.tradestore.query.exec.kernel.Imprints;
import io.tradestore.query.exec.kernel.NullFreeBlocks;
import io.tradestore.query.exec.kernel.SortedBlocks;
import io.tradestore.query.plan.Plan;

/**
 * One worker's per-batch state: the column addresses of the current segment, the rows of the current batch (dense
 * {@code [start, start + n)} or a selection vector) and off-heap scratch where narrow or selected columns are gathered
 * as longs. Owned by one thread; frees its scratch on {@link #close()}.
 */
public final class BatchContext implements AutoCloseable {
    /** Rows per batch: the gathered columns of a batch stay in the L1/L2 cache. */
    public static final int BATCH = 4096;

    public final long[] base;
    public final long[] stride;
    public final int[] width;
    public final long[] nul;
    /**
     * Per column: the current segment's zone-map minimum and maximum (empty: max below min). Filters pick loops that
     * are exact only for values inside known bounds from them, once per batch.
     */
    public final long[] zoneMin;
    public final long[] zoneMax;
    final boolean[] f64;
    /** The kept runs of a nearly fully kept batch, as (start, rows) pairs, in {@code Executor.consumeKept}. */
    final int[] keptRuns = new int[2 * (Executor.DENSE_GAPS + 1)];
    final int[] sel;
    public final int[] gid;
    public final long[] packed;
    /** This thread's batch arrays, when this context holds them (returned on close), else null. */
    private BatchArrays held;
    /** Per slot: address and stride of the batch's values as longs (raw f64 bits for f64 columns). */
    public final long[] viewAddr;
    public final long[] viewStride;
    public final int[] slotColumn;
    private final boolean[] slotSkipped;
    /** Address of a constant 1L: a plain column's sum reads it with stride 0 as the second factor. */
    public final long ones;
    /** Scratch for parts folded from value summaries. */
    final SummaryPart summaryPart = new SummaryPart();
    private final long scratch;
    private final long scratchLength;
    private int[][] pool = new int[4][];
    /** What filter nodes learn while this worker applies them (the order of an AND's arguments), by node. */
    private final IdentityHashMap<Object, Object> filterStates = new IdentityHashMap<>();
    private int pooled;
    public long segmentRowBase;
    /** The segment the context points at, its committed rows and the schema's rows per block. */
    private Segment segment;
    private int segmentRows;
    private final int blockRows;
    /** Per column: the current segment's imprints ({@link Imprints}), looked up when a filter first asks. */
    private final AtomicReferenceArray<Imprints.Imprint>[] imprints;
    public int start;
    public int n;
    /** The batch's rows, or null for the dense range. */
    public int[] rows;
    /**
     * Runs of one group in the batch ({@link BucketRuns}), or 0 when the batch is not split into runs: run {@code j}
     * is rows {@code [runStart[j], runStart[j + 1])} of group {@code runGid[j]}, and its rows are in time order.
     */
    public int runCount;
    public int[] runStart;
    public int[] runGid;

    /**
     * The per-batch arrays (72 KiB), kept per thread: a selective query takes a fraction of a millisecond,
     * and allocating them per query per worker made young collections (and their pauses) frequent under thousands of
     * queries a second.
     */
    private static final class BatchArrays {
        final int[] sel = new int[BATCH];
        public final int[] gid = new int[BATCH];
        public final long[] packed = new long[BATCH];
        boolean inUse;
    }

    private static final ThreadLocal<BatchArrays> ARRAYS = ThreadLocal.withInitial(BatchArrays::new);

    public BatchContext(final Plan plan) {
        final BatchArrays mine = ARRAYS.get();
        final BatchArrays a = mine.inUse ? new BatchArrays() : mine; // a second context on one thread gets its own
        a.inUse = true;
        held = a == mine ? a : null;
        sel = a.sel;
        gid = a.gid;
        packed = a.packed;
        final int cols = plan.schema.columnCount();
        blockRows = plan.schema.blockRows();
        base = new long[cols];
        stride = new long[cols];
        width = new int[cols];
        nul = new long[cols];
        zoneMin = new long[cols];
        zoneMax = new long[cols];
        @SuppressWarnings({"unchecked", "rawtypes"})
        final AtomicReferenceArray<Imprints.Imprint>[] none = new AtomicReferenceArray[cols];
        imprints = none;
        f64 = new boolean[cols];
        for (int c = 0; c < cols; c++) {
            width[c] = plan.schema.column(c).width();
            nul[c] = plan.schema.column(c).type().nullBits();
            f64[c] = plan.schema.column(c).type() == io.tradestore.core.schema.ColumnType.F64;
        }
        slotColumn = plan.slotColumn;
        slotSkipped = plan.slotSkipped;
        viewAddr = new long[slotColumn.length];
        viewStride = new long[slotColumn.length];
        scratchLength = Math.max(1, slotColumn.length) * (long) BATCH * 8;
        scratch = NativeMemory.allocate(scratchLength + 8);
        ones = scratch + scratchLength;
        NativeMemory.putLong(ones, 1L);
    }

    /** Points the context at a segment whose block facts ({@link #sortedRun}, {@link #nullFreeRun}) go unused. */
    public void segment(final Segment s, final long rowBase) {
        segment(s, rowBase, 0);
    }

    /**
     * Points the context at a segment.
     *
     * @param s       the segment.
     * @param rowBase the row id of its first row.
     * @param rows    its committed rows (0: no block fact is asked of it).
     */
    public void segment(final Segment s, final long rowBase, final int rows) {
        segment = s;
        segmentRows = rows;
        segmentRowBase = rowBase;
        Arrays.fill(imprints, null);
        for (int c = 0; c < base.length; c++) {
            base[c] = s.columnBase(c);
            stride[c] = s.columnStride(c);
            zoneMin[c] = s.zoneMin(-1, c);
            zoneMax[c] = s.zoneMax(-1, c);
        }
    }

    /** Sets the batch rows and makes every slot's values readable as (address, stride) longs. */
    public void batch(final int batchStart, final int count, final int[] selected) {
        batch(batchStart, count, selected, -1);
    }

    /**
     * Sets the batch rows and makes every slot's values but one readable as (address, stride) longs.
     *
     * @param batchStart first row of a dense batch.
     * @param count      rows.
     * @param selected   the rows, or null for the dense range.
     * @param skipSlot   a slot nobody reads in this batch (not gathered), or -1.
     */
    public void batch(final int batchStart, final int count, final int[] selected, final int skipSlot) {
        start = batchStart;
        n = count;
        rows = selected;
        runCount = 0;
        int pending = -1; // an 8-byte slot of a selected batch waiting for a second one to gather with
        for (int slot = 0; slot < slotColumn.length; slot++) {
            final int c = slotColumn[slot];
            if (slotSkipped[slot] || slot == skipSlot) {
                continue;
            }
            if (selected == null && width[c] == 8) {
                viewAddr[slot] = base[c] + batchStart * stride[c];
                viewStride[slot] = stride[c];
                continue;
            }
            final long dst = scratch + (long) slot * BATCH * 8;
            viewAddr[slot] = dst;
            viewStride[slot] = 8;
            if (selected != null && width[c] == 8 && !f64[c]) {
                if (pending < 0) {
                    pending = slot;
                    continue;
                }
                final int pc = slotColumn[pending];
                Gather.gather2(base[pc], stride[pc], viewAddr[pending], base[c], stride[c], dst, selected, count);
                pending = -1;
                continue;
            }
            Gather.gather(width[c], f64[c] ? Long.MIN_VALUE : nul[c], base[c], stride[c], batchStart, selected, count,
                dst);
        }
        if (pending >= 0) {
            final int pc = slotColumn[pending];
            Gather.gather(8, nul[pc], base[pc], stride[pc], batchStart, selected, count, viewAddr[pending]);
        }
    }

    /**
     * @param column a column.
     * @return whether the batch's rows (ascending; dense or selected) lie inside one committed block where the column
     *     is never null and non-decreasing ({@link SortedBlocks}), so their values are too: a check per batch that
     *     spares a pass over its rows.
     */
    public boolean sortedRun(final int column) {
        final int b = n > 0 ? row(0) / blockRows : -1;
        return b >= 0 && row(n - 1) / blockRows == b
            && SortedBlocks.sorted(segment, column, width[column], nul[column], b, blockRows, segmentRows);
    }

    /**
     * @param column a column.
     * @return whether the batch is a run of rows inside one committed block where the column is never null
     *     ({@link NullFreeBlocks}).
     */
    public boolean nullFreeRun(final int column) {
        final int b = start / blockRows;
        return rows == null && n > 0 && (start + n - 1) / blockRows == b
            && NullFreeBlocks.nullFree(segment, column, width[column], nul[column], b, blockRows, segmentRows);
    }

    /** @return rows per zone-map block. */
    public int blockRows() {
        return blockRows;
    }

    /**
     * @param column an 8-byte column.
     * @param block  a block of the current segment.
     * @return the block's imprint ({@link Imprints}), built now if no query built it yet; null when the block's rows
     *     are not all committed or the context has no committed row count.
     */
    public Imprints.Imprint imprint(final int column, final int block) {
        if (segmentRows == 0) {
            return null;
        }
        AtomicReferenceArray<Imprints.Imprint> a = imprints[column];
        if (a == null) {
            a = Imprints.column(segment, column, blockRows, segmentRows);
            imprints[column] = a;
        }
        return Imprints.of(a, segment, column, block, blockRows);
    }

    /** @param i index in the batch. @return the row within the segment. */
    public int row(final int i) {
        return rows == null ? start + i : rows[i];
    }

    /** @param node a filter node. @return what it stored with {@link #filterState(Object, Object)}, or null. */
    public Object filterState(final Object node) {
        return filterStates.get(node);
    }

    /** @param node a filter node. @param state what it learnt on this worker, kept for the query. */
    public void filterState(final Object node, final Object state) {
        filterStates.put(node, state);
    }

    public int[] borrow() {
        if (pooled > 0) {
            return pool[--pooled];
        }
        return new int[BATCH];
    }

    public void release(final int[] buffer) {
        if (pooled == pool.length) {
            pool = java.util.Arrays.copyOf(pool, pooled * 2);
        }
        pool[pooled++] = buffer;
    }

    @Override
    public void close() {
        NativeMemory.free(scratch, scratchLength + 8);
        if (held != null) {
            held.inUse = false;
            held = null;
        }
    }
}
