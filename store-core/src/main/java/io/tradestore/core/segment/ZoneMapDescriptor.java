package io.tradestore.core.segment;

/**
 * Layout of a segment's zone map file {@code _zone}: min and max of every column for the whole segment and for each
 * block of rows. Integral types store longs (sign-extended); f64 stores the double's raw bits. An empty range is
 * (Long.MAX_VALUE, Long.MIN_VALUE) for integral types and (+Inf, -Inf) for f64; nulls are never counted.
 *
 * <pre>
 *  0                   4                   8
 *  +-------------------+-------------------+
 *  | formatVersion i32 | columnCount i32   |
 *  +-------------------+-------------------+
 *  | blockCount i32    | reserved i32      |
 *  +-------------------+-------------------+  ENTRIES_OFFSET (16)
 *  | segment: min i64, max i64 per column  |  columnCount * 16 bytes
 *  | block 0: min i64, max i64 per column  |
 *  | block 1: ...                          |
 * </pre>
 * With the writer idle (after a commit, a rollback or a reopen) every entry is exact for the committed rows it covers
 * and blocks past them are empty. While the writer appends, entries may already include uncommitted rows: a reader
 * can see them wider than its snapshot's rows, never narrower (ZoneMapTest, ConcurrencyTest).
 */
public final class ZoneMapDescriptor {
    /** The current format. */
    public static final int FORMAT_VERSION = 1;
    /** File name within the segment directory. */
    public static final String FILE_NAME = "_zone";
    /** Offset of the format version. */
    public static final int FORMAT_VERSION_OFFSET = 0;
    /** Offset of the column count. */
    public static final int COLUMN_COUNT_OFFSET = FORMAT_VERSION_OFFSET + 4;
    /** Offset of the block count. */
    public static final int BLOCK_COUNT_OFFSET = COLUMN_COUNT_OFFSET + 4;
    /** Offset of the segment-wide entries. */
    public static final int ENTRIES_OFFSET = BLOCK_COUNT_OFFSET + 8;
    /** Bytes of one (min, max) entry. */
    public static final int ENTRY_LENGTH = 16;

    private ZoneMapDescriptor() {
    }

    /** @param columns column count. @param blocks block count. @return file length. */
    public static long fileLength(final int columns, final int blocks) {
        return ENTRIES_OFFSET + (long) (blocks + 1) * columns * ENTRY_LENGTH;
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
}
