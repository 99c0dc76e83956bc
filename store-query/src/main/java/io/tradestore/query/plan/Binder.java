package io.tradestore.query.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import io.tradestore.core.StoreException;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;
import io.tradestore.query.ResultColumn;
import io.tradestore.query.model.Agg;
import io.tradestore.query.model.Filter;
import io.tradestore.query.model.GroupKey;
import io.tradestore.query.model.OrderKey;
import io.tradestore.query.model.Query;
import io.tradestore.query.parse.QueryParser;
import io.tradestore.query.exec.agg.Acc;
import io.tradestore.query.exec.group.KeySpec;

/**
 * Binds a {@link Query} to a snapshot into a {@link Plan}: the time range and filter ({@link FilterBinder}), a scan's
 * columns and order, the group keys and a key mode picked from the zone-map ranges, and the aggregates and having
 * ({@link AggregateBinder}). Literals are read by {@link Literals}. Every error names its JSON path.
 */
public final class Binder {
    /** Default cap on groups ({@code options.maxGroups}). */
    static final long DEFAULT_MAX_GROUPS = 1_000_000;
    /** Default and largest scan limits: the largest is also what an ordered scan holds to sort when streamed. */
    static final long DEFAULT_SCAN_LIMIT = 10_000;
    public static final long MAX_SCAN_LIMIT = 1_000_000;
    private static final long DENSE_MAX = 1 << 16;
    /**
     * Largest key space a plan may still index densely at run time ({@link Plan#denseFromRows}): past
     * {@link #DENSE_MAX} a hash probe per row (a few cache misses and a mispredicted compare) costs more than a larger
     * array, once the rows to read are many times its size.
     */
    private static final long LARGE_DENSE_MAX = 1 << 20;
    /** Rows per group of a large key space that make its dense array worth zeroing and walking. */
    private static final long LARGE_DENSE_ROWS_PER_GROUP = 8;
    /** Per-worker bytes a large dense plan may take: 8 a group for its row count and 4 longs a group per aggregate. */
    private static final long LARGE_DENSE_BYTES = 64L << 20;

    final Query q;
    final TableSnapshot snap;
    final Schema schema;
    final Plan plan = new Plan();
    private final Map<Integer, Integer> slots = new HashMap<>();
    /** The query's time range, inclusive (every row outside it is filtered out): keys on the timestamp need no more. */
    long timeLo = Long.MIN_VALUE;
    long timeHi = Long.MAX_VALUE;
    /** Slots read by aggregates (collected once the keys are bound). */
    private Set<Integer> accSlots;

    private Binder(final Query q, final TableSnapshot snap) {
        this.q = q;
        this.snap = snap;
        this.schema = snap.schema();
    }

    public static Plan bind(final Query q, final TableSnapshot snap, final long startNanos) {
        return new Binder(q, snap).bind(startNanos);
    }

    private Plan bind(final long startNanos) {
        plan.query = q;
        plan.snap = snap;
        plan.schema = schema;
        plan.maxGroups = q.options().maxGroups() != null ? q.options().maxGroups() : DEFAULT_MAX_GROUPS;
        if (q.options().timeoutMs() != null) {
            // a limit of centuries means none: saturate, or the product or the sum overflows into a deadline in the
            // past
            plan.deadlineNanos = deadline(startNanos, q.options().timeoutMs());
        }
        plan.epochNanos = Boolean.TRUE.equals(q.options().epochNanos());
        new FilterBinder(this).bind();
        if (q.aggs().isEmpty()) {
            bindScan();
        } else {
            bindAggregate();
        }
        plan.slotColumn = new int[slots.size()];
        plan.slotSkipped = new boolean[slots.size()];
        if (plan.directKeys) {
            for (final KeySpec k : plan.keys) {
                plan.slotSkipped[k.slot] = !accSlots.contains(k.slot);
            }
        } else if (plan.keyMode == Plan.DENSE || plan.keyMode == Plan.HASH) {
            // plain keys of packed keys are read straight from their columns (GroupState.packColumn): no gathered view
            for (final KeySpec k : plan.keys) {
                plan.slotSkipped[k.slot] = !k.bucket() && !accSlots.contains(k.slot);
            }
        }
        for (final Map.Entry<Integer, Integer> e : slots.entrySet()) {
            plan.slotColumn[e.getValue()] = e.getKey();
        }
        return plan;
    }

