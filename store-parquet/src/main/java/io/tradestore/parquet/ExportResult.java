package io.tradestore.parquet;

import java.nio.file.Path;

/**
 * What an export did.
 *
 * @param directory    the table's export directory.
 * @param filesWritten files written by this run.
 * @param filesKept    files already there and up to date, left alone.
 * @param rowsWritten  rows in the files written.
 * @param bytesWritten bytes of the files written.
 * @param commit       the commit exported.
 * @param rowsExported rows in every file the manifest lists.
 */
public record ExportResult(Path directory, int filesWritten, int filesKept, long rowsWritten, long bytesWritten,
    long commit, long rowsExported) {
}
