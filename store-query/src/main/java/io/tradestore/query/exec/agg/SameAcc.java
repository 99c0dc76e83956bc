package io.tradestore.query.exec.agg;

import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.BatchContext;
import io.tradestore.query.spi.SummaryPart;

/**
 * An aggregate the query asks for again (the same operation on the same operand, under another name): it records
 * nothing and answers from the first one's state, so that {@code countDistinct(side)} asked three times costs one.
 */
public final class SameAcc extends Acc {
    private static final int[] ROWS_ONLY = {-1, -1};
    private final int owner;
    private Acc data;

    /** @param owner the index of the first aggregate of the same operation and operand. */
    public SameAcc(final int owner) {
        this.owner = owner;
    }

    @Override
    public void bind(final Acc[] all) {
        data = all[owner];
    }

    @Override
    public void grow(final int capacity) {
    }

    @Override
    public void update(final BatchContext c, final int[] gid) {
    }

    @Override
    public boolean updateFromZone(final Segment s, final int block) {
        return true;
    }

    @Override
    public boolean zoneCapable() {
        return true;
    }

    /** @return row counts only: the first aggregate asks for the measure it needs, and the executor folds it there. */
    @Override
    public int[] summaryMeasure() {
        return ROWS_ONLY;
    }

    @Override
    public void foldSummary(final int g, final SummaryPart p) {
    }

    @Override
    public void merge(final int dst, final Acc src, final int srcGid) {
    }

    @Override
    public Object result(final int gid, final long rows) {
        return data.result(gid, rows);
    }
}