    /**
     * The arguments of an {@code and}/{@code or} node of a filter or a having, after the checks both make: the node is
     * present, not nested too deep, and has arguments.
     *
     * @param f     the node.
     * @param p     its JSON path.
     * @param empty the message for an empty argument list.
     * @return the arguments, or null when the node is not an and/or.
     */
    static List<Filter> logicArgs(final Filter f, final String p, final String empty) {
        if (f == null) {
            throw invalid(p, "missing filter");
        }
        QueryParser.checkFilterDepth(p);
        if (!(f instanceof Filter.And || f instanceof Filter.Or)) {
            return null;
        }
        final List<Filter> args = f instanceof Filter.And ? ((Filter.And) f).args() : ((Filter.Or) f).args();
        if (args.isEmpty()) {
            throw invalid(p + "/args", empty);
        }
        return args;
    }

    /**
     * @param startNanos the query's start ({@link System#nanoTime()}).
     * @param timeoutMs  its limit in milliseconds (at least 1).
     * @return the deadline, or Long.MAX_VALUE when it lies beyond the range of nanoTime.
     */
    static long deadline(final long startNanos, final long timeoutMs) {
        try {
            return Math.addExact(startNanos, Math.multiplyExact(timeoutMs, 1_000_000L));
        } catch (final ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    int slot(final int column) {
        final int s = slots.computeIfAbsent(column, c -> slots.size());
        if (accSlots != null) {
            accSlots.add(s);
        }
        return s;
    }

    Column column(final String name, final String path) {
        if (name == null) {
            throw invalid(path, "missing column name");
        }
        final int i = schema.indexOf(name);
        if (i < 0) {
            throw new QueryException(ErrorCode.UNKNOWN_COLUMN, "unknown column '" + StoreException.echo(name)
                + "' in table '" + schema.name()
                + "'; columns are " + schema.columnNames(), path);
        }
        return schema.column(i);
    }

    static QueryException invalid(final String path, final String message) {
        return new QueryException(ErrorCode.INVALID_QUERY, message, path);
    }

    // ---------------------------------------------------------------- scans

    private void bindScan() {
        plan.scan = true;
        if (!q.groupBy().isEmpty()) {
            throw invalid("/groupBy", "groupBy needs aggs; a query without aggs is a scan of columns");
        }
        if (q.having() != null) {
            throw invalid("/having", "having needs aggs");
        }
        final List<Integer> cols = new ArrayList<>();
        if (q.columns().isEmpty()) {
            for (int i = 0; i < schema.columnCount(); i++) {
                cols.add(i);
            }
        } else {
            final Set<String> seen = new HashSet<>();
            for (int i = 0; i < q.columns().size(); i++) {
                final Column c = column(q.columns().get(i), "/columns/" + i);
                if (!seen.add(c.name())) {
                    throw invalid("/columns/" + i, "column '" + c.name() + "' is listed twice");
                }
                cols.add(c.index());
            }
        }
        plan.scanColumns = cols.stream().mapToInt(Integer::intValue).toArray();
        final List<ResultColumn> out = new ArrayList<>();
        for (final int c : plan.scanColumns) {
            out.add(new ResultColumn(schema.column(c).name(), schema.column(c).typeName()));
        }
        plan.columns = out;
        plan.scanOrderColumns = new int[q.orderBy().size()];
        plan.orderDesc = new boolean[q.orderBy().size()];
        plan.symbolRank = new long[schema.columnCount()][];
        for (int i = 0; i < q.orderBy().size(); i++) {
            final OrderKey o = q.orderBy().get(i);
            final Column c = column(o.col(), orderPath(o, i));
            plan.scanOrderColumns[i] = c.index();
            plan.orderDesc[i] = o.desc();
            if (c.type() == ColumnType.SYMBOL && plan.symbolRank[c.index()] == null) {
                plan.symbolRank[c.index()] = symbolRanks(c.index());
            }
        }
        final long limit = q.limit() == null ? DEFAULT_SCAN_LIMIT : q.limit();
        if (limit > MAX_SCAN_LIMIT) {
            throw invalid("/limit", "a scan returns at most " + MAX_SCAN_LIMIT
                + " rows; aggregate instead, or page with a time range");
        }
        if (limit + q.skip() > MAX_SCAN_LIMIT) {
            throw invalid("/offset", "a scan reads at most " + MAX_SCAN_LIMIT + " rows of its order (offset "
                + q.skip() + " plus limit " + limit + "); page with a time range, or stream it as CSV or Arrow "
                + "(format=csv|arrow) without an order");
        }
        plan.offset = q.skip();
        plan.limit = limit + q.skip();
    }

    private long[] symbolRanks(final int col) {
        final int n = snap.dictionarySize(col);
        final Integer[] codes = new Integer[n];
        final String[] values = new String[n];
        for (int i = 0; i < n; i++) {
            codes[i] = i;
            values[i] = snap.symbolValue(col, i);
        }
        Arrays.sort(codes, (a, b) -> values[a].compareTo(values[b]));
        final long[] rank = new long[n];
        for (int i = 0; i < n; i++) {
            rank[codes[i]] = i;
        }
        return rank;
    }

    // ---------------------------------------------------------------- aggregates

    private void bindAggregate() {
        if (!q.columns().isEmpty()) {
            throw invalid("/columns", "columns belong to scans; an aggregate query outputs its groupBy keys and aggs");
        }
        if (q.groupBy().size() > 4) {
            throw invalid("/groupBy/4", "at most 4 group keys");
        }
        final List<ResultColumn> out = new ArrayList<>();
        final Set<String> names = new HashSet<>();
        plan.keys = bindKeys(out, names);
        chooseKeyMode();
        accSlots = new HashSet<>();
        final AggregateBinder binder = new AggregateBinder(this);
        final List<Supplier<Acc>> accs = new ArrayList<>();
        for (int i = 0; i < q.aggs().size(); i++) {
            final Agg a = q.aggs().get(i);
            final String p = "/aggs/" + i;
            if (a.name() == null || a.name().isEmpty()) {
                throw invalid(p + "/name", "every aggregate needs a name");
            }
            if (!names.add(a.name())) {
                throw invalid(p + "/name", "output name '" + a.name() + "' is used twice");
            }
            final ResultColumn[] col = new ResultColumn[1];
            accs.add(binder.aggregate(a, p, col));
            out.add(col[0]);
        }
        plan.accs = accs;
        // min, max and count of an ungrouped query fold a whole block from its zone map where every row passes
        plan.zoneShortcut = plan.keys.length == 0;
        final int ts = schema.timestampIndex();
        plan.bucketRuns = plan.keys.length == 1 && plan.keys[0].bucketNs > 0 && plan.keys[0].col.index() == ts
            && (plan.keyMode == Plan.DENSE || plan.keyMode == Plan.HASH);
        plan.tsGatherSkippable = plan.bucketRuns && !readsAsValue(schema.column(ts).name());
        plan.columns = out;
        final List<String> outNames = new ArrayList<>();
        for (final ResultColumn c : out) {
            outNames.add(c.name());
        }
        if (q.having() != null) {
            plan.having = binder.having(q.having(), "/having", false, outNames, out);
            plan.havingReads = binder.havingReads(out.size());
        }
        plan.orderIndex = new int[q.orderBy().size()];
        plan.orderDesc = new boolean[q.orderBy().size()];
        for (int i = 0; i < q.orderBy().size(); i++) {
            final OrderKey o = q.orderBy().get(i);
            final int idx = outNames.indexOf(o.col());
            if (idx < 0) {
                throw new QueryException(ErrorCode.UNKNOWN_COLUMN, "orderBy names an output column; '" + o.col()
                    + "' is not one of " + outNames,
                    orderPath(o, i));
            }
            plan.orderIndex[i] = idx;
            plan.orderDesc[i] = o.desc();
        }
        plan.offset = q.skip();
        plan.limit = q.limit() == null ? Long.MAX_VALUE : (long) q.limit() + q.skip();
    }

    /**
     * @param out   receives each key's output column.
     * @param names receives each key's output name (a name used twice is an error).
     * @return the bound group keys, in order.
     */
    private KeySpec[] bindKeys(final List<ResultColumn> out, final Set<String> names) {
        final List<KeySpec> keys = new ArrayList<>();
        boolean bucketSeen = false;
        for (int i = 0; i < q.groupBy().size(); i++) {
            final GroupKey g = q.groupBy().get(i);
            final String p = "/groupBy/" + i;
            final Column c = column(g.col(), g.bucket() == null && g.as() == null ? p : p + "/col");
            long width = 0;
            int months = 0;
            if (g.bucket() != null) {
                if (c.type() != ColumnType.TIMESTAMP) {
                    throw invalid(p + "/col", "a time bucket needs a timestamp column; '" + c.name() + "' is "
                        + c.typeName());
                }
                if (bucketSeen) {
                    throw invalid(p + "/bucket", "at most one time bucket per query");
                }
                bucketSeen = true;
                months = Literals.bucketMonths(g.bucket(), p + "/bucket");
                width = months > 0 ? 0 : Literals.bucketNanos(g.bucket(), p + "/bucket");
            } else if (c.type() == ColumnType.F64) {
                throw invalid(p, "group keys are symbol, char, integer, decimal or timestamp columns; '" + c.name()
                    + "' is f64");
            }
            final String name = g.outputName();
            if (!names.add(name)) {
                throw invalid(g.as() != null ? p + "/as" : p, "output name '" + name
                    + "' is used twice; give the key another name with \"as\"");
            }
            final KeySpec k = new KeySpec(slot(c.index()), c, width, months, name);
            keys.add(k);
            out.add(new ResultColumn(name, k.type));
        }
        return keys.toArray(new KeySpec[0]);
    }

    /**
     * @return the JSON path of an orderBy key's column: the key itself unless it is descending. The model does not keep
     *     whether the JSON said {@code "n"} or {@code {"col": "n"}}; this path exists in both (as groupBy's does).
     */
    private static String orderPath(final OrderKey o, final int i) {
        return "/orderBy/" + i + (o.desc() ? "/col" : "");
    }

    /** @param name a column. @return whether an aggregate reads it as a value (its operand, or a factor of one). */
    private boolean readsAsValue(final String name) {
        for (final Agg a : q.aggs()) {
            if (a.col() != null) {
                for (final String part : a.col().split("\\*")) {
                    if (part.trim().equals(name)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private void chooseKeyMode() {
        if (plan.keys.length == 0) {
            plan.keyMode = Plan.GLOBAL;
            return;
        }
        long product = 1;
        boolean packable = true;
        for (final KeySpec k : plan.keys) {
            long lo;
            long hi;
            if (k.col.type() == ColumnType.SYMBOL) {
                lo = 0;
                hi = snap.dictionarySize(k.col.index()) - 1;
            } else {
                lo = Long.MAX_VALUE;
                hi = Long.MIN_VALUE;
                for (int s = snap.firstSegment(); s < snap.segmentCount(); s++) {
                    lo = Math.min(lo, snap.segment(s).zoneMin(-1, k.col.index()));
                    hi = Math.max(hi, snap.segment(s).zoneMax(-1, k.col.index()));
                }
                if (k.col.index() == schema.timestampIndex()) {
                    // a one-day query over months of data: its buckets only (smaller partials, a shorter merge)
                    lo = Math.max(lo, timeLo);
                    hi = Math.min(hi, timeHi);
                }
                if (k.bucket() && lo <= hi) {
                    lo = k.keyValue(lo);
                    hi = k.keyValue(hi);
                }
            }
            if (lo > hi) {
                lo = 0;
                hi = -1;
            }
            k.lo = lo;
            final long span = hi - lo;
            if (span < 0 && hi >= lo || span > (1L << 40)) {
                packable = false;
                continue;
            }
            k.radix = span + 2;
            if (product > (1L << 62) / k.radix) {
                packable = false;
            } else {
                product *= k.radix;
            }
        }
        if (!packable) {
            plan.keyMode = Plan.WIDE;
            return;
        }
        long mult = 1;
        for (int i = plan.keys.length - 1; i >= 0; i--) {
            plan.keys[i].mult = mult;
            mult *= plan.keys[i].radix;
        }
        plan.denseSize = product;
        plan.keyMode = product <= DENSE_MAX ? Plan.DENSE : Plan.HASH;
        if (plan.keyMode == Plan.HASH && product <= LARGE_DENSE_MAX
            && product * Long.BYTES * (1 + 4L * q.aggs().size()) <= LARGE_DENSE_BYTES) {
            plan.denseFromRows = product * LARGE_DENSE_ROWS_PER_GROUP;
        }
        boolean direct = plan.keyMode == Plan.DENSE;
        for (final KeySpec k : plan.keys) {
            direct &= !k.bucket() && k.lo > Integer.MIN_VALUE / 2 && k.lo < Integer.MAX_VALUE / 2;
        }
        plan.directKeys = direct;
        if (direct) {
            rawByteKeys();
        }
    }

    /**
     * One-byte keys (side, i8) of a direct dense plan take the raw byte as their code (radix 256) when the dense array
     * stays within {@link #DENSE_MAX}: the kernels then index by {@code v & 0xFF} with no null select or range check.
     */
    private void rawByteKeys() {
        long product = 1;
        for (final KeySpec k : plan.keys) {
            product *= k.col.width() == 1 ? 256 : k.radix;
        }
        if (product > DENSE_MAX) {
            return;
        }
        long mult = 1;
        for (int i = plan.keys.length - 1; i >= 0; i--) {
            final KeySpec k = plan.keys[i];
            if (k.col.width() == 1) {
                k.rawByte = true;
                k.radix = 256;
            }
            k.mult = mult;
            mult *= k.radix;
        }
        plan.denseSize = product;
    }

}
