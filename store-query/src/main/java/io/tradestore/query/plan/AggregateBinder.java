package io.tradestore.query.plan;

import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;
import io.tradestore.query.ResultColumn;
import io.tradestore.query.model.Agg;
import io.tradestore.query.model.AggOp;
import io.tradestore.query.model.Filter;
import io.tradestore.query.exec.agg.Acc;
import io.tradestore.query.exec.agg.CountAcc;
import io.tradestore.query.exec.agg.DistinctAcc;
import io.tradestore.query.exec.agg.DoubleSumAcc;
import io.tradestore.query.exec.agg.FirstLastAcc;
import io.tradestore.query.exec.agg.MinMaxAcc;
import io.tradestore.query.exec.agg.PercentileAcc;
import io.tradestore.query.exec.agg.Product;
import io.tradestore.query.exec.agg.ProductMinMaxAcc;
import io.tradestore.query.exec.agg.RowCountAcc;
import io.tradestore.query.exec.agg.SameAcc;
import io.tradestore.query.exec.agg.SumAcc;
import io.tradestore.query.exec.agg.VwapAcc;
import io.tradestore.query.exec.filter.RowPredicate;

/**
 * Binds aggregates and having to a snapshot: checks each aggregate's operand, allocates the slots it reads, names its
 * output column and chooses its accumulator class; types having's values by the output columns.
 */
final class AggregateBinder {
    private final Binder binder;
    /** Aggregates bound so far: the index of the next one in the plan's accumulators. */
    private int aggregates;
    /** Per percentile operand ("column*column", -1 for none): the index of its first percentile's accumulator. */
    private final Map<String, Integer> percentileOwners = new HashMap<>();
    /** The first aggregate of each operation and operand bound so far, by {@link #identity}. */
    private final Map<String, Integer> firstOfSame = new HashMap<>();
    /** The output columns the having bound so far reads. */
    private final BitSet havingReads = new BitSet();

    AggregateBinder(final Binder binder) {
        this.binder = binder;
    }

    /** @param outputs the output columns. @return per output column, whether the having bound so far reads it. */
    boolean[] havingReads(final int outputs) {
        final boolean[] reads = new boolean[outputs];
        for (int i = havingReads.nextSetBit(0); i >= 0 && i < outputs; i = havingReads.nextSetBit(i + 1)) {
            reads[i] = true;
        }
        return reads;
    }

    static boolean numeric(final ColumnType t) {
        return t == ColumnType.I8 || t == ColumnType.I16 || t == ColumnType.I32 || t == ColumnType.I64
            || t == ColumnType.DECIMAL
            || t == ColumnType.F64;
    }

    Column[] operand(final String col, final String p, final boolean productAllowed, final String op) {
        if (col == null) {
            throw Binder.invalid(p, op + " needs \"col\"");
        }
        final int star = col.indexOf('*');
        if (star >= 0) {
            if (!productAllowed) {
                throw Binder.invalid(p, "a product a*b is not allowed in " + op);
            }
            if (col.indexOf('*', star + 1) >= 0) {
                throw Binder.invalid(p, "a product has two factors, a*b; '" + col + "' has more");
            }
            final Column a = binder.column(col.substring(0, star).trim(), p);
            final Column b = binder.column(col.substring(star + 1).trim(), p);
            if (!numeric(a.type()) || !numeric(b.type())) {
                throw Binder.invalid(p, "a product multiplies numeric columns (integers, decimals, f64); " + a.name()
                    + " is " + a.typeName() + ", "
                    + b.name() + " is " + b.typeName());
            }
            return new Column[] {a, b};
        }
        return new Column[] {binder.column(col.trim(), p)};
    }

    /** @param cs one column, or two for a product. @return the product operand (its slots allocated), or null. */
    Product product(final Column[] cs) {
        if (cs.length < 2) {
            return null;
        }
        return new Product(binder.slot(cs[0].index()), cs[0].type() == ColumnType.F64, cs[0].scale(),
            binder.slot(cs[1].index()),
            cs[1].type() == ColumnType.F64, cs[1].scale());
    }

    /**
     * @param a   the aggregate.
     * @param p   its JSON path.
     * @param out receives its output column.
     * @return a supplier of its accumulator, one per worker.
     */
    Supplier<Acc> aggregate(final Agg a, final String p, final ResultColumn[] out) {
        final Supplier<Acc> acc = bind(a, p, out);
        final int self = aggregates++;
        final int first = firstOfSame.computeIfAbsent(identity(a), k -> self);
        return first == self ? acc : () -> new SameAcc(first);
    }

    /** @return what an aggregate computes, whatever its name: its operation, operand and percentile. */
    private static String identity(final Agg a) {
        final String col = a.col() == null ? "" : a.col().replace(" ", "");
        return AggOp.of(a.op()) + "(" + col + ")" + (a.p() == null ? "" : "p" + a.p());
    }

