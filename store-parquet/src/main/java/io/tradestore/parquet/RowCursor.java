package io.tradestore.parquet;

/** The row {@link SegmentWriteSupport} writes next: one object per export, moved along, never one per row. */
final class RowCursor {
    /** The segment. */
    int segment;
    /** The row within the segment. */
    int row;
}
