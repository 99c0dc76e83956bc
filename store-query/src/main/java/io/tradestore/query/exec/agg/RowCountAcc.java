package io.tradestore.query.exec.agg;

import io.tradestore.query.spi.SummaryPart;
import io.tradestore.query.exec.BatchContext;

/** {@code count}: the group's row count, kept by the group state itself. */
public final class RowCountAcc extends Acc {
    @Override
    public void grow(final int capacity) {
    }

    @Override
    public void update(final BatchContext c, final int[] gid) {
    }

    @Override
    public boolean updateFromZone(final io.tradestore.core.segment.Segment s, final int block) {
        return true;
    }

    @Override
    public boolean zoneCapable() {
        return true;
    }

    @Override
    public int[] summaryMeasure() {
        return new int[] {-1, -1};
    }

    @Override
    public void foldSummary(final int g, final SummaryPart p) {
        // the group state adds the part's rows
    }

    @Override
    public void merge(final int dst, final Acc src, final int srcGid) {
    }

    @Override
    public Object result(final int gid, final long rows) {
        return rows;
    }
}