    private Supplier<Acc> bind(final Agg a, final String p, final ResultColumn[] out) {
        final AggOp op = AggOp.of(a.op()); // a.op() is never null: the Query's constructor checks it
        if (op == null) {
            throw Binder.invalid(p + "/op", "unknown aggregate '" + a.op() + "'; use one of " + AggOp.NAMES);
        }
        switch (op) {
            case COUNT:
                return count(a, p, op, out);
            case SUM:
            case AVG:
                return sum(a, p, op, out);
            case MIN:
            case MAX:
                return minMax(a, p, op, out);
            case FIRST:
            case LAST:
                return firstLast(a, p, op, out);
            case VWAP:
                return vwap(a, p, op, out);
            case PERCENTILE:
                return percentile(a, p, op, out);
            case COUNT_DISTINCT:
                return countDistinct(a, p, op, out);
            default:
                throw new IllegalStateException("aggregate " + op + " has no accumulator");
        }
    }

    RowPredicate having(final Filter f, final String p, final boolean negate, final List<String> names,
        final List<ResultColumn> out) {
        final List<Filter> args = Binder.logicArgs(f, p, "needs at least one argument");
        if (args != null) {
            final boolean and = f instanceof Filter.And;
            final RowPredicate[] ps = new RowPredicate[args.size()];
            for (int i = 0; i < ps.length; i++) {
                ps[i] = having(args.get(i), p + "/args/" + i, negate, names, out);
            }
            return new RowPredicate.Logic(and != negate, ps);
        }
        if (f instanceof Filter.Not) {
            return having(((Filter.Not) f).arg(), p + "/arg", !negate, names, out);
        }
        final String col;
        if (f instanceof Filter.Eq) {
            col = ((Filter.Eq) f).col();
        } else if (f instanceof Filter.Ne) {
            col = ((Filter.Ne) f).col();
        } else if (f instanceof Filter.In) {
            col = ((Filter.In) f).col();
        } else {
            col = ((Filter.Range) f).col();
        }
        final int idx = names.indexOf(col);
        if (idx < 0) {
            throw new QueryException(ErrorCode.UNKNOWN_COLUMN, "having names an output column; '" + col
                + "' is not one of " + names, p + "/col");
        }
        havingReads.set(idx);
        final String type = out.get(idx).type();
        if (f instanceof Filter.Eq) {
            return new RowPredicate.Leaf(idx, null, false, null, false,
                new Object[] {Literals.outValue(((Filter.Eq) f).value(), type, p + "/value")},
                negate);
        }
        if (f instanceof Filter.Ne) {
            return new RowPredicate.Leaf(idx, null, false, null, false,
                new Object[] {Literals.outValue(((Filter.Ne) f).value(), type, p + "/value")},
                !negate);
        }
        if (f instanceof Filter.In) {
            final List<Object> vs = ((Filter.In) f).values();
            final Object[] set = new Object[vs.size()];
            for (int i = 0; i < set.length; i++) {
                set[i] = Literals.outValue(vs.get(i), type, p + "/values/" + i);
            }
            return new RowPredicate.Leaf(idx, null, false, null, false, set, negate);
        }
        final Filter.Range r = (Filter.Range) f;
        if (type.equals("symbol")) {
            throw Binder.invalid(p + "/op", "range does not apply to symbol output '" + col + "'; use eq, ne or in");
        }
        final Object lo = r.gt() != null ? Literals.outValue(r.gt(), type, p + "/gt") : r.gte() != null
            ? Literals.outValue(r.gte(), type, p + "/gte") : null;
        final Object hi = r.lt() != null ? Literals.outValue(r.lt(), type, p + "/lt") : r.lte() != null
            ? Literals.outValue(r.lte(), type, p + "/lte") : null;
        return new RowPredicate.Leaf(idx, lo, r.gte() != null, hi, r.lte() != null, null, negate);
    }

    /**
     * @return the accumulator of a count of rows, or of a column's (or product's) present values; {@code out[0]}
     *         receives its output column.
     */
    private Supplier<Acc> count(final Agg a, final String p, final AggOp op, final ResultColumn[] out) {
        final String name = a.name();
        out[0] = new ResultColumn(name, "i64");
        if (a.col() == null) {
            return RowCountAcc::new;
        }
        final Column[] cs = operand(a.col(), p + "/col", true, "count");
        final Column c = cs[0];
        final boolean f64 = c.type() == ColumnType.F64;
        final Product prod = product(cs);
        // an integral column alone is read where it is stored (no slot, so no batch copy unless another reads it)
        final int s = f64 || prod != null ? binder.slot(c.index()) : -1;
        final int colB = cs.length < 2 ? -1 : cs[1].index();
        return () -> new CountAcc(s, f64, prod, c.index(), colB);
    }

