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

    /** @return the first row that may be addressed: rows below it were dropped by retention (0 when none was). */
    default long firstRow() {
        return 0;
    }

    /**
     * Skips the rows a segment ended early never holds (a partitioned table's writer ends a segment when a row of
     * another period comes; the row numbers up to the next segment stay unused). A flyweight asks at each run's end.
     *
     * @param row a row below {@link #rowLimit()}.
     * @return {@code row}, or the next segment's first row when {@code row} lies in such an unused tail.
     */
    default long liveRow(final long row) {
        return row;
    }

    /**
     * Returns the address of a column's value in row 0 of a segment; no checks (callers check the row first).
     *
     * @param segment segment index, below {@code ceil(rowLimit / segmentRows)}.
     * @param column  column index.
     * @return the address.
     */
    long columnAddress(int segment, int column);

    /**
     * Returns the address of a row's value in a column, where a flyweight reads and writes it; no checks (callers check
     * the row first). A snapshot answers from the segment's mapping; a writer may answer from its staging area for rows
     * not yet copied into the segment files (see {@link TableWriter}). A flyweight that positions at a row asks for its
     * column addresses here and then, once, for {@link #addressRunEnd} of the same row: a writer learns there which
     * rows may be written through these addresses. A writer's addresses from here are for flyweights bound to it (it
     * re-points them, see {@link #attach}); stores that no flyweight makes go through {@link
     * TableWriter#columnAddress}.
     *
     * @param row    a row below {@link #rowLimit()}.
     * @param column column index.
     * @return the address.
     */
    long rowAddress(long row, int column);

    /**
     * Returns the end of the run of rows, from {@code row} on, whose values lie at {@code rowAddress(row, c) + k *
     * columnStride(c)}: the segment's end for a snapshot, possibly earlier for a writer's staged rows. Part of every
     * positioning (after the {@link #rowAddress} calls for that row): a writer records here that the run's uncommitted
     * rows may be written through the mappings, so that their zone maps are widened from the files at commit. A
     * flyweight that skipped this call after positioning on a writer's row could write values the zone maps miss, and a
     * range filter could then skip those rows.
     *
     * @param row a row below {@link #rowLimit()}.
     * @return the first row after the run.
     */
    long addressRunEnd(long row);

    /**
     * Tells this access that a flyweight is bound to it. A writer keeps a weak reference and calls
     * {@link Flyweight#refresh()} whenever the addresses of rows move (its staged rows are copied into the segment
     * files, or it closes), and, when it appends through the mappings, after it widened a block's zone maps (so that
     * the flyweight's {@link #addressRunEnd} records the rows it may still write); a snapshot's addresses never move,
     * so it ignores the call.
     *
     * @param flyweight the flyweight just bound.
     */
    void attach(Flyweight flyweight);

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
