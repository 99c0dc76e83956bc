package io.tradestore.query.plan;

import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.tradestore.core.TableSnapshot;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.QueryCancel;
import io.tradestore.query.ResultColumn;
import io.tradestore.query.model.Query;
import io.tradestore.query.exec.Executor;
import io.tradestore.query.exec.agg.Acc;
import io.tradestore.query.exec.filter.FilterNode;
import io.tradestore.query.exec.filter.RowPredicate;
import io.tradestore.query.exec.group.KeySpec;

/**
 * A query bound to one snapshot: typed filter kernels, value slots, keys, aggregates, output shape. Immutable, shared
 * by workers.
 */
public final class Plan {
    public static final int GLOBAL = 0;
    public static final int DENSE = 1;
    public static final int HASH = 2;
    public static final int WIDE = 3;

    public Query query;
    public TableSnapshot snap;
    public Schema schema;
    /** The whole filter (time range included), or null when every row passes. */
    public FilterNode filter;
    /** The top-level conjuncts of {@link #filter}. */
    public FilterNode[] conjuncts = new FilterNode[0];
    public int[] slotColumn = new int[0];
    /** Slots nobody reads as a view (keys of {@link #directKeys}): not gathered. */
    public boolean[] slotSkipped = new boolean[0];
    public boolean scan;
    // aggregate queries
    public KeySpec[] keys = new KeySpec[0];
    public int keyMode = GLOBAL;
    public long denseSize = 1;
    /**
     * A hash plan whose packed keys would fit a large dense array turns dense ({@link #keyMode}) when the executor
     * estimates at least this many rows to read; never when {@link Long#MAX_VALUE}. Its keys stay packed (not
     * {@link #directKeys}).
     */
    public long denseFromRows = Long.MAX_VALUE;
    /**
     * Dense keys without buckets whose group ids are computed straight from the key columns (no key slots gathered).
     */
    public boolean directKeys;
    public List<Supplier<Acc>> accs;
    /**
     * The only key is a time bucket of the designated timestamp, in a dense or hash table: batches whose rows are in
     * time order are split into runs of one bucket ({@link BucketRuns}) instead of bucketing every row.
     */
    public boolean bucketRuns;
    /**
     * With {@link #bucketRuns}: no aggregate reads the timestamp as a value (first/last only order by it), so a split
     * batch does not gather it.
     */
    public boolean tsGatherSkippable;
    /** Whether an ungrouped query's min, max and count fold a whole block whose every row passes from its zone map. */
    public boolean zoneShortcut;
    public RowPredicate having;
    /** With {@link #having}: per output column, whether it reads it (null: it may read any). */
    public boolean[] havingReads;
    // output
    public List<ResultColumn> columns;
    public int[] orderIndex = new int[0];
    public boolean[] orderDesc = new boolean[0];
    /** Rows kept of the ordered answer: the query's offset plus its limit. */
    public long limit = Long.MAX_VALUE;
    /** The query's offset: the first rows of the ordered answer left out. */
    public long offset;
    // scans
    public int[] scanColumns = new int[0];
    public int[] scanOrderColumns = new int[0];
    public long[][] symbolRank;
    public long maxGroups;
    public int morselRows = Executor.MORSEL_ROWS;
    public long smallQueryRows = Executor.SMALL_QUERY_ROWS;
    /**
     * Whether an aggregate's result depends on the order its rows are added in (a sum of f64 values rounds at each
     * addition): workers then take morsels in a fixed deal instead of claiming the next free one, so that the same
     * query on the same data and thread count adds the same rows in the same order and gives the same bits.
     */
    public boolean fixedMorselOrder;
    public long deadlineNanos = Long.MAX_VALUE;
    /** The clock {@link #deadlineNanos} is on ({@link System#nanoTime()}; tests move their own). */
    public LongSupplier clock = System::nanoTime;
    /**
     * Stops the query from another thread (a stopping server, a closing engine), checked where the deadline is; or
     * null.
     */
    public QueryCancel cancel;
    public boolean epochNanos;
}
