package io.tradestore.query.exec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.roaringbitmap.BatchIterator;

import io.tradestore.core.TableSnapshot;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;
import io.tradestore.query.QueryStats;
import io.tradestore.query.spi.Deadline;
import io.tradestore.query.spi.IndexLeaf;
import io.tradestore.query.spi.SegmentSelector;
import io.tradestore.query.spi.Selection;
import io.tradestore.query.spi.Summary;
import io.tradestore.query.exec.agg.Tasks;
import io.tradestore.query.exec.filter.FilterNode;
import io.tradestore.query.exec.filter.SortedRanges;
import io.tradestore.query.exec.group.GroupState;
import io.tradestore.query.plan.ConjunctProofs;
import io.tradestore.query.plan.Plan;

/**
 * Runs a plan: prunes segments by zone maps, hands segments to workers (the calling thread plus pool threads, up to the
 * engine's thread count) through an atomic counter; each worker keeps private partial state and a private batch
 * context; partials merge at the end; then having, order and limit on the (few) output rows.
 */
public final class Executor {
    final Plan plan;
    final SegmentSelector selector;
    private final AtomicInteger next = new AtomicInteger();
    final AtomicLong rowsScanned = new AtomicLong();
    final AtomicLong rowsMatched = new AtomicLong();
    final AtomicLong blocksSkipped = new AtomicLong();
    final AtomicLong indexedSegments = new AtomicLong();
    final AtomicLong rowsSummarized = new AtomicLong();
    final AtomicLong segmentsSkipped = new AtomicLong();
    private volatile boolean cancelled;
    private static final int TASK_NEW = 0;
    private static final int TASK_RUNNING = 1;
    private static final int TASK_DONE = 2;
    /**
     * The first failure of any worker (TOO_MANY_GROUPS, a damaged segment, the deadline): the others stop when they see
     * {@link #cancelled} and throw TIMEOUT, and the query must fail with the cause, not with a worker's stop.
     */
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    /** The query's deadline as index and summary builds see it: {@link #checkDeadline}. */
    final Deadline deadline = this::checkDeadline;
    int[] segments;
    /** Work units: a segment and a block range of about {@link #MORSEL_ROWS} rows. */
    int[] morselSegment;
    int[] morselFromBlock;
    int[] morselToBlock;
    /** Rows per morsel (a million: both workers share a 4M-row segment; per-morsel costs stay negligible). */
    public static final int MORSEL_ROWS = 1 << 20;
    /**
     * At most this many candidate rows (after zone-map pruning and bitmap indexes) run on the calling thread alone:
     * handing them to a pool thread costs more (wake-up, a second partial, the merge) than it saves.
     */
    public static final long SMALL_QUERY_ROWS = 1 << 18;
    /**
     * An index-selected row costs about this many scanned rows: it is a random read of each column the query needs
     * (a cache miss apiece), where a scan streams. A one-day window of one instrument (135k selected rows) is worth a
     * second worker; one client's ~5k rows are not.
     */
    static final long SELECTED_ROW_COST = 16;
    /** Per segment: the index selection computed once per query (null: none applies), indexed by segment number. */
    private Selection[] selections;
    /** Rows a filter may drop from a dense batch that is still consumed as dense runs ({@link #consumeKept}). */
    static final int DENSE_GAPS = 3;
    /** Blocks of segments read without a selection that the zone maps keep, counted by {@link #selectAndEstimate}. */
    private long scannedBlocks;
    /**
     * Per aggregate, the measure it folds from value summaries (a row count takes a measured aggregate's); null when
     * the query cannot use summaries.
     */
    private int[][] summaryMeasures;
    /** Per aggregate, the first aggregate folding the same measure ({@link SummaryMeasures#firstOfMeasure}). */
    private int[] summaryFirst;
    /** Per segment: the conjuncts its index proved for every row the zone maps keep (null: none). */
    private long[] indexProven;
    /** Per segment: rows that negated eq/in conjuncts drop, read from indexes ({@link DroppedRows}); null: none. */
    private DroppedRows dropped = DroppedRows.NONE;
    /** Per segment: rows {@code [skipFrom, skipTo)} folded from bucket summaries, not read (null: none). */
    private int[] skipFrom;
    private int[] skipTo;
    /** Per segment: each aggregate's summary of the selection (null: the rows are read). */
    private Summary[][] summaries;

