package io.tradestore.query.index;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * Layout of a segment's bitmap index file {@code <column>.bitmap}, one per indexed column of a sealed segment. Slot 0
 * holds the rows where the column is null; slot {@code k + 1} the rows whose value is {@code min + k} (symbol codes, or
 * integers). Each slot is a Roaring bitmap in its portable serialised form, read in place from the mapping.
 *
 * <pre>
 *  0                   4                   8
 *  +-------------------+-------------------+
 *  | formatVersion i32 | kind i32          |   kind 1: indexed, 0: not worth indexing (marker, no slots)
 *  +-------------------+-------------------+
 *  | rowCount i32      | slotCount i32     |
 *  +-------------------+-------------------+
 *  | min i64                               |
 *  +---------------------------------------+
 *  | checksum i64 (CRC32 of every other byte of the file: the header before it, OFFSETS_OFFSET to the end)
 *  +---------------------------------------+  OFFSETS_OFFSET (32)
 *  | slotCount + 1 offsets i64, relative to the data start  |
 *  +---------------------------------------+  data start
 *  | serialised bitmaps, slot after slot    |
 * </pre>
 * Written to a temporary file, forced, then renamed into place, so readers see a whole file or none; a file that fails
 * its checks is rebuilt.
 */
public final class BitmapIndexDescriptor {
    /**
     * The current format. Version 2 extends the checksum over the header (a damaged minimum or kind passed version 1's
     * checks and misplaced every lookup); files of version 1 fail the version check and are rebuilt.
     */
    public static final int FORMAT_VERSION = 2;
    /** File name suffix after the column name. */
    public static final String SUFFIX = ".bitmap";
    /** Offset of the format version. */
    public static final int FORMAT_VERSION_OFFSET = 0;
    /** Offset of the kind. */
    public static final int KIND_OFFSET = FORMAT_VERSION_OFFSET + 4;
    /** Offset of the row count. */
    public static final int ROW_COUNT_OFFSET = KIND_OFFSET + 4;
    /** Offset of the slot count. */
    public static final int SLOT_COUNT_OFFSET = ROW_COUNT_OFFSET + 4;
    /** Offset of the minimum value. */
    public static final int MIN_OFFSET = SLOT_COUNT_OFFSET + 4;
    /** Offset of the checksum. */
    public static final int CHECKSUM_OFFSET = MIN_OFFSET + 8;
    /** Offset of the slot offsets. */
    public static final int OFFSETS_OFFSET = CHECKSUM_OFFSET + 8;
    /** Kind of an indexed column. */
    public static final int KIND_INDEXED = 1;
    /** Kind of a marker: the column has too many distinct values in this segment to be worth indexing. */
    public static final int KIND_NOT_INDEXED = 0;

    private BitmapIndexDescriptor() {
    }

    /**
     * @param file a whole index file, positioned anywhere (its position and limit are left alone).
     * @return the CRC32 of every byte but the checksum's own: the header before it, and everything from OFFSETS_OFFSET.
     */
    public static long checksum(final ByteBuffer file) {
        final CRC32 crc = new CRC32();
        final ByteBuffer b = file.duplicate();
        b.position(0).limit(CHECKSUM_OFFSET);
        crc.update(b);
        b.limit(file.capacity()).position(OFFSETS_OFFSET);
        crc.update(b);
        return crc.getValue();
    }

    /** @param slotCount slots. @return offset of the first bitmap. */
    public static long dataOffset(final int slotCount) {
        return OFFSETS_OFFSET + (slotCount + 1L) * 8;
    }
}
