package io.tradestore.core.dict;

/**
 * Layout of a symbol dictionary file {@code <column>.sym}: a header, then entries in code order.
 *
 * <pre>
 *  0                   4                   8
 *  +-------------------+-------------------+
 *  | formatVersion i32 | reserved i32      |
 *  +-------------------+-------------------+
 *  |            reserved i64               |
 *  +---------------------------------------+  HEADER_LENGTH (16)
 *  | length i32 | UTF-8 bytes ...          |  entry for code 0
 *  | length i32 | UTF-8 bytes ...          |  entry for code 1 ...
 * </pre>
 * Entries past the committed byte length in the transaction file are an aborted tail and are overwritten.
 */
public final class SymbolDictionaryDescriptor {
    /** The current format. */
    public static final int FORMAT_VERSION = 1;
    /** Offset of the format version. */
    public static final int FORMAT_VERSION_OFFSET = 0;
    /** Bytes before the first entry. */
    public static final int HEADER_LENGTH = 16;
    /** Bytes of an entry's length prefix. */
    public static final int ENTRY_LENGTH_PREFIX = 4;
    /** Longest symbol in UTF-8 bytes. */
    public static final int MAX_SYMBOL_LENGTH = 1024;
    /** File suffix. */
    public static final String SUFFIX = ".sym";

    private SymbolDictionaryDescriptor() {
    }
}
