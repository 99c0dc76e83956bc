package io.tradestore.core.segment;

import io.tradestore.core.SplitMix;
import io.tradestore.core.memory.NativeMemory;

/**
 * Layout of a segment's zone map file {@code _zone}: min and max of every column for the whole segment and for each
 * block of rows, and (format 2 on) a checksum of each of those rows of entries. Integral types store longs
 * (sign-extended); f64 stores the double's raw bits. An empty range is (Long.MAX_VALUE, Long.MIN_VALUE) for integral
 * types and (+Inf, -Inf) for f64; nulls are never counted.
 *
 * <pre>
 *  0                   4                   8
 *  +-------------------+-------------------+
 *  | formatVersion i32 | columnCount i32   |
 *  +-------------------+-------------------+
 *  | blockCount i32    | endedRows i32     |
 *  +-------------------+-------------------+  ENTRIES_OFFSET (16)
 *  | segment: min i64, max i64 per column  |  columnCount * 16 bytes
 *  | block 0: min i64, max i64 per column  |
 *  | block 1: ...                          |
 *  +---------------------------------------+  checksumOffset(columnCount, blockCount, -1); format 2 on
 *  | checksum i64 of the segment's entries |
 *  | checksum i64 of block 0's entries     |
 *  | block 1: ...                          |
 *  +---------------------------------------+
 * </pre>
 * With the writer idle (after a commit, a rollback or a reopen) every entry is exact for the committed rows it covers
 * and blocks past them are empty. While the writer appends, entries may already include uncommitted rows: a reader
 * can see them wider than its snapshot's rows, never narrower (ZoneMapTest, ConcurrencyTest). The writer sets a block's
 * checksum at the commit that publishes its last rows (and when it recomputes or empties it), so a reader verifies
 * only the blocks whose rows its snapshot holds entirely, which never change again, and the segment's entries once the
 * segment is full.
 *
 * <p>{@code endedRows}: rows of a segment its writer ended before its last row (a partitioned table's next row
 * belonged to another period), 0 for a segment that runs to its last row. It counts only once commits have moved past
 * the segment: in the last segment a table has committed rows in, it is left from rows never committed and the writer
 * clears it when it opens or rolls back.
 */
public final class ZoneMapDescriptor {
    /** The current format: 2 added the checksums. */
    public static final int FORMAT_VERSION = 2;
    /** The first format with checksums; format 1 files are read without them. */
    public static final int CHECKSUM_VERSION = 2;
    /** File name within the segment directory. */
    public static final String FILE_NAME = "_zone";
    /** Offset of the format version. */
    public static final int FORMAT_VERSION_OFFSET = 0;
    /** Offset of the column count. */
    public static final int COLUMN_COUNT_OFFSET = FORMAT_VERSION_OFFSET + 4;
    /** Offset of the block count. */
    public static final int BLOCK_COUNT_OFFSET = COLUMN_COUNT_OFFSET + 4;
    /** Offset of the rows of a segment ended early (0: none; see the class comment). */
    public static final int ENDED_ROWS_OFFSET = BLOCK_COUNT_OFFSET + 4;
    /** Offset of the segment-wide entries. */
    public static final int ENTRIES_OFFSET = BLOCK_COUNT_OFFSET + 8;
    /** Bytes of one (min, max) entry. */
    public static final int ENTRY_LENGTH = 16;
    /** Bytes of one checksum. */
    public static final int CHECKSUM_LENGTH = 8;

    private ZoneMapDescriptor() {
    }

    /** @param columns column count. @param blocks block count. @return the file length in the current format. */
    public static long fileLength(final int columns, final int blocks) {
        return fileLength(FORMAT_VERSION, columns, blocks);
    }

    /**
     * @param version a format version (1 or later).
     * @param columns column count.
     * @param blocks  block count.
     * @return the file length in that format.
     */
    public static long fileLength(final int version, final int columns, final int blocks) {
        final long entries = ENTRIES_OFFSET + (long) (blocks + 1) * columns * ENTRY_LENGTH;
        return version < CHECKSUM_VERSION ? entries : entries + (long) (blocks + 1) * CHECKSUM_LENGTH;
    }

    /**
     * @param columns column count.
     * @param block   block index, or -1 for the segment-wide entry.
     * @param column  column index.
     * @return offset of the min; the max follows 8 bytes later.
     */
    public static long entryOffset(final int columns, final int block, final int column) {
        return ENTRIES_OFFSET + ((long) (block + 1) * columns + column) * ENTRY_LENGTH;
    }

    /**
     * @param columns column count.
     * @param blocks  block count.
     * @param block   block index, or -1 for the segment-wide entries.
     * @return offset of the checksum of that block's entries (format 2 on).
     */
    public static long checksumOffset(final int columns, final int blocks, final int block) {
        return ENTRIES_OFFSET + (long) (blocks + 1) * columns * ENTRY_LENGTH + (long) (block + 1) * CHECKSUM_LENGTH;
    }

    /**
     * Computes the checksum of one block's entries (or the segment's) as they are in memory: with {@code mix} of
     * {@link SplitMix}, {@code h = mix(SEED ^ block)}, then for each column {@code h = mix(h ^ min); h = mix(h ^ max)}.
     * The block number goes in first so that entries written at the wrong block do not pass.
     *
     * @param zoneAddress the address of the zone map's first byte (a mapping of the file).
     * @param columns     column count.
     * @param block       block index, or -1 for the segment-wide entries.
     * @return the checksum.
     */
    public static long checksum(final long zoneAddress, final int columns, final int block) {
        long h = SplitMix.mix(SplitMix.SEED ^ block);
        final long first = zoneAddress + entryOffset(columns, block, 0);
        for (int c = 0; c < columns; c++) {
            final long e = first + (long) c * ENTRY_LENGTH;
            h = SplitMix.mix(h ^ NativeMemory.getLong(e));
            h = SplitMix.mix(h ^ NativeMemory.getLong(e + 8));
        }
        return h;
    }
}
