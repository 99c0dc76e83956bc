package io.tradestore.core;

/**
 * A reusable view of one row, generated from a schema by {@link io.tradestore.core.gen.FlyweightGenerator}: bind it
 * to a reader snapshot or a writer once, then {@link #wrap(long)} or {@link #next()} it over rows. It never allocates.
 */
public interface Flyweight {
    /**
     * Binds to a table's rows; the table must have the columns this flyweight was generated for.
     *
     * @param access a snapshot or a writer.
     * @return this.
     */
    Flyweight bind(RecordAccess access);

    /**
     * Points at a row.
     *
     * @param row a row below the bound access's row limit.
     * @return this.
     */
    Flyweight wrap(long row);

    /**
     * Reads the current row's addresses, the row limit and whether setters may write again from the bound access
     * (positioning as {@link #wrap} does: {@link RecordAccess#rowAddress}, then {@link RecordAccess#addressRunEnd});
     * called by a writer when the addresses of its rows move or it needs the flyweight to record its run again (see
     * {@link RecordAccess#attach}). A flyweight whose access has closed points at scratch memory afterwards and refuses
     * writes.
     */
    void refresh();

    /** @return whether it moved to the next row (false at the end, leaving it where it was). */
    boolean next();

    /** @return what this flyweight is bound to, or null. */
    RecordAccess access();

    /** @return the current row, or -1 before the first wrap. */
    long row();
}
