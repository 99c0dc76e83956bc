package io.tradestore.query.exec;

import io.tradestore.query.spi.SummaryPart;

/** {@code count}: the group's row count, kept by the group state itself. */
final class RowCountAcc extends Acc {
    @Override
    void grow(final int capacity) {
    }

    @Override
    void update(final BatchContext c, final int[] gid) {
    }

    @Override
    boolean updateFromZone(final io.tradestore.core.segment.Segment s, final int block) {
        return true;
    }

    @Override
    boolean zoneCapable() {
        return true;
    }

    @Override
    int[] summaryMeasure() {
        return new int[] {-1, -1};
    }

    @Override
    void foldSummary(final int g, final SummaryPart p) {
        // the group state adds the part's rows
    }

    @Override
    void merge(final int dst, final Acc src, final int srcGid) {
    }

    @Override
    Object result(final int gid, final long rows) {
        return rows;
    }
}