    Executor(final Plan plan, final SegmentSelector selector) {
        this.plan = plan;
        this.selector = selector;
    }

    static Result run(final Plan plan, final ExecutorService pool, final int threads, final SegmentSelector selector,
                      final long startNanos) {
        return new Executor(plan, selector).execute(pool, threads, startNanos);
    }

    /** Prunes segments by their zone maps; returns those left, and sets up the summary measures. */
    List<Integer> candidates() {
        final TableSnapshot snap = plan.snap;
        final List<Integer> keep = new ArrayList<>();
        for (int i = snap.firstSegment(); i < snap.segmentCount(); i++) {
            if (plan.filter == null || plan.filter.mayMatch(snap.segment(i), -1)) {
                keep.add(i);
            } else {
                segmentsSkipped.incrementAndGet();
            }
        }
        segments = keep.stream().mapToInt(Integer::intValue).toArray();
        summaryMeasures = selector == null ? null : SummaryMeasures.of(plan);
        summaryFirst = summaryMeasures == null ? null : SummaryMeasures.firstOfMeasure(summaryMeasures);
        return keep;
    }

    private Result execute(final ExecutorService pool, final int threads, final long startNanos) {
        final List<Integer> keep = candidates();
        final GroupState folded = new BucketFolds(this).fold(keep);
        final long candidates = selectAndEstimate(keep);
        // not beside groups folded from bucket summaries: those are keyed by the hash table's ids
        if (plan.keyMode == Plan.HASH && folded == null && candidates >= plan.denseFromRows) {
            plan.keyMode = Plan.DENSE;
        }
        final boolean parallel = candidates > plan.smallQueryRows && threads > 1;
        morsels(keep, parallel, threads);
        final int workers = parallel ? Math.max(1, Math.min(threads, morselSegment.length)) : 1;
        final Object[] partials = new Object[workers];
        final List<Future<Object>> futures = new ArrayList<>();
        // per pool worker: NEW, RUNNING or DONE; a query returns only when none of its workers still reads the snapshot
        final AtomicIntegerArray taskStates = new AtomicIntegerArray(workers);
        try {
            for (int w = 1; w < workers; w++) {
                final int worker = w;
                futures.add(pool.submit(() -> {
                    if (!taskStates.compareAndSet(worker, TASK_NEW, TASK_RUNNING)) {
                        return null; // the query ended before this share started
                    }
                    try {
                        return work(worker, workers);
                    } finally {
                        taskStates.set(worker, TASK_DONE);
                    }
                }));
            }
            partials[0] = work(0, workers);
            for (int w = 1; w < workers; w++) {
                final long wait = plan.deadlineNanos == Long.MAX_VALUE ? Long.MAX_VALUE : plan.deadlineNanos
                    - plan.clock.getAsLong();
                partials[w] = futures.get(w - 1).get(Math.max(0, wait), TimeUnit.NANOSECONDS);
            }
        } catch (final TimeoutException e) {
            throw firstFailure(timeout());
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new QueryException(ErrorCode.TIMEOUT, "the query was interrupted", "");
        } catch (final ExecutionException e) {
            final Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw firstFailure((RuntimeException) cause);
            }
            throw new IllegalStateException(cause);
        } catch (final RuntimeException e) {
            throw firstFailure(e);
        } finally {
            cancelled = true;
            for (int w = 1; w < workers; w++) {
                if (taskStates.compareAndSet(w, TASK_NEW, TASK_DONE)) {
                    futures.get(w - 1).cancel(false);
                }
            }
            awaitStartedTasks(taskStates);
        }
        checkCancel(); // cancelled while its last batches ran: the caller was told the query stops, so it does
        return answer(partials, folded, startNanos, workers > 1 ? new HelpedTasks(pool, workers - 1) : Tasks.SERIAL);
    }

    /**
     * Merges the workers' partials (and the groups folded from bucket summaries) into the answer; {@code tasks} lends
     * the query's threads to the merged state's last steps.
     */
    private Result answer(final Object[] partials, final GroupState folded, final long startNanos, final Tasks tasks) {
        final int workers = partials.length;
        final long elapsedMicros;
        final List<Object[]> rows;
        boolean truncated = false;
        if (plan.scan) {
            final ScanState s = (ScanState) partials[0];
            for (int w = 1; w < workers; w++) {
                s.merge((ScanState) partials[w]);
            }
            final long[] ids = s.sortedRows();
            rows = ResultRows.scanRows(plan, Arrays.copyOfRange(ids, (int) Math.min(plan.offset, ids.length),
                ids.length));
            truncated = s.matched > plan.offset + rows.size();
        } else {
            final ResultRows.GroupRows answer = ResultRows.groupAnswer(plan, partials, folded, tasks);
            rows = answer.rows().subList((int) Math.min(plan.offset, answer.rows().size()), answer.rows().size());
            truncated = answer.groups() > plan.offset + rows.size();
        }
        elapsedMicros = (plan.clock.getAsLong() - startNanos) / 1000;
        final QueryStats stats = new QueryStats(elapsedMicros, rowsScanned.get(), rowsMatched.get(), segments.length,
            segmentsSkipped.get(), blocksSkipped.get(), indexedSegments.get(), rowsSummarized.get());
        return new Result(plan.columns, rows, truncated, stats, plan.epochNanos);
    }

    /** Records the conjuncts a selection of every row of segment si answers as holding on all its rows. */
    private void indexProven(final int si, final Selection sel) {
        long mask = 0;
        for (int i = 0; i < plan.conjuncts.length && i < Long.SIZE; i++) {
            mask |= sel.answered(plan.conjuncts[i]) ? 1L << i : 0;
        }
        if (indexProven == null) {
            indexProven = new long[plan.snap.segmentCount()];
        }
        indexProven[si] = mask;
    }

    /** Leaves rows {@code [from, to)} of segment si unread: {@link BucketFolds} folded them. */
    void skip(final int si, final int from, final int to) {
        if (skipFrom == null) {
            skipFrom = new int[plan.snap.segmentCount()];
            skipTo = new int[plan.snap.segmentCount()];
        }
        skipFrom[si] = from;
        skipTo[si] = to;
    }

    /** Cuts the kept segments into morsels ({@link Morsels}). */
    void morsels(final List<Integer> keep, final boolean parallel, final int threads) {
        final Morsels m = Morsels.cut(plan, keep, selections, summaries, parallel ? threads : 1, scannedBlocks);
        morselSegment = m.segment;
        morselFromBlock = m.fromBlock;
        morselToBlock = m.toBlock;
    }

    /**
     * Computes each kept sealed segment's index selection once (the morsels of a segment share it) and estimates the
     * rows the query will read: a selection's cardinality (weighted by {@link #SELECTED_ROW_COST}), or the rows of the
     * blocks the zone maps cannot exclude.
     *
     * @param keep the segments not pruned.
     * @return the candidate rows, in scanned-row equivalents (an upper bound).
     */
    long selectAndEstimate(final List<Integer> keep) {
        final TableSnapshot snap = plan.snap;
        selections = new Selection[snap.segmentCount()];
        dropped = DroppedRows.of(plan, selector);
        summaries = new Summary[snap.segmentCount()][];
        scannedBlocks = 0;
        final FilterNode filter = plan.filter;
        final int blockRows = plan.schema.blockRows();
        long candidates = 0;
        List<IndexLeaf> leaves = null;
        // no conjunct an index answers, only ranges the zone maps prove for whole blocks (a time range, query 8; an id
        // range): whole parts of all rows fold from summaries of all rows where every conjunct is proven
        final boolean allRows = selector != null && summaryMeasures != null && (ConjunctProofs.timeOnly(plan)
            || ConjunctProofs.indexLeaves(plan).isEmpty());
        for (final int si : keep) {
            final int rows = snap.segmentRowCount(si);
            if (selector != null && (filter != null || allRows)) {
                if (leaves == null) {
                    leaves = filter == null ? List.of() : ConjunctProofs.indexLeaves(plan);
                }
                checkDeadline(); // a first query may build an index and summaries per segment (see Deadline)
                long span = -1;
                if (allRows) {
                    // only where the zone maps prove every conjunct for a whole block: else nothing could fold and the
                    // summaries would be built for nothing
                    selections[si] = BlockRuns.provesABlock(plan, si, rows) ? selector.selectAll(snap, si, deadline)
                        : null;
                } else {
                    // over the rows from the first to the last block the zone maps keep (a time range's)
                    span = ConjunctProofs.keptSpan(plan, snap.segment(si), rows);
                    selections[si] = span < 0 ? null
                        : selector.select(snap, si, leaves, (int) (span >>> 32), (int) span, deadline);
                }
                if (selections[si] != null) {
                    summaries[si] = SummaryMeasures.views(summaryMeasures, summaryFirst, selections[si], snap, si);
                    final long read = selectedRowsRead(si, rows);
                    // all rows: what summaries leave is scanned; a dense selection stays only when what summaries
                    // leave to read costs less than a scan
                    final boolean all = selections[si].all();
                    final long cost = all ? 1 : SELECTED_ROW_COST;
                    // all rows: kept when some part folds (the rest is scanned either way, but one segment is one unit)
                    if (summaries[si] != null && (all ? read < BlockRuns.keptRows(plan, si, rows) : read * cost <= rows)
                        || !selections[si].dense()) {
                        candidates += cost * read;
                        continue;
                    }
                    // most rows selected and not folded from summaries: a scan reads them faster, and when every row
                    // the zone maps keep is selected, without the conjuncts the index answered
                    if (span >= 0 && selections[si].cardinality() == (int) span - (int) (span >>> 32)) {
                        indexProven(si, selections[si]);
                    }
                    selections[si] = null;
                    summaries[si] = null;
                }
            }
            dropped.note(si, deadline);
            if (filter == null) {
                candidates += rows;
                scannedBlocks += (rows + blockRows - 1) / blockRows;
                continue;
            }
            final Segment s = snap.segment(si);
            for (int b = 0; (long) b * blockRows < rows; b++) {
                if (filter.mayMatch(s, b)) {
                    candidates += Math.min(blockRows, rows - b * blockRows);
                    scannedBlocks++;
                }
            }
        }
        return candidates;
    }

    /**
     * @param si   a segment with an index selection.
     * @param rows its committed rows.
     * @return the selected rows the query will read: inside runs of blocks the zone maps keep (a time range keeps a few
     *         blocks), less the whole parts folded from summaries.
     */
    private long selectedRowsRead(final int si, final int rows) {
        final Segment s = plan.snap.segment(si);
        final Selection sel = selections[si];
        final int blockRows = plan.schema.blockRows();
        final int blocks = (rows + blockRows - 1) / blockRows;
        final List<FilterNode> residual = summaries[si] == null ? null : ConjunctProofs.residual(plan, sel);
        long n = 0;
        int b = 0;
        while (b < blocks) {
            if (plan.filter != null && !plan.filter.mayMatch(s, b)) {
                b++;
                continue;
            }
            final long proven = residual == null ? 0 : ConjunctProofs.proven(plan, residual, s, b, rows);
            final int e = ConjunctProofs.runEnd(plan, s, b, blocks, residual, proven, rows);
            final int from = b * blockRows;
            final int to = (int) Math.min(rows, (long) e * blockRows);
            if (residual != null && ConjunctProofs.unproven(residual, proven) == null) {
                final long span = wholeParts(si, from, to, rows);
                if (span >= 0) {
                    final int f = (int) (span >>> 32);
                    n += (from < f ? sel.cardinality(from, f) : 0) + ((int) span < to ? sel.cardinality((int) span, to)
                        : 0);
                    b = e;
                    continue;
                }
            }
            if (sel.all() && residual != null) {
                n += narrowedRowsRead(si, b, e, rows);
                b = e;
                continue;
            }
            n += from == 0 && to == rows ? sel.cardinality() : sel.cardinality(from, to);
            b = e;
        }
        return n;
    }

    /**
     * @return the rows of all rows read in blocks {@code [from, to)} of segment si, where no conjunct is proven for a
     *     whole block: a block a sorted search narrows to a run on which every conjunct holds reads the run less its
     *     whole parts (they fold), any other block all its rows.
     */
    private long narrowedRowsRead(final int si, final int from, final int to, final int rows) {
        final Segment s = plan.snap.segment(si);
        final int blockRows = plan.schema.blockRows();
        final SortedRanges sorted = new SortedRanges(Arrays.asList(plan.conjuncts));
        long n = 0;
        for (int b = from; b < to; b++) {
            final long run = BlockRuns.exactRun(plan, sorted, s, b, rows);
            if (run < 0) {
                n += Math.min(blockRows, rows - (long) b * blockRows);
                continue;
            }
            final int rf = (int) (run >>> 32);
            final int rt = (int) run;
            final long span = wholeParts(si, rf, rt, rows);
            n += span < 0 ? rt - rf : (span >>> 32) - rf + rt - (int) span;
        }
        return n;
    }

    /** @return the first part that starts at or after row {@code from}. */
    private static long firstWholePart(final int from, final int shift) {
        return ((long) from + (1L << shift) - 1) >>> shift;
    }

    /**
     * @return the part after the last one that ends at or before row {@code to} and that every summary covers (a sealed
     *         segment's last part may be short; an open segment's summaries cover its complete parts only, and a part
     *         beyond this snapshot's rows is never folded, however far a newer query's summary reaches).
     */
    private long endWholePart(final int si, final int to, final int rows, final int shift) {
        long end = to == rows && plan.snap.segmentSealed(si) ? ((long) rows + (1L << shift) - 1) >>> shift
            : (long) to >>> shift;
        for (final Summary v : summaries[si]) {
            end = Math.min(end, v.parts());
        }
        return end;
    }

    /**
     * Waits, without end and without taking interrupts, for pool workers that started a share of this query: after a
     * failure or a timeout the caller would otherwise return (and its snapshot's segments could be unmapped by a
     * closing engine) while a worker still reads them. They stop at their next batch, having seen {@link #cancelled}.
     */
    private static void awaitStartedTasks(final AtomicIntegerArray taskStates) {
        for (int w = 1; w < taskStates.length(); w++) {
            while (taskStates.get(w) == TASK_RUNNING) {
                LockSupport.parkNanos(50_000);
            }
        }
    }

    /** @throws QueryException the cancel's failure once another thread has cancelled the query. */
    private void checkCancel() {
        if (plan.cancel != null && plan.cancel.isCancelled()) {
            final QueryException stop = plan.cancel.failure();
            failure.compareAndSet(null, stop); // the caller reports the cancel's reason, not a worker's TIMEOUT
            cancelled = true;
            throw stop;
        }
    }

    /** @return the first worker's failure, or {@code e} when no worker failed (the caller's own wait did). */
    private RuntimeException firstFailure(final RuntimeException e) {
        final RuntimeException first = failure.get();
        return first != null ? first : e;
    }

    private QueryException timeout() {
        cancelled = true;
        return new QueryException(ErrorCode.TIMEOUT, "the query ran longer than options.timeoutMs="
            + plan.query.options().timeoutMs()
            + "; narrow the time range or filter", "/options/timeoutMs");
    }

    /**
     * One worker's share: the next free morsel while there is one, or with {@link Plan#fixedMorselOrder} morsels
     * {@code worker, worker + workers, ...} in order (partials are merged in worker order, so the additions happen in
     * the same order on every run).
     */
    private Object work(final int worker, final int workers) {
        final GroupState groups = plan.scan ? null : new GroupState(plan);
        final ScanState scan = plan.scan ? new ScanState(plan) : null;
        final boolean dealt = plan.fixedMorselOrder;
        try (BatchContext c = new BatchContext(plan)) {
            for (int i = dealt ? worker : next.getAndIncrement(); i < morselSegment.length; i = dealt ? i + workers
                : next.getAndIncrement()) {
                if (cancelled) {
                    throw timeout();
                }
                checkCancel();
                segment(c, morselSegment[i], morselFromBlock[i], morselToBlock[i], groups, scan);
            }
        } catch (final RuntimeException e) {
            failure.compareAndSet(null, e); // before the flag: a worker that stops on the flag finds the cause here
            cancelled = true;
            throw e;
        }
        if (groups != null) {
            groups.finish();
            return groups;
        }
        return scan;
    }

    void checkDeadline() {
        checkCancel();
        if (cancelled || plan.clock.getAsLong() > plan.deadlineNanos) {
            throw timeout();
        }
    }

    void segment(final BatchContext c, final int si, final int fromBlock, final int toBlock,
                         final GroupState groups,
                         final ScanState scan) {
        final TableSnapshot snap = plan.snap;
        final Segment s = snap.segment(si);
        final int rows = snap.segmentRowCount(si);
        final long rowBase = (long) si << snap.segmentShift();
        final int blockRows = plan.schema.blockRows();
        if (scan != null && scan.fullBefore(rowBase + (long) fromBlock * blockRows)) {
            return;
        }
        c.segment(s, rowBase, rows);
        if (groups != null) {
            groups.beginSegment(s, rows);
        }
        final FilterNode filter = plan.filter;
        if (selections[si] != null) {
            if (fromBlock == 0 && !selections[si].all()) { // all rows: no index answered a filter here
                indexedSegments.incrementAndGet();
            }
            final List<FilterNode> residual = ConjunctProofs.residual(plan, selections[si]);
            // the selected rows of each run of blocks the zone maps keep (the time range, other conjuncts), with the
            // conjuncts the zone maps prove for a whole block (a time range's inner blocks) left out there
            final int end = Math.min(toBlock, (rows + blockRows - 1) / blockRows);
            int b = fromBlock;
            while (b < end) {
                if (filter != null && !filter.mayMatch(s, b)) {
                    blocksSkipped.incrementAndGet();
                    b++;
                    continue;
                }
                final long proven = ConjunctProofs.proven(plan, residual, s, b, rows);
                final int e = ConjunctProofs.runEnd(plan, s, b, end, residual, proven, rows);
                final FilterNode rest = ConjunctProofs.unproven(residual, proven);
                final int to = (int) Math.min(rows, (long) e * blockRows);
                if (rest == null && summaries[si] != null) {
                    folded(c, si, b * blockRows, to, rows, groups);
                } else {
                    read(c, si, rest, b * blockRows, to, rows, groups, scan);
                }
                b = e;
            }
            return;
        }
        scanBlocks(c, si, s, fromBlock, toBlock, rows, groups, scan);
    }

    /**
     * Consumes the {@code k} rows of the dense batch {@code [start, start + n)} a filter kept in {@code c.sel}. Where
     * it dropped at most {@link #DENSE_GAPS} rows ({@code client_id <> one client}, a wide range) the kept runs are
     * consumed as dense batches: their columns are read in place rather than gathered row by row.
     */
    private void consumeKept(final BatchContext c, final int start, final int n, final int k, final GroupState groups,
        final ScanState scan) {
        if (n - k > DENSE_GAPS || plan.scan) {
            consume(c, start, k, c.sel, groups, scan, false);
            return;
        }
        // the kept runs, noted before the first is consumed (consuming reuses the selection vector)
        final int[] runs = c.keptRuns;
        int r = 0;
        int from = c.sel[0];
        for (int i = 1; i <= k; i++) {
            if (i == k || c.sel[i] != c.sel[i - 1] + 1) {
                runs[r++] = from;
                runs[r++] = c.sel[i - 1] + 1 - from;
                from = i < k ? c.sel[i] : 0;
            }
        }
        for (int j = 0; j < r; j += 2) {
            consume(c, runs[j], runs[j + 1], null, groups, scan, false);
        }
    }

    /**
     * Scans blocks {@code [fromBlock, toBlock)} of segment {@code s} (its committed {@code rows}) with the query's
     * filter; where a sorted column's range keeps a run of a block on which every conjunct holds, the whole parts
     * inside it fold from segment {@code si}'s summaries (when it has some), and rows it {@link #skip}s are not read.
     */
    private void scanBlocks(final BatchContext c, final int si, final Segment s, final int fromBlock,
                            final int toBlock, final int rows, final GroupState groups, final ScanState scan) {
        final FilterNode filter = plan.filter;
        final int blockRows = plan.schema.blockRows();
        long scanned = 0;
        long matched = 0;
        final int batch = BatchContext.BATCH;
        final List<FilterNode> conjuncts = Arrays.asList(plan.conjuncts);
        long lastProven = 0;
        FilterNode lastFilter = filter;
        final SortedRanges sorted = filter == null ? null : new SortedRanges(conjuncts);
        for (int b = fromBlock; b < toBlock && (long) b * blockRows < rows; b++) {
            int bs = b * blockRows;
            int be = Math.min(rows, bs + blockRows);
            if (filter != null && !filter.mayMatch(s, b)) {
                blocksSkipped.incrementAndGet();
                continue;
            }
            // conjuncts the zone maps prove for the whole block (inside a time range) are not applied per row, nor are
            // ranges on a column sorted in the block (its ends), which keep one run of rows
            long proven = filter == null ? 0 : ConjunctProofs.proven(plan, conjuncts, s, b, rows)
                | (indexProven == null ? 0 : indexProven[si]) | dropped.mask(si);
            if (sorted != null) {
                proven = sorted.narrow(s, b, bs, be, blockRows, rows, proven);
                bs = sorted.from;
                be = sorted.to;
            }
            if (proven != lastProven) { // the filter for this proof mask, rebuilt only when the mask changes
                lastProven = proven;
                lastFilter = proven == 0 ? filter : ConjunctProofs.unproven(conjuncts, proven);
            }
            final FilterNode blockFilter = lastFilter;
            // a time range's ends inside a block: the parts between them fold (parts may be finer than blocks)
            final long parts = blockFilter == null && summaries[si] != null && groups != null
                ? wholeParts(si, bs, be, rows) : -1;
            // or the rows bucket summaries folded
            final long gap = parts >= 0 ? parts : skipped(si, bs, be);
            final int foldFrom = gap < 0 ? be : (int) (gap >>> 32);
            final int foldTo = gap < 0 ? be : (int) gap;
            final int[] drop = dropped.rows(si);
            final boolean zoneBlock = plan.zoneShortcut && blockFilter == null && be - bs == blockRows && gap < 0
                && DroppedRows.next(drop, bs) >= be;
            int start = bs;
            while (start < be) {
                if (start == foldFrom) {
                    if (parts >= 0) {
                        foldRange(c, si, parts, groups);
                    }
                    start = foldTo;
                    continue;
                }
                final int d = DroppedRows.next(drop, start);
                if (d == start) { // a dropped row: batches run between them
                    scanned++;
                    start++;
                    continue;
                }
                checkDeadline();
                final int n = Math.min(batch, Math.min(d, start < foldFrom ? foldFrom : be) - start);
                scanned += n;
                if (blockFilter == null) {
                    matched += n;
                    consume(c, start, n, null, groups, scan, zoneBlock);
                } else {
                    final int k = blockFilter.apply(c, start, n, null, c.sel);
                    if (k > 0) {
                        matched += k;
                        consumeKept(c, start, n, k, groups, scan);
                    }
                }
                start += n;
            }
            if (zoneBlock) {
                groups.zoneFold(s, b);
            }
        }
        rowsScanned.addAndGet(scanned);
        rowsMatched.addAndGet(matched);
    }

    /**
     * @return the rows of {@code [from, to)} of segment si that bucket summaries folded ({@link #skip}), as
     *     {@code from << 32 | to}, or -1 when none.
     */
    private long skipped(final int si, final int from, final int to) {
        if (skipFrom == null) {
            return -1;
        }
        final int f = Math.max(from, skipFrom[si]);
        final int t = Math.min(to, skipTo[si]);
        return f < t ? (long) f << 32 | t : -1;
    }

    /**
     * @return the rows of the whole parts inside {@code [from, to)} that every summary of segment si covers, as
     *     {@code from << 32 | to}, or -1 when there is none.
     */
    private long wholeParts(final int si, final int from, final int to, final int rows) {
        final int shift = summaries[si][0].partShift();
        final long p0 = firstWholePart(from, shift);
        final long p1 = endWholePart(si, to, rows, shift);
        return p0 < p1 ? p0 << shift << 32 | Math.min(rows, p1 << shift) : -1;
    }

    /**
     * Folds the whole parts {@code span} ({@link #wholeParts}) of segment si from its summaries: runs of parts that
     * make a whole coarse part (a block, when parts are finer) as one entry each, when every summary has that level.
     */
    private void foldRange(final BatchContext c, final int si, final long span, final GroupState groups) {
        final Summary[] views = summaries[si];
        final int shift = views[0].partShift();
        final long p0 = (span >>> 32) >>> shift;
        final long p1 = ((int) span + (1L << shift) - 1) >>> shift;
        boolean coarse = views[0].coarseShift() > shift;
        for (final Summary v : views) {
            coarse &= v.coarseShift() == views[0].coarseShift();
        }
        final int ratioShift = views[0].coarseShift() - shift;
        final long rowBase = (long) si << plan.snap.segmentShift();
        long matched = 0;
        long p = p0;
        while (p < p1) {
            if (coarse && (p & ((1L << ratioShift) - 1)) == 0 && p + (1L << ratioShift) <= p1) {
                matched += groups.foldSummary(views, (int) (p >>> ratioShift), true, rowBase, c.summaryPart);
                p += 1L << ratioShift;
            } else {
                matched += groups.foldSummary(views, (int) p, false, rowBase, c.summaryPart);
                p++;
            }
        }
        rowsMatched.addAndGet(matched);
        rowsSummarized.addAndGet(matched);
    }

    /**
     * Aggregates the selected rows in {@code [from, to)}, every conjunct answered or proven there: whole parts from the
     * summaries, the rows of the cut parts at either end from the selection.
     */
    private void folded(final BatchContext c, final int si, final int from, final int to, final int rows,
                        final GroupState groups) {
        final long span = wholeParts(si, from, to, rows);
        if (span < 0) {
            read(c, si, null, from, to, rows, groups, null);
            return;
        }
        if (from < (int) (span >>> 32)) {
            read(c, si, null, from, (int) (span >>> 32), rows, groups, null);
        }
        foldRange(c, si, span, groups);
        if ((int) span < to) {
            read(c, si, null, (int) span, to, rows, groups, null);
        }
    }

    /**
     * Reads the selected rows of block-aligned {@code [from, to)} (or to the segment's end) after the residual filter:
     * a selection of all rows as a scan of the blocks (contiguous, with the filter's zone-map proofs), others through
     * their row ids.
     */
    private void read(final BatchContext c, final int si, final FilterNode residual, final int from, final int to,
                      final int rows,
                      final GroupState groups, final ScanState scan) {
        if (selections[si].all()) {
            final int blockRows = plan.schema.blockRows();
            scanBlocks(c, si, plan.snap.segment(si), from / blockRows, (to + blockRows - 1) / blockRows, rows,
                groups, scan);
            return;
        }
        // a range on a column sorted in the end blocks (a time range) keeps a run of each: rows outside are not read
        final long run = BlockRuns.sortedRun(plan, plan.snap.segment(si), from, to, rows);
        final int f = (int) (run >>> 32);
        final int t = (int) run;
        final long gap = skipped(si, f, t);
        if (gap >= 0) {
            selected(c, selections[si], residual, f, (int) (gap >>> 32), groups, scan);
            selected(c, selections[si], residual, (int) gap, t, groups, scan);
        } else {
            selected(c, selections[si], residual, f, t, groups, scan);
        }
    }

    /** Consumes the selected rows in {@code [from, to)} (row ids ascend), after the residual filter. */
    private void selected(final BatchContext c, final Selection sel, final FilterNode residual, final int from,
                          final int to,
                          final GroupState groups, final ScanState scan) {
        final BatchIterator it = sel.iterator(from);
        final int[] buf = c.sel;
        long scanned = 0;
        long matched = 0;
        boolean more = true;
        while (more && it.hasNext()) {
            checkDeadline();
            int n = it.nextBatch(buf);
            if (n == 0) {
                break;
            }
            if (buf[n - 1] >= to) {
                // the range ends inside this batch: keep its rows only
                int k = n;
                while (k > 0 && buf[k - 1] >= to) {
                    k--;
                }
                n = k;
                more = false;
                if (n == 0) {
                    break;
                }
            }
            scanned += n;
            final int k = residual == null ? n : residual.apply(c, 0, n, buf, buf);
            if (k > 0) {
                matched += k;
                consume(c, 0, k, buf, groups, scan, false);
            }
        }
        rowsScanned.addAndGet(scanned);
        rowsMatched.addAndGet(matched);
    }

    /** Prepares the batch {@code [start, start + n)} or {@code sel[0..n)} and consumes it. */
    private static void consume(final BatchContext c, final int start, final int n, final int[] sel,
                                final GroupState groups, final ScanState scan,
                                final boolean zoneBlock) {
        if (groups != null) {
            groups.consume(c, start, n, sel, zoneBlock);
        } else {
            c.batch(start, n, sel);
            scan.consume(c);
        }
    }
}
