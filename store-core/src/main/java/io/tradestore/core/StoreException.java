package io.tradestore.core;

/**
 * The one unchecked exception family of tradestore: every expected failure carries a message that says what was wrong,
 * where, and what to do about it.
 */
public class StoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception with a user-facing message.
     *
     * @param message what went wrong, in {@code key=value} detail where it helps.
     */
    public StoreException(final String message) {
        super(message);
    }

    /**
     * Creates an exception with a user-facing message and the low-level cause.
     *
     * @param message what went wrong.
     * @param cause   the underlying failure, kept for logs.
     */
    public StoreException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
