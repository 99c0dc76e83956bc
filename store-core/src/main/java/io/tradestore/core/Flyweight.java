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

    /** @return whether it moved to the next row (false at the end, leaving it where it was). */
    boolean next();

    /** @return what this flyweight is bound to, or null. */
    RecordAccess access();

    /** @return the current row, or -1 before the first wrap. */
    long row();
}
