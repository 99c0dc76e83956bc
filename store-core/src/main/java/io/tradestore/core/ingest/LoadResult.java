package io.tradestore.core.ingest;

import java.util.List;

/**
 * What a successful load did.
 *
 * @param files        input files read.
 * @param rowsRead     data rows read (blank lines are not rows); always {@code rowsLoaded + rowsRejected}.
 * @param rowsLoaded   rows appended and committed.
 * @param rowsRejected bad rows skipped (skip mode).
 * @param bytesRead    input bytes read (uncompressed).
 * @param elapsedNanos wall time of the load.
 * @param commits      commits made (1 unless commit-every asked for more).
 * @param firstRejects up to 10 reject messages, {@code FILE:LINE:COLUMN: reason}.
 */
public record LoadResult(int files, long rowsRead, long rowsLoaded, long rowsRejected, long bytesRead,
    long elapsedNanos,
                         long commits, List<String> firstRejects) {
    /** @return rows loaded per second. */
    public double rowsPerSecond() {
        return elapsedNanos == 0 ? 0 : rowsLoaded * 1e9 / elapsedNanos;
    }

    /** @return uncompressed input megabytes (10^6 bytes) per second. */
    public double megabytesPerSecond() {
        return elapsedNanos == 0 ? 0 : bytesRead * 1e3 / elapsedNanos;
    }
}
