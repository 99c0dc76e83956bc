package io.tradestore.server.ingest;

import io.tradestore.core.StoreException;

/** An ingest request the server cannot take now (a writer busy past the wait, or the server stopping): 503. */
public final class IngestRefusedException extends StoreException {
    private static final long serialVersionUID = 1L;

    IngestRefusedException(final String message) {
        super(message);
    }
}
