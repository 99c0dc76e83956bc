package io.tradestore.core.ingest;

import java.nio.file.Path;

import io.tradestore.core.Durability;

/**
 * How to load: error handling, threads and commit batching. Immutable; {@code with...} methods return a copy.
 * Validated at construction.
 *
 * <p>Atomicity: by default ({@code commitEvery = 0}) a load is one transaction, committed once at the end; a failure,
 * a kill or a crash leaves the table exactly at its previous commit. With {@code commitEvery = N} every complete
 * batch of N rows is committed (and visible to readers) as soon as it is appended; a later failure rolls back only
 * the incomplete batch, and {@link LoadException#rowsCommitted()} tells how many rows of the load stayed.
 */
public final class LoadOptions {
    /** Default bytes per parallel chunk. */
    public static final int DEFAULT_CHUNK_BYTES = 4 << 20;
    /**
     * Default of {@link #columnWrites()}: on; {@code -Dtradestore.load.columnWrites=false} turns it off, for
     * benchmarks that compare both ways in one build.
     */
    public static final boolean DEFAULT_COLUMN_WRITES =
        !"false".equals(System.getProperty("tradestore.load.columnWrites"));
    /** Default longest record, in bytes. */
    public static final int DEFAULT_MAX_LINE_LENGTH = 1 << 20;

    private final OnError onError;
    private final Path rejects;
    private final long maxErrors;
    private final int threads;
    private final long commitEvery;
    private final int chunkBytes;
    private final int maxLineLength;
    private final Durability durability;
    private final boolean columnWrites;

    private LoadOptions(final OnError onError, final Path rejects, final long maxErrors, final int threads,
        final long commitEvery,
                        final int chunkBytes, final int maxLineLength, final Durability durability,
                        final boolean columnWrites) {
        if (onError == null || durability == null) {
            throw new IllegalArgumentException("onError and durability are required");
        }
        if (maxErrors < 0) {
            throw new IllegalArgumentException("maxErrors=" + maxErrors + " must be >= 0");
        }
        if (threads < 1 || threads > 256) {
            throw new IllegalArgumentException("threads=" + threads + " must be between 1 and 256");
        }
        if (commitEvery < 0) {
            throw new IllegalArgumentException("commitEvery=" + commitEvery
                + " must be >= 0 (0: one commit at the end)");
        }
        if (maxLineLength < 16 || maxLineLength > (256 << 20)) {
            throw new IllegalArgumentException("maxLineLength=" + maxLineLength + " must be between 16 and 268435456");
        }
        if (chunkBytes < 16) {
            throw new IllegalArgumentException("chunkBytes=" + chunkBytes + " must be >= 16");
        }
        this.onError = onError;
        this.rejects = rejects;
        this.maxErrors = maxErrors;
        this.threads = threads;
        this.commitEvery = commitEvery;
        this.chunkBytes = chunkBytes;
        this.maxLineLength = maxLineLength;
        this.durability = durability;
        this.columnWrites = columnWrites;
    }

    /** @return the defaults: fail on the first error, one thread per core, one commit, no sync. */
    public static LoadOptions defaults() {
        return new LoadOptions(OnError.FAIL, null, Long.MAX_VALUE, Runtime.getRuntime().availableProcessors(), 0,
            DEFAULT_CHUNK_BYTES, DEFAULT_MAX_LINE_LENGTH, Durability.NONE, DEFAULT_COLUMN_WRITES);
    }

    /** @param v what to do with a bad row. @return a copy with it. */
    public LoadOptions withOnError(final OnError v) {
        return new LoadOptions(v, rejects, maxErrors, threads, commitEvery, chunkBytes, maxLineLength, durability,
            columnWrites);
    }

    /** @param v the rejects file (skip mode), or null for none. @return a copy with it. */
    public LoadOptions withRejects(final Path v) {
        return new LoadOptions(onError, v, maxErrors, threads, commitEvery, chunkBytes, maxLineLength, durability,
            columnWrites);
    }

    /** @param v most rejects tolerated in skip mode before the load fails. @return a copy with it. */
    public LoadOptions withMaxErrors(final long v) {
        return new LoadOptions(onError, rejects, v, threads, commitEvery, chunkBytes, maxLineLength, durability,
            columnWrites);
    }

    /** @param v parser threads. @return a copy with it. */
    public LoadOptions withThreads(final int v) {
        return new LoadOptions(onError, rejects, maxErrors, v, commitEvery, chunkBytes, maxLineLength, durability,
            columnWrites);
    }

    /** @param v rows per intermediate commit, 0 for one commit at the end. @return a copy with it. */
    public LoadOptions withCommitEvery(final long v) {
        return new LoadOptions(onError, rejects, maxErrors, threads, v, chunkBytes, maxLineLength, durability,
            columnWrites);
    }

    /** @param v input bytes per parallel chunk. @return a copy with it. */
    public LoadOptions withChunkBytes(final int v) {
        return new LoadOptions(onError, rejects, maxErrors, threads, commitEvery, v, maxLineLength, durability,
            columnWrites);
    }

    /** @param v longest record accepted, in bytes. @return a copy with it. */
    public LoadOptions withMaxLineLength(final int v) {
        return new LoadOptions(onError, rejects, maxErrors, threads, commitEvery, chunkBytes, v, durability,
            columnWrites);
    }

    /** @param v commit durability. @return a copy with it. */
    public LoadOptions withDurability(final Durability v) {
        return new LoadOptions(onError, rejects, maxErrors, threads, commitEvery, chunkBytes, maxLineLength, v,
            columnWrites);
    }

    /** @return what to do with a bad row. */
    public OnError onError() {
        return onError;
    }

    /** @return the rejects file, or null. */
    public Path rejects() {
        return rejects;
    }

    /** @return most rejects tolerated. */
    public long maxErrors() {
        return maxErrors;
    }

    /** @return parser threads. */
    public int threads() {
        return threads;
    }

    /** @return rows per intermediate commit, 0 for one commit at the end. */
    public long commitEvery() {
        return commitEvery;
    }

    /** @return input bytes per chunk. */
    public int chunkBytes() {
        return chunkBytes;
    }

    /** @return longest record accepted. */
    public int maxLineLength() {
        return maxLineLength;
    }

    /** @return commit durability. */
    public Durability durability() {
        return durability;
    }

    /**
     * Whether chunks reach the segments by write(2) where the table allows it (COLUMN layout, Linux), instead of
     * memcpy into the mapped columns: see {@code TableWriter.columnWrites}. Either way the table ends up the same.
     *
     * @param v whether to use column writes.
     * @return a copy with it.
     */
    public LoadOptions withColumnWrites(final boolean v) {
        return new LoadOptions(onError, rejects, maxErrors, threads, commitEvery, chunkBytes, maxLineLength, durability,
            v);
    }

    /** @return whether chunks are written with write(2) where the table allows it. */
    public boolean columnWrites() {
        return columnWrites;
    }
}
