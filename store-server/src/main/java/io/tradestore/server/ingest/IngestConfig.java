package io.tradestore.server.ingest;

import io.tradestore.core.Durability;
import io.tradestore.core.StoreException;
import io.tradestore.core.schema.PartitionBy;
import io.tradestore.core.schema.Schema;

/**
 * How the server takes rows in.
 *
 * @param maxBodyLength largest ingest body (line protocol or CSV); beyond it 413.
 * @param create        whether a table a line names and the store lacks is created from that line.
 * @param waitMs        longest a request waits for a table's writer held by another request; beyond it 503.
 * @param durability    what each request's commit waits for.
 * @param threads       requests ingested at once (each table takes one at a time).
 * @param queue         requests that may wait for an ingest thread; beyond it 503.
 * @param segmentRows   rows per segment of a table created from lines.
 * @param idleMs        a table's writer unused this long is closed (then other processes may write the table); 0
 *                      keeps writers open until the server stops.
 * @param retentionMs   how often the tables' TTLs are applied (see {@code RetentionRule}); 0: never.
 * @param partitionBy   how a table created from lines is split by time (NONE by default: see docs/ingest.md).
 */
public record IngestConfig(int maxBodyLength, boolean create, long waitMs, Durability durability, int threads,
    int queue, int segmentRows, long idleMs, long retentionMs, PartitionBy partitionBy) {
    /** Default ingest body limit: 64 MiB. */
    public static final int DEFAULT_MAX_BODY_LENGTH = 64 << 20;
    /** Default wait for a busy writer. */
    public static final long DEFAULT_WAIT_MS = 5_000;
    /** Default queue of ingest requests. */
    public static final int DEFAULT_QUEUE = 16;
    /** Default time a writer may stay unused before it is closed. */
    public static final long DEFAULT_IDLE_MS = 10_000;
    /** Default period of the TTL check. */
    public static final long DEFAULT_RETENTION_MS = 60_000;

    /** Validates the values; throws {@link StoreException} with what is allowed. */
    public IngestConfig {
        if (maxBodyLength < 16) {
            throw new StoreException("maxIngestBody=" + maxBodyLength + " must be at least 16 bytes");
        }
        if (waitMs < 0) {
            throw new StoreException("ingestWaitMs=" + waitMs + " must be 0 or more");
        }
        if (durability == null || partitionBy == null) {
            throw new StoreException("durability and partitioning must be given");
        }
        if (threads < 1 || threads > 64) {
            throw new StoreException("ingestThreads=" + threads + " must be between 1 and 64");
        }
        if (queue < 0 || queue > 10_000) {
            throw new StoreException("ingestQueue=" + queue + " must be between 0 and 10000");
        }
        if (retentionMs < 0) {
            throw new StoreException("retentionMs=" + retentionMs + " must be 0 (never) or more");
        }
        if (idleMs < 0) {
            throw new StoreException("ingestIdleMs=" + idleMs + " must be 0 (never) or more");
        }
        if (segmentRows < 1 || Integer.bitCount(segmentRows) != 1 || segmentRows > Schema.MAX_SEGMENT_ROWS) {
            throw new StoreException("segmentRows=" + segmentRows + " must be a power of two up to "
                + Schema.MAX_SEGMENT_ROWS);
        }
    }

    /**
     * @return the defaults: 64 MiB bodies, tables created from lines, 5 s wait, no sync, one thread per two cores,
     *     writers closed after 10 s unused, TTLs applied every minute, tables created from lines not partitioned.
     */
    public static IngestConfig defaults() {
        return new IngestConfig(DEFAULT_MAX_BODY_LENGTH, true, DEFAULT_WAIT_MS, Durability.NONE,
            defaultThreads(), DEFAULT_QUEUE, Schema.DEFAULT_SEGMENT_ROWS, DEFAULT_IDLE_MS, DEFAULT_RETENTION_MS,
            PartitionBy.NONE);
    }

    /** @return ingest threads by default: one per two cores, at least one (a table takes one request at a time). */
    public static int defaultThreads() {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    }
}
