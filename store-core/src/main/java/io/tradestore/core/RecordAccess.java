package io.tradestore.core;

/**
 * What a generated flyweight binds to: a table's rows as (base address, stride) columns, either a reader's
 * committed snapshot or a writer's rows. Both implementations are final, so flyweight call sites stay bimorphic.
 */
public interface RecordAccess {
    /** @return {@link io.tradestore.core.schema.Schema#columnsHash()} of the table. */
    long columnsHash();

    /** @return log2 of rows per segment. */
    int segmentShift();

    /** @return rows that may be addressed: the snapshot's committed rows, or the writer's appended rows. */
    long rowLimit();

    /**
     * Returns the address of a column's value in row 0 of a segment; no checks (callers check the row first).
     *
     * @param segment segment index, below {@code ceil(rowLimit / segmentRows)}.
     * @param column  column index.
     * @return the address.
     */
    long columnAddress(int segment, int column);

    /** @param column column index. @return bytes between consecutive rows of the column. */
    int columnStride(int column);

    /** @return whether the mappings behind this access are still valid (false once its reader or writer closed). */
    boolean isOpen();

    /** @return whether setters may write (only a writer's rows). */
    boolean writable();

    /**
     * Returns a dictionary string.
     *
     * @param column a symbol column index.
     * @param code   a code of that column (-1 gives null).
     * @return the string, or null for the null code.
     */
    String symbolValue(int column, int code);

    /**
     * Returns the code of a string: the writer adds new strings, a reader answers -1 for unknown ones.
     *
     * @param column a symbol column index.
     * @param value  the string (null gives -1).
     * @return the code.
     */
    int symbolCode(int column, CharSequence value);
}
