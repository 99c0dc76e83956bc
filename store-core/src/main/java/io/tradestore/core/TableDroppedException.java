package io.tradestore.core;

/** A table was dropped: by this process, or by another one while a reader here still had it open. */
public final class TableDroppedException extends StoreException {
    private static final long serialVersionUID = 1L;

    TableDroppedException(final String message) {
        super(message);
    }
}
