package io.tradestore.server.pg;

/** A statement or message refused with an ErrorResponse: carries the error to the code that answers it. */
final class PgFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient PgError error;

    PgFailure(final PgError error) {
        super(error.message(), null, false, false);
        this.error = error;
    }

    PgError error() {
        return error;
    }
}