    /**
     * @return the accumulator of a sum or avg, exact for integers and decimals; {@code out[0]} receives its output
     *         column.
     */
    private Supplier<Acc> sum(final Agg a, final String p, final AggOp op, final ResultColumn[] out) {
        final String name = a.name();
        final boolean avg = op == AggOp.AVG;
        final Column[] cs = operand(a.col(), p + "/col", true, a.op());
        for (final Column c : cs) {
            if (!numeric(c.type())) {
                throw Binder.invalid(p + "/col", a.op() + " applies to integer, decimal and f64 columns; '" + c.name()
                    + "' is " + c.typeName());
            }
        }
        final Column x = cs[0];
        final Column y = cs.length > 1 ? cs[1] : null;
        final int sx = binder.slot(x.index());
        final int sy = y == null ? -1 : binder.slot(y.index());
        if (x.type() == ColumnType.F64 || y != null && y.type() == ColumnType.F64) {
            out[0] = new ResultColumn(name, "f64");
            final boolean fx = x.type() == ColumnType.F64;
            final boolean fy = y != null && y.type() == ColumnType.F64;
            final int scx = x.scale();
            final int scy = y == null ? 0 : y.scale();
            binder.plan.fixedMorselOrder = true;
            return () -> new DoubleSumAcc(sx, fx, scx, sy, fy, scy, avg);
        }
        final int scale = x.scale() + (y == null ? 0 : y.scale());
        out[0] = new ResultColumn(name, avg ? "f64" : "decimal(" + scale + ")");
        final int cx = x.index();
        final int cy = y == null ? -1 : y.index();
        return () -> new SumAcc(sx, cx, sy, cy, scale, avg);
    }

    /** @return the accumulator of a min or max of a column or product; {@code out[0]} receives its output column. */
    private Supplier<Acc> minMax(final Agg a, final String p, final AggOp op, final ResultColumn[] out) {
        final String name = a.name();
        final Column[] cs = operand(a.col(), p + "/col", true, a.op());
        final Column c = cs[0];
        if (cs.length == 2) {
            final Product prod = product(cs);
            final boolean max = op == AggOp.MAX;
            out[0] = new ResultColumn(name, prod.type());
            final int ca = cs[0].index();
            final int cb = cs[1].index();
            return () -> new ProductMinMaxAcc(prod, max, ca, cb);
        }
        if (!numeric(c.type()) && c.type() != ColumnType.TIMESTAMP) {
            throw Binder.invalid(p + "/col", a.op() + " applies to integer, decimal, f64 and timestamp columns; '"
                + c.name() + "' is "
                + c.typeName());
        }
        out[0] = new ResultColumn(name, c.typeName());
        final int s = binder.slot(c.index());
        final boolean max = op == AggOp.MAX;
        final TableSnapshot snap = binder.snap;
        return () -> new MinMaxAcc(s, c, max, snap);
    }

    /**
     * @return the accumulator of a first or last value by the designated timestamp; {@code out[0]} receives its output
     *         column.
     */
    private Supplier<Acc> firstLast(final Agg a, final String p, final AggOp op, final ResultColumn[] out) {
        final String name = a.name();
        final Column[] cs = operand(a.col(), p + "/col", true, a.op());
        final Column c = cs[0];
        final Product prod = product(cs);
        final int ts = binder.schema.timestampIndex();
        if (ts < 0) {
            throw Binder.invalid(p + "/op", a.op() + " is by the designated timestamp, and table '"
                + binder.schema.name() + "' has none");
        }
        out[0] = new ResultColumn(name, prod != null ? prod.type() : c.typeName());
        final int s = binder.slot(c.index());
        final int st = binder.slot(ts);
        final boolean last = op == AggOp.LAST;
        final TableSnapshot snap = binder.snap;
        final int colB = cs.length > 1 ? cs[1].index() : -1;
        return () -> new FirstLastAcc(st, s, c, colB, last, snap, prod);
    }

