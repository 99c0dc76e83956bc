package io.tradestore.core.segment;

import io.tradestore.core.StoreException;
import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;

/**
 * Verifies one segment's zone map (format 2 on) as snapshots grow into it, for one reader or writer: the checksum of
 * each block once the committed rows fill it (those entries never change again), each block once, so a snapshot costs
 * only the blocks its commit filled; the checksum of the segment-wide entries once the segment is full. The last,
 * partly filled block and the segment-wide entries of a segment not yet full may be widened by the writer at any
 * moment, so their checksums are not verified; the segment-wide entries are checked to cover every verified block
 * instead (the writer only ever widens them, so one that no longer covers them was damaged).
 */
final class ZoneMapVerifier {
    private final Schema schema;
    private final int segment;
    private final MappedFile zone;
    private final long base;
    private final int columns;
    /** Blocks from 0 whose checksums have been verified. */
    private int verifiedBlocks;
    /** Whether the segment-wide entries' checksum has been verified. */
    private boolean segmentVerified;
    /**
     * Per column: the union of the verified blocks' entries (f64 as raw bits), which the segment-wide entry must cover.
     */
    private final long[] verifiedMin;
    private final long[] verifiedMax;

    ZoneMapVerifier(final Schema schema, final int segment, final MappedFile zone) {
        this.schema = schema;
        this.segment = segment;
        this.zone = zone;
        this.base = zone.address();
        this.columns = schema.columnCount();
        this.verifiedMin = new long[columns];
        this.verifiedMax = new long[columns];
        for (final Column c : schema.columns()) {
            final boolean f64 = c.type() == ColumnType.F64;
            verifiedMin[c.index()] = f64 ? Double.doubleToRawLongBits(Double.POSITIVE_INFINITY) : Long.MAX_VALUE;
            verifiedMax[c.index()] = f64 ? Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY) : Long.MIN_VALUE;
        }
    }

    /**
     * Verifies what rows {@code [0, rows)} of the segment settle (see the class comment).
     *
     * @param rows committed rows in the segment.
     * @throws StoreException naming the file and the block when an entry is damaged.
     */
    void verify(final int rows) {
        final int full = rows / schema.blockRows();
        for (; verifiedBlocks < full; verifiedBlocks++) {
            verifyChecksum(verifiedBlocks);
            fold(verifiedBlocks);
        }
        if (rows == schema.segmentRows()) {
            if (!segmentVerified) {
                verifyChecksum(-1);
                segmentVerified = true;
            }
        } else if (verifiedBlocks > 0) {
            checkSegmentEntriesCover();
        }
    }

    private void verifyChecksum(final int block) {
        final long stored =
            NativeMemory.getLong(base + ZoneMapDescriptor.checksumOffset(columns, schema.blocksPerSegment(), block));
        if (stored != ZoneMapDescriptor.checksum(base, columns, block)) {
            final String what = block < 0 ? "the segment-wide entries (one per column, over the whole segment)"
                : "the entries of block " + block + " (rows " + (long) block * schema.blockRows() + "-"
                    + ((long) (block + 1) * schema.blockRows() - 1) + " of the segment)";
            throw new StoreException("damaged zone map " + zone.path() + ": " + what + " of segment " + segment
                + " fail their checksum; restore the table from a copy, or reload it");
        }
    }

    private long entry(final int block, final int column, final int half) {
        return NativeMemory.getLong(base + ZoneMapDescriptor.entryOffset(columns, block, column) + 8L * half);
    }

    /** Adds a verified block's entries to the union the segment-wide entries must cover. */
    private void fold(final int block) {
        for (final Column c : schema.columns()) {
            final int i = c.index();
            final long min = entry(block, i, 0);
            final long max = entry(block, i, 1);
            if (c.type() == ColumnType.F64) {
                verifiedMin[i] =
                    Double.doubleToRawLongBits(
                    Math.min(Double.longBitsToDouble(verifiedMin[i]), Double.longBitsToDouble(min)));
                verifiedMax[i] =
                    Double.doubleToRawLongBits(
                    Math.max(Double.longBitsToDouble(verifiedMax[i]), Double.longBitsToDouble(max)));
            } else {
                verifiedMin[i] = Math.min(verifiedMin[i], min);
                verifiedMax[i] = Math.max(verifiedMax[i], max);
            }
        }
    }

    private void checkSegmentEntriesCover() {
        for (final Column c : schema.columns()) {
            final int i = c.index();
            final long min = entry(-1, i, 0);
            final long max = entry(-1, i, 1);
            final boolean covers = c.type() == ColumnType.F64
                ? !(Double.longBitsToDouble(verifiedMin[i]) <= Double.longBitsToDouble(verifiedMax[i]))
                    || Double.longBitsToDouble(min) <= Double.longBitsToDouble(verifiedMin[i])
                        && Double.longBitsToDouble(max) >= Double.longBitsToDouble(verifiedMax[i])
                : verifiedMin[i] > verifiedMax[i] || min <= verifiedMin[i] && max >= verifiedMax[i];
            if (!covers) {
                throw new StoreException("damaged zone map " + zone.path() + ": the segment-wide entry of column '" + c
                    .name() + "' of segment "
                    + segment + " does not cover the entries of its blocks 0-" + (verifiedBlocks - 1)
                    + ", whose checksums are sound; restore the table from a copy, or reload it");
            }
        }
    }
}
