package io.tradestore.core.txn;

/**
 * Layout of a table's {@code _txn} file. All fields little-endian, 8-byte aligned.
 *
 * <pre>
 *  0                   4                   8
 *  +-------------------+-------------------+
 *  | formatVersion i32 | symbolColumns i32 |   header
 *  +-------------------+-------------------+
 *  |            schemaHash i64             |
 *  +---------------------------------------+
 *  |      sequence i64 (published txn)     |   slot in use = sequence &amp; 1
 *  +---------------------------------------+
 *  |            firstRow i64               |   rows below it were dropped by retention (format 2)
 *  +---------------------------------------+  SLOTS_OFFSET (32)
 *  | slot 0, SLOT_LENGTH bytes             |
 *  | slot 1, SLOT_LENGTH bytes             |
 *  +---------------------------------------+
 *
 * slot:
 *  0  sequence i64     the txn this slot was written for
 *  8  rowCount i64     committed rows
 *  16 checksum i64     over every other long of the slot
 *  24 per symbol column: entryCount i64, byteLength i64 (committed dictionary entries and file bytes)
 * </pre>
 *
 * Format 2 gave the header's reserved long a meaning, {@code firstRow}: whole segments below it were dropped by
 * retention. It lives outside the slots because it only grows and only covers sealed rows, which never change: a reader
 * that pairs a newer {@code firstRow} with an older slot sees a state between two commits, never a hole. A format 1
 * file reads as format 2 with {@code firstRow} 0 (the reserved long was always zero).
 */
public final class TxnDescriptor {
    /** The current format. */
    public static final int FORMAT_VERSION = 2;
    /** The first format, still read: no rows were ever dropped from its tables. */
    public static final int FORMAT_VERSION_1 = 1;
    /** File name within the table directory. */
    public static final String FILE_NAME = "_txn";

    /** Offset of the format version. */
    public static final int FORMAT_VERSION_OFFSET = 0;
    /** Offset of the number of symbol columns. */
    public static final int SYMBOL_COLUMNS_OFFSET = FORMAT_VERSION_OFFSET + 4;
    /** Offset of the schema hash. */
    public static final int SCHEMA_HASH_OFFSET = SYMBOL_COLUMNS_OFFSET + 4;
    /** Offset of the published sequence. */
    public static final int SEQUENCE_OFFSET = SCHEMA_HASH_OFFSET + 8;
    /** Offset of the first row not dropped (format 2). */
    public static final int FIRST_ROW_OFFSET = SEQUENCE_OFFSET + 8;
    /** Offset of the first slot. */
    public static final int SLOTS_OFFSET = FIRST_ROW_OFFSET + 8;

    /** Slot-relative offset of the slot's sequence. */
    public static final int SLOT_SEQUENCE_OFFSET = 0;
    /** Slot-relative offset of the committed row count. */
    public static final int SLOT_ROW_COUNT_OFFSET = SLOT_SEQUENCE_OFFSET + 8;
    /** Slot-relative offset of the checksum. */
    public static final int SLOT_CHECKSUM_OFFSET = SLOT_ROW_COUNT_OFFSET + 8;
    /** Slot-relative offset of the first dictionary entry. */
    public static final int SLOT_DICTIONARIES_OFFSET = SLOT_CHECKSUM_OFFSET + 8;
    /** Bytes per dictionary entry in a slot. */
    public static final int DICTIONARY_ENTRY_LENGTH = 16;

    private TxnDescriptor() {
    }

    /** @param symbolColumns symbol columns of the table. @return bytes per slot. */
    public static int slotLength(final int symbolColumns) {
        return SLOT_DICTIONARIES_OFFSET + symbolColumns * DICTIONARY_ENTRY_LENGTH;
    }

    /** @param symbolColumns symbol columns of the table. @return file length in bytes. */
    public static int fileLength(final int symbolColumns) {
        return SLOTS_OFFSET + 2 * slotLength(symbolColumns);
    }

    /** @param slot 0 or 1. @param symbolColumns symbol columns. @return offset of the slot in the file. */
    public static int slotOffset(final int slot, final int symbolColumns) {
        return SLOTS_OFFSET + slot * slotLength(symbolColumns);
    }
}