    /** @return the accumulator of a volume-weighted average price; {@code out[0]} receives its output column. */
    private Supplier<Acc> vwap(final Agg a, final String p, final AggOp op, final ResultColumn[] out) {
        final String name = a.name();
        final Column pc;
        final Column qc;
        if (a.col() != null) {
            final Column[] cs = operand(a.col(), p + "/col", true, "vwap");
            if (cs.length != 2) {
                throw Binder.invalid(p + "/col",
                    "vwap takes \"price*quantity\" (or no col, for columns price and quantity)");
            }
            // the volume is the factor named quantity, as vwap without col takes it, in either order (quantity*price
            // gave sum(p*q)/sum(p) before); else the second factor as written. Not by types: a price in integer
            // ticks and a decimal quantity, or two decimals, would be guessed wrong
            final boolean swap = "quantity".equals(cs[0].name()) && !"quantity".equals(cs[1].name());
            pc = swap ? cs[1] : cs[0];
            qc = swap ? cs[0] : cs[1];
        } else {
            if (binder.schema.indexOf("price") < 0 || binder.schema.indexOf("quantity") < 0) {
                throw new QueryException(ErrorCode.UNKNOWN_COLUMN,
                    "vwap without col needs columns price and quantity; give \"col\": "
                    + "\"<price>*<quantity>\"", p + "/col");
            }
            pc = binder.schema.column(binder.schema.indexOf("price"));
            qc = binder.schema.column(binder.schema.indexOf("quantity"));
        }
        for (final Column c : new Column[] {pc, qc}) {
            if (!numeric(c.type()) || c.type() == ColumnType.F64) {
                throw Binder.invalid(p + "/col", "vwap needs integer or decimal price and quantity; '" + c.name()
                    + "' is " + c.typeName());
            }
        }
        out[0] = new ResultColumn(name, "f64");
        final int sp = binder.slot(pc.index());
        final int sq = binder.slot(qc.index());
        return () -> new VwapAcc(sp, pc.index(), pc.scale(), sq, qc.index(), qc.scale());
    }

    /** @return the accumulator of a percentile (p between 0 and 100); {@code out[0]} receives its output column. */
    private Supplier<Acc> percentile(final Agg a, final String p, final AggOp op, final ResultColumn[] out) {
        final String name = a.name();
        final Column[] cs = operand(a.col(), p + "/col", true, "percentile");
        final Column c = cs[0];
        final Product prod = product(cs);
        if (!numeric(c.type())) {
            throw Binder.invalid(p + "/col", "percentile applies to integer, decimal and f64 columns; '" + c.name()
                + "' is " + c.typeName());
        }
        if (a.p() == null || !(a.p() >= 0 && a.p() <= 100)) {
            throw Binder.invalid(p + "/p", "percentile needs \"p\" between 0 and 100");
        }
        out[0] = new ResultColumn(name, "f64", true, Math.pow(10, -PercentileAcc.DIGITS));
        final int s = binder.slot(c.index());
        final boolean f64 = c.type() == ColumnType.F64;
        final double pct = a.p();
        if (pct == 0 || pct == 100) { // rank 1 or n: the smallest or largest value, kept exactly in one per group
            final boolean max = pct == 100;
            if (prod != null) {
                final int cb = cs[1].index();
                return () -> new ProductMinMaxAcc(prod, max, c.index(), cb, true);
            }
            final TableSnapshot snap = binder.snap;
            return () -> new MinMaxAcc(s, c, max, snap, true);
        }
        // a second percentile of the same values reads the first one's buckets instead of recording them again
        final int owner = percentileOwners.computeIfAbsent(c.index() + "*" + (cs.length > 1 ? cs[1].index() : -1),
            k -> aggregates);
        final int self = aggregates;
        final long exactBudget = PercentileAcc.exactBudgetBytes();
        return () -> new PercentileAcc(s, f64, c.scale(), pct, prod, owner == self ? -1 : owner, exactBudget);
    }

    /** @return the accumulator of a count of distinct values; {@code out[0]} receives its output column. */
    private Supplier<Acc> countDistinct(final Agg a, final String p, final AggOp op, final ResultColumn[] out) {
        final String name = a.name();
        final Column[] cs = operand(a.col(), p + "/col", true, "countDistinct");
        final Column c = cs[0];
        final Product prod = product(cs);
        out[0] = new ResultColumn(name, "i64");
        final int s = binder.slot(c.index());
        final boolean f64 = c.type() == ColumnType.F64;
        final long[] range = prod == null && !f64 ? valueRange(c) : null;
        if (range == null) {
            return () -> new DistinctAcc(s, f64, prod);
        }
        return () -> new DistinctAcc(s, f64, null).withRange(range[0], range[1]);
    }

    /** @return the smallest and largest value of an integral column in the snapshot (symbol codes: the dictionary). */
    private long[] valueRange(final Column c) {
        final io.tradestore.core.TableSnapshot snap = binder.snap;
        if (c.type() == ColumnType.SYMBOL) {
            return new long[] {0, snap.dictionarySize(c.index()) - 1L};
        }
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        for (int i = snap.firstSegment(); i < snap.segmentCount(); i++) {
            lo = Math.min(lo, snap.segment(i).zoneMin(-1, c.index()));
            hi = Math.max(hi, snap.segment(i).zoneMax(-1, c.index()));
        }
        return new long[] {lo, hi};
    }
}
