package io.tradestore.core.ingest;

/** Receives load progress on the loading thread after every chunk (a few MB of input); must return quickly. */
@FunctionalInterface
public interface LoadProgress {
    /** Reports nothing. */
    LoadProgress NONE = (rowsLoaded, rowsRejected, bytesDone, bytesTotal, elapsedNanos) -> { };

    /**
     * Called after each chunk is appended.
     *
     * @param rowsLoaded   rows appended so far.
     * @param rowsRejected rows rejected so far.
     * @param bytesDone    input bytes consumed so far (compressed bytes for gzip input).
     * @param bytesTotal   total input bytes, or -1 when unknown (standard input).
     * @param elapsedNanos time since the load started.
     */
    void progress(long rowsLoaded, long rowsRejected, long bytesDone, long bytesTotal, long elapsedNanos);
}
