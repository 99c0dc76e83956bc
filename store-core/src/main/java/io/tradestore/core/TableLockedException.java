package io.tradestore.core;

/** A table's writer was asked for while another writer, in this process or another, holds the table. */
public final class TableLockedException extends StoreException {
    private static final long serialVersionUID = 1L;

    TableLockedException(final String message) {
        super(message);
    }
}
