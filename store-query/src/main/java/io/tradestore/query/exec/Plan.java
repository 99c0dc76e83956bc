package io.tradestore.query.exec;

import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.tradestore.core.TableSnapshot;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.QueryCancel;
import io.tradestore.query.ResultColumn;
import io.tradestore.query.model.Query;

/**
 * A query bound to one snapshot: typed filter kernels, value slots, keys, aggregates, output shape. Immutable, shared
 * by workers.
 */
final class Plan {
    static final int GLOBAL = 0;
    static final int DENSE = 1;
    static final int HASH = 2;
    static final int WIDE = 3;

    Query query;
    TableSnapshot snap;
    Schema schema;
    /** The whole filter (time range included), or null when every row passes. */
    FilterNode filter;
    /** The top-level conjuncts of {@link #filter}. */
    FilterNode[] conjuncts = new FilterNode[0];
    int[] slotColumn = new int[0];
    /** Slots nobody reads as a view (keys of {@link #directKeys}): not gathered. */
    boolean[] slotSkipped = new boolean[0];
    boolean scan;
    // aggregate queries
    KeySpec[] keys = new KeySpec[0];
    int keyMode = GLOBAL;
    long denseSize = 1;
    /**
     * Dense keys without buckets whose group ids are computed straight from the key columns (no key slots gathered).
     */
    boolean directKeys;
    List<Supplier<Acc>> accs;
    /**
     * The only key is a time bucket of the designated timestamp, in a dense or hash table: batches whose rows are in
     * time order are split into runs of one bucket ({@link BucketRuns}) instead of bucketing every row.
     */
    boolean bucketRuns;
    /**
     * With {@link #bucketRuns}: no aggregate reads the timestamp as a value (first/last only order by it), so a split
     * batch does not gather it.
     */
    boolean tsGatherSkippable;
    /** Aggregates that may be folded from zone maps (all of them, or none). */
    boolean zoneShortcut;
    RowPredicate having;
    // output
    List<ResultColumn> columns;
    int[] orderIndex = new int[0];
    boolean[] orderDesc = new boolean[0];
    long limit = Long.MAX_VALUE;
    // scans
    int[] scanColumns = new int[0];
    int[] scanOrderColumns = new int[0];
    long[][] symbolRank;
    long maxGroups;
    int morselRows = Executor.MORSEL_ROWS;
    long smallQueryRows = Executor.SMALL_QUERY_ROWS;
    /**
     * Whether an aggregate's result depends on the order its rows are added in (a sum of f64 values rounds at each
     * addition): workers then take morsels in a fixed deal instead of claiming the next free one, so that the same
     * query on the same data and thread count adds the same rows in the same order and gives the same bits.
     */
    boolean fixedMorselOrder;
    long deadlineNanos = Long.MAX_VALUE;
    /** The clock {@link #deadlineNanos} is on ({@link System#nanoTime()}; tests move their own). */
    LongSupplier clock = System::nanoTime;
    /**
     * Stops the query from another thread (a stopping server, a closing engine), checked where the deadline is; or
     * null.
     */
    QueryCancel cancel;
    boolean epochNanos;
}
