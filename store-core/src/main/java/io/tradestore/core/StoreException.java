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

    /** The most characters of a name from the input that a message repeats. */
    public static final int ECHO_CHARS = 64;

    /**
     * @param name a name from the input (a table or column that does not exist), of any length.
     * @return the name as a message repeats it: whole up to {@link #ECHO_CHARS} characters, else its start and its
     *     length, so that a 1 MB name does not come back in a 1 MB error.
     */
    public static String echo(final String name) {
        if (name == null || name.length() <= ECHO_CHARS) {
            return name;
        }
        return name.substring(0, ECHO_CHARS) + "... (" + name.length() + " characters)";
    }
}
