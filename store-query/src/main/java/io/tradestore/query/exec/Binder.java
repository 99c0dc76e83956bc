package io.tradestore.query.exec;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.Period;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.tradestore.core.StoreException;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;
import io.tradestore.query.ResultColumn;
import io.tradestore.query.model.Agg;
import io.tradestore.query.model.AggOp;
import io.tradestore.query.model.Filter;
import io.tradestore.query.model.GroupKey;
import io.tradestore.query.model.OrderKey;
import io.tradestore.query.model.Query;
import io.tradestore.query.parse.QueryParser;

/**
 * Binds a {@link Query} to a snapshot: resolves columns, types every literal by its column (exactly: decimals never go
 * through a double), pushes NOT into the leaves, picks a key mode from the zone-map ranges, and chooses one
 * accumulator class per aggregate. Every error names its JSON path.
 */
final class Binder {
    /** Default cap on groups ({@code options.maxGroups}). */
    static final long DEFAULT_MAX_GROUPS = 1_000_000;
    /** Default and largest scan limits. */
    static final long DEFAULT_SCAN_LIMIT = 10_000;
    static final long MAX_SCAN_LIMIT = 1_000_000;
    private static final long DENSE_MAX = 1 << 16;
    private static final Pattern SHORT_DURATION = Pattern.compile("(\\d+)(ns|us|ms|s|m|h|d)");

    private final Query q;
    private final TableSnapshot snap;
    private final Schema schema;
    private final Plan plan = new Plan();
    private final Map<Integer, Integer> slots = new HashMap<>();
    /** The query's time range, inclusive (every row outside it is filtered out): keys on the timestamp need no more. */
    private long timeLo = Long.MIN_VALUE;
    private long timeHi = Long.MAX_VALUE;
    /** Slots read by aggregates (collected once the keys are bound). */
    private Set<Integer> accSlots;

    private Binder(final Query q, final TableSnapshot snap) {
        this.q = q;
        this.snap = snap;
        this.schema = snap.schema();
    }

    static Plan bind(final Query q, final TableSnapshot snap, final long startNanos) {
        return new Binder(q, snap).bind(startNanos);
    }

    private Plan bind(final long startNanos) {
        plan.query = q;
        plan.snap = snap;
        plan.schema = schema;
        plan.maxGroups = q.options().maxGroups() != null ? q.options().maxGroups() : DEFAULT_MAX_GROUPS;
        if (q.options().timeoutMs() != null) {
            // a limit of centuries means none: saturate, or the product or the sum overflows into a deadline in the past
            plan.deadlineNanos = deadline(startNanos, q.options().timeoutMs());
        }
        plan.epochNanos = Boolean.TRUE.equals(q.options().epochNanos());
        bindFilter();
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
        }
        for (final Map.Entry<Integer, Integer> e : slots.entrySet()) {
            plan.slotColumn[e.getValue()] = e.getKey();
        }
        return plan;
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

    private int slot(final int column) {
        final int s = slots.computeIfAbsent(column, c -> slots.size());
        if (accSlots != null) {
            accSlots.add(s);
        }
        return s;
    }

    private Column column(final String name, final String path) {
        if (name == null) {
            throw invalid(path, "missing column name");
        }
        final int i = schema.indexOf(name);
        if (i < 0) {
            throw new QueryException(ErrorCode.UNKNOWN_COLUMN, "unknown column '" + StoreException.echo(name) + "' in table '" + schema.name()
                + "'; columns are " + schema.columnNames(), path);
        }
        return schema.column(i);
    }

    private static QueryException invalid(final String path, final String message) {
        return new QueryException(ErrorCode.INVALID_QUERY, message, path);
    }

    // ---------------------------------------------------------------- filter

    private void bindFilter() {
        final List<FilterNode> conj = new ArrayList<>();
        if (q.time() != null) {
            final int ts = schema.timestampIndex();
            if (ts < 0) {
                throw invalid("/time", "table '" + schema.name() + "' has no designated timestamp; filter a timestamp column with range");
            }
            final long from = q.time().from() == null ? Long.MIN_VALUE + 1 : timestamp(q.time().from(), "/time/from");
            final long to = q.time().to() == null ? Long.MAX_VALUE : timestamp(q.time().to(), "/time/to");
            final Column c = schema.column(ts);
            timeLo = from;
            timeHi = to == Long.MIN_VALUE ? Long.MIN_VALUE : to - 1;
            conj.add(new IntRangeFilter(ts, c.width(), c.type().nullBits(), timeLo, timeHi, false));
        }
        if (q.filter() != null) {
            final FilterNode f = filter(q.filter(), "/filter", false);
            if (f instanceof LogicFilter && ((LogicFilter) f).and) {
                conj.addAll(Arrays.asList(((LogicFilter) f).args));
            } else {
                conj.add(f);
            }
        }
        plan.conjuncts = conj.toArray(new FilterNode[0]);
        plan.filter = conj.isEmpty() ? null : conj.size() == 1 ? conj.get(0) : new LogicFilter(true, plan.conjuncts);
    }

    private FilterNode filter(final Filter f, final String p, final boolean negate) {
        if (f == null) {
            throw invalid(p, "missing filter");
        }
        QueryParser.checkFilterDepth(p);
        if (f instanceof Filter.And || f instanceof Filter.Or) {
            final boolean and = f instanceof Filter.And;
            final List<Filter> args = and ? ((Filter.And) f).args() : ((Filter.Or) f).args();
            if (args.isEmpty()) {
                throw invalid(p + "/args", (and ? "and" : "or") + " needs at least one argument");
            }
            final List<FilterNode> nodes = new ArrayList<>();
            for (int i = 0; i < args.size(); i++) {
                final FilterNode n = filter(args.get(i), p + "/args/" + i, negate);
                final boolean merged = and != negate;
                if (n instanceof LogicFilter && ((LogicFilter) n).and == merged) {
                    nodes.addAll(Arrays.asList(((LogicFilter) n).args));
                } else {
                    nodes.add(n);
                }
            }
            return nodes.size() == 1 ? nodes.get(0) : new LogicFilter(and != negate, nodes.toArray(new FilterNode[0]));
        }
        if (f instanceof Filter.Not) {
            if (((Filter.Not) f).arg() == null) {
                throw invalid(p + "/arg", "not needs an argument");
            }
            return filter(((Filter.Not) f).arg(), p + "/arg", !negate);
        }
        if (f instanceof Filter.Eq) {
            final Filter.Eq e = (Filter.Eq) f;
            return leafIn(column(e.col(), p + "/col"), "eq", List.of(nonNull(e.value(), p + "/value")), p, "/value", negate);
        }
        if (f instanceof Filter.Ne) {
            final Filter.Ne e = (Filter.Ne) f;
            return leafIn(column(e.col(), p + "/col"), "ne", List.of(nonNull(e.value(), p + "/value")), p, "/value", !negate);
        }
        if (f instanceof Filter.In) {
            final Filter.In e = (Filter.In) f;
            if (e.values().isEmpty()) {
                throw invalid(p + "/values", "in needs at least one value");
            }
            return leafIn(column(e.col(), p + "/col"), "in", e.values(), p, "/values/", negate);
        }
        final Filter.Range r = (Filter.Range) f;
        return leafRange(column(r.col(), p + "/col"), r, p, negate);
    }

    private static Object nonNull(final Object v, final String p) {
        if (v == null) {
            throw invalid(p, "value must not be null");
        }
        return v;
    }

    private FilterNode leafIn(final Column c, final String op, final List<Object> values, final String p, final String valuePath,
                              final boolean negated) {
        final boolean many = valuePath.endsWith("/");
        if (c.type() == ColumnType.F64) {
            final double[] set = new double[values.size()];
            for (int i = 0; i < set.length; i++) {
                final double d = number(values.get(i), c, p + valuePath + (many ? i : "")).doubleValue();
                set[i] = d == 0.0 ? 0.0 : d;
            }
            Arrays.sort(set);
            return new DoubleFilter(c.index(), 0, false, 0, false, set, negated);
        }
        final TreeSet<Long> set = new TreeSet<>();
        for (int i = 0; i < values.size(); i++) {
            final String vp = p + valuePath + (many ? i : "");
            final Object v = nonNull(values.get(i), vp);
            switch (c.type()) {
                case SYMBOL: {
                    if (!(v instanceof String)) {
                        throw invalid(vp, "column '" + c.name() + "' is a symbol: values are strings");
                    }
                    final int code = snap.findSymbol(c.index(), (String) v);
                    if (code >= 0) {
                        set.add((long) code);
                    }
                    break;
                }
                case CHAR:
                    set.add(charValue(c, v, vp));
                    break;
                case TIMESTAMP:
                    set.add(timestamp(v, vp));
                    break;
                default: {
                    final BigDecimal m = number(v, c, vp).movePointRight(c.scale());
                    if (m.signum() == 0 || m.stripTrailingZeros().scale() <= 0) {
                        if (m.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0 && m.compareTo(BigDecimal.valueOf(Long.MIN_VALUE + 1)) >= 0) {
                            final long x = m.longValueExact();
                            if (fits(c, x)) {
                                set.add(x);
                            }
                        }
                    }
                    break;
                }
            }
        }
        final long[] arr = set.stream().mapToLong(Long::longValue).toArray();
        final long nul = c.type().nullBits();
        if (arr.length == 1) {
            return new IntRangeFilter(c.index(), c.width(), nul, arr[0], arr[0], negated);
        }
        if (arr.length == 0) {
            return new IntRangeFilter(c.index(), c.width(), nul, 1, 0, negated);
        }
        return new IntSetFilter(c.index(), c.width(), nul, arr, negated);
    }

    private static boolean fits(final Column c, final long x) {
        switch (c.type()) {
            case I8:
                return x > Byte.MIN_VALUE && x <= Byte.MAX_VALUE;
            case I16:
                return x > Short.MIN_VALUE && x <= Short.MAX_VALUE;
            case I32:
                return x > Integer.MIN_VALUE && x <= Integer.MAX_VALUE;
            default:
                return x != Long.MIN_VALUE;
        }
    }

    private long charValue(final Column c, final Object v, final String p) {
        if (!(v instanceof String) || ((String) v).length() != 1 || ((String) v).charAt(0) == 0 || ((String) v).charAt(0) > 127) {
            throw invalid(p, "column '" + c.name() + "' is a char: values are one-character ASCII strings such as \"B\"");
        }
        return ((String) v).charAt(0);
    }

    private FilterNode leafRange(final Column c, final Filter.Range r, final String p, final boolean negated) {
        if (r.gt() != null && r.gte() != null || r.lt() != null && r.lte() != null) {
            throw invalid(p, "a range takes at most one of gt/gte and one of lt/lte");
        }
        if (r.gt() == null && r.gte() == null && r.lt() == null && r.lte() == null) {
            throw invalid(p, "a range needs at least one of gt gte lt lte");
        }
        final Object lower = r.gt() != null ? r.gt() : r.gte();
        final Object upper = r.lt() != null ? r.lt() : r.lte();
        final String lowerPath = p + (r.gt() != null ? "/gt" : "/gte");
        final String upperPath = p + (r.lt() != null ? "/lt" : "/lte");
        switch (c.type()) {
            case SYMBOL:
                throw invalid(p + "/op", "range does not apply to symbol column '" + c.name() + "'; use eq, ne or in");
            case F64: {
                final double lo = lower == null ? Double.NEGATIVE_INFINITY : number(lower, c, lowerPath).doubleValue();
                final double hi = upper == null ? Double.POSITIVE_INFINITY : number(upper, c, upperPath).doubleValue();
                return new DoubleFilter(c.index(), lo, lower == null || r.gte() != null, hi, upper == null || r.lte() != null, null, negated);
            }
            case CHAR: {
                long lo = lower == null ? 1 : charValue(c, lower, lowerPath);
                long hi = upper == null ? 127 : charValue(c, upper, upperPath);
                lo += r.gt() != null ? 1 : 0;
                hi -= r.lt() != null ? 1 : 0;
                return new IntRangeFilter(c.index(), c.width(), c.type().nullBits(), lo, hi, negated);
            }
            default:
                break;
        }
        long lo = Long.MIN_VALUE + 1;
        long hi = Long.MAX_VALUE;
        if (lower != null) {
            final BigDecimal x = c.type() == ColumnType.TIMESTAMP ? BigDecimal.valueOf(timestamp(lower, lowerPath))
                : number(lower, c, lowerPath).movePointRight(c.scale());
            lo = clamp(r.gt() != null ? x.setScale(0, RoundingMode.FLOOR).add(BigDecimal.ONE) : x.setScale(0, RoundingMode.CEILING));
        }
        if (upper != null) {
            final BigDecimal x = c.type() == ColumnType.TIMESTAMP ? BigDecimal.valueOf(timestamp(upper, upperPath))
                : number(upper, c, upperPath).movePointRight(c.scale());
            hi = clamp(r.lt() != null ? x.setScale(0, RoundingMode.CEILING).subtract(BigDecimal.ONE) : x.setScale(0, RoundingMode.FLOOR));
        }
        return new IntRangeFilter(c.index(), c.width(), c.type().nullBits(), lo, hi, negated);
    }

    private static long clamp(final BigDecimal x) {
        if (x.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            return Long.MAX_VALUE;
        }
        if (x.compareTo(BigDecimal.valueOf(Long.MIN_VALUE + 1)) < 0) {
            return Long.MIN_VALUE + 1;
        }
        return x.longValueExact();
    }

    private static BigDecimal number(final Object v, final Column c, final String p) {
        final boolean integral = c.type() != ColumnType.DECIMAL && c.type() != ColumnType.F64;
        final BigDecimal d;
        if (v instanceof Long) {
            d = BigDecimal.valueOf((Long) v);
        } else if (v instanceof Integer) {
            d = BigDecimal.valueOf((Integer) v);
        } else if (v instanceof BigInteger) {
            d = new BigDecimal((BigInteger) v);
        } else if (v instanceof BigDecimal) {
            d = (BigDecimal) v;
        } else if (v instanceof Double || v instanceof Float) {
            if (c.type() == ColumnType.DECIMAL) {
                throw invalid(p, "decimal values are given as JSON numbers or strings, never as Java doubles; use BigDecimal or a String");
            }
            d = new BigDecimal(((Number) v).doubleValue());
        } else if (v instanceof String && c.type() == ColumnType.DECIMAL) {
            d = decimalText((String) v, p, "a decimal number for column '" + c.name() + "' (" + c.typeName() + ")");
        } else {
            throw invalid(p, "column '" + c.name() + "' is " + c.typeName() + ": values are "
                + (c.type() == ColumnType.DECIMAL ? "numbers or decimal strings" : integral ? "integers" : "numbers"));
        }
        if (integral && d.signum() != 0 && d.stripTrailingZeros().scale() > 0) {
            throw invalid(p, "column '" + c.name() + "' is " + c.typeName() + ": values are integers, not " + d.toString());
        }
        return c.type() == ColumnType.F64 ? d : tame(d);
    }

    /**
     * The longest decimal text read, as for a JSON number (Jackson's default limit): reading is quadratic in its length
     * (JDK 17 here: 148 ms for 100,000 digits, 13.9 s for 1,000,000; {@code DecimalCostProbe} in the tests gives the command).
     */
    static final int MAX_DECIMAL_TEXT_LENGTH = 1000;

    /**
     * Reads a decimal given as a string.
     *
     * @param v    the text.
     * @param p    JSON path.
     * @param what what it must be, for the message.
     * @return its exact value.
     */
    private static BigDecimal decimalText(final String v, final String p, final String what) {
        final String t = v.trim();
        if (t.length() > MAX_DECIMAL_TEXT_LENGTH) {
            throw invalid(p, "a string of " + t.length() + " characters is not " + what + "; decimal strings have at most "
                + MAX_DECIMAL_TEXT_LENGTH + " characters");
        }
        try {
            return new BigDecimal(t);
        } catch (final NumberFormatException e) {
            throw invalid(p, "'" + StoreException.echo(v) + "' is not " + what);
        }
    }

    /** Beyond every long mantissa of every decimal scale (0-18), with room for the scale. */
    private static final BigDecimal HUGE = BigDecimal.ONE.scaleByPowerOfTen(40);
    /** Below every nonzero decimal of every scale. */
    private static final int TINY_SCALE = 60;

    /**
     * Brings a literal with an extreme exponent ({@code 1e1000000000}, {@code 1e-1000000000}) within ±1e40 and at most
     * 60 fraction digits below its first digit, keeping how it compares with every integer mantissa of every scale:
     * moving its point or rounding it to an integer would otherwise compute ten to the power of its exponent (a
     * BigInteger overflow, or seconds of work per literal: 0.35 s for 1e1000000, 3.0 s for 1e10000000, JDK 17 here by
     * {@code DecimalCostProbe} in the tests).
     *
     * @param d a literal for an integer or decimal column.
     * @return an equivalent literal of bounded size.
     */
    static BigDecimal tame(final BigDecimal d) {
        if (d.compareTo(HUGE) > 0) {
            return HUGE;
        }
        if (d.compareTo(HUGE.negate()) < 0) {
            return HUGE.negate();
        }
        if (d.signum() != 0 && (long) d.scale() - d.precision() > TINY_SCALE) {
            // |d| < 1e-60: as far from every mantissa as any such value, and still on its side of zero
            return BigDecimal.valueOf(d.signum(), TINY_SCALE);
        }
        return d;
    }

    /**
     * @param v an ISO-8601 string ({@code 2026-11-17T10:00:00Z}, an offset, or a date) or epoch nanoseconds.
     * @param p JSON path.
     * @return epoch nanoseconds.
     */
    static long timestamp(final Object v, final String p) {
        if (v instanceof Long || v instanceof Integer) {
            return ((Number) v).longValue();
        }
        if (v instanceof String) {
            final String s = ((String) v).trim();
            final long fast = utc(s);
            if (fast != Long.MIN_VALUE) {
                return fast;
            }
            Instant i;
            try {
                i = OffsetDateTime.parse(s).toInstant();
            } catch (final DateTimeParseException e) {
                try {
                    i = LocalDate.parse(s).atStartOfDay().toInstant(ZoneOffset.UTC);
                } catch (final DateTimeParseException e2) {
                    throw invalid(p, zoneless(s) ? "'" + s + "' has no zone; add Z for UTC or an offset such as +01:00 (as the loader asks)"
                        : "'" + s + "' is not an ISO-8601 timestamp such as 2026-11-17T10:00:00.000441Z");
                }
            }
            try {
                return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000_000L), i.getNano());
            } catch (final ArithmeticException e) {
                throw invalid(p, "'" + s + "' is outside the nanosecond timestamp range (years 1677-2262)");
            }
        }
        throw invalid(p, "timestamps are ISO-8601 strings or integer epoch nanoseconds");
    }

    /**
     * A date and time with no zone was read as UTC before; a user in another zone who typed local time got a silently
     * shifted range, while the CSV loader refuses the same text.
     */
    private static boolean zoneless(final String s) {
        try {
            java.time.LocalDateTime.parse(s);
            return true;
        } catch (final DateTimeParseException e) {
            return false;
        }
    }

    private static final int[] MONTH_DAYS = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

    /**
     * The common form {@code YYYY-MM-DDTHH:MM:SS[.fraction]Z} without a parser's allocations (OffsetDateTime.parse was
     * ~7% of the bytes a window query allocated over HTTP: docs/benchmarks.md, "HTTP", session 4).
     *
     * @param s a timestamp text.
     * @return its epoch nanoseconds, or Long.MIN_VALUE for any other form or an invalid or out-of-range value (which
     *     the full parser then reads or rejects with its message).
     */
    static long utc(final String s) {
        final int n = s.length();
        if (n < 20 || n > 30 || s.charAt(n - 1) != 'Z' || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(10) != 'T'
            || s.charAt(13) != ':' || s.charAt(16) != ':' || n > 20 && (s.charAt(19) != '.' || n == 21)) {
            return Long.MIN_VALUE;
        }
        final int y = digits(s, 0, 4);
        final int m = digits(s, 5, 2);
        final int d = digits(s, 8, 2);
        final int h = digits(s, 11, 2);
        final int mi = digits(s, 14, 2);
        final int sec = digits(s, 17, 2);
        final int fraction = n > 20 ? digits(s, 20, n - 21) : 0;
        if ((y | m | d | h | mi | sec | fraction) < 0 || m < 1 || m > 12 || d < 1 || h > 23 || mi > 59 || sec > 59) {
            return Long.MIN_VALUE;
        }
        final boolean leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
        if (d > MONTH_DAYS[m - 1] + (m == 2 && leap ? 1 : 0)) {
            return Long.MIN_VALUE;
        }
        // days from the civil date (proleptic Gregorian), as in java.time
        final int yy = m <= 2 ? y - 1 : y;
        final int era = Math.floorDiv(yy, 400);
        final int yoe = yy - era * 400;
        final int doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
        final long day = era * 146_097L + yoe * 365L + yoe / 4 - yoe / 100 + doy - 719_468L;
        long nanos = fraction;
        for (int k = n - 21; k < 9 && n > 20; k++) {
            nanos *= 10;
        }
        final long seconds = day * 86_400L + h * 3_600L + mi * 60L + sec;
        // the nanosecond range (1677-2262): outside it the full parser names the problem
        if (seconds < -9_223_372_036L || seconds > 9_223_372_035L) {
            return Long.MIN_VALUE;
        }
        return seconds * 1_000_000_000L + nanos;
    }

    /** @return the non-negative number written by {@code len} ASCII digits at {@code from}, or -1. */
    private static int digits(final String s, final int from, final int len) {
        int v = 0;
        for (int i = from; i < from + len; i++) {
            final int c = s.charAt(i) - '0';
            if (c < 0 || c > 9) {
                return -1;
            }
            v = v * 10 + c;
        }
        return v;
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
            throw invalid("/limit", "a scan returns at most " + MAX_SCAN_LIMIT + " rows; aggregate instead, or page with a time range");
        }
        plan.limit = limit;
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
                    throw invalid(p + "/col", "a time bucket needs a timestamp column; '" + c.name() + "' is " + c.typeName());
                }
                if (bucketSeen) {
                    throw invalid(p + "/bucket", "at most one time bucket per query");
                }
                bucketSeen = true;
                months = bucketMonths(g.bucket(), p + "/bucket");
                width = months > 0 ? 0 : bucketNanos(g.bucket(), p + "/bucket");
            } else if (c.type() == ColumnType.F64) {
                throw invalid(p, "group keys are symbol, char, integer, decimal or timestamp columns; '" + c.name() + "' is f64");
            }
            final String name = g.outputName();
            if (!names.add(name)) {
                throw invalid(g.as() != null ? p + "/as" : p, "output name '" + name + "' is used twice; give the key another name with \"as\"");
            }
            final KeySpec k = new KeySpec(slot(c.index()), c, width, months, name);
            keys.add(k);
            out.add(new ResultColumn(name, k.type));
        }
        plan.keys = keys.toArray(new KeySpec[0]);
        chooseKeyMode();
        accSlots = new HashSet<>();
        final List<Supplier<Acc>> accs = new ArrayList<>();
        boolean allZone = plan.keys.length == 0 && plan.filter == null;
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
            accs.add(aggregate(a, p, col));
            out.add(col[0]);
        }
        plan.accs = accs;
        plan.zoneShortcut = allZone;
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
            plan.having = having(q.having(), "/having", false, outNames, out);
        }
        plan.orderIndex = new int[q.orderBy().size()];
        plan.orderDesc = new boolean[q.orderBy().size()];
        for (int i = 0; i < q.orderBy().size(); i++) {
            final OrderKey o = q.orderBy().get(i);
            final int idx = outNames.indexOf(o.col());
            if (idx < 0) {
                throw new QueryException(ErrorCode.UNKNOWN_COLUMN, "orderBy names an output column; '" + o.col() + "' is not one of " + outNames,
                    orderPath(o, i));
            }
            plan.orderIndex[i] = idx;
            plan.orderDesc[i] = o.desc();
        }
        plan.limit = q.limit() == null ? Long.MAX_VALUE : q.limit();
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

    /**
     * @param text a bucket.
     * @param p    its JSON path.
     * @return the months of a calendar bucket ({@code P1M}, {@code P3M}, {@code P1Y}, {@code P1Y6M}: whole months and
     *     years, nothing else), or 0 for any other bucket.
     */
    static int bucketMonths(final String text, final String p) {
        final String upper = text.toUpperCase(Locale.ROOT);
        if (!CALENDAR_BUCKET.matcher(upper).matches()) {
            return 0;
        }
        final Period period;
        try {
            period = Period.parse(upper);
        } catch (final DateTimeParseException e) {
            return 0; // named by bucketNanos
        }
        final long months = period.toTotalMonths();
        if (months <= 0 || months > 12 * 1000) {
            throw invalid(p, "bucket '" + text + "' must be between one month and 1000 years");
        }
        return (int) months;
    }

    /** Years and/or months only: {@code P1M}, {@code P1Y}, {@code P1Y6M}. */
    private static final Pattern CALENDAR_BUCKET = Pattern.compile("P(\\d+Y)?(\\d+M)?");

    static long bucketNanos(final String text, final String p) {
        final Matcher m = SHORT_DURATION.matcher(text);
        long nanos;
        try {
            if (m.matches()) {
                final long n = Long.parseLong(m.group(1));
                final long unit;
                switch (m.group(2)) {
                    case "ns":
                        unit = 1;
                        break;
                    case "us":
                        unit = 1_000;
                        break;
                    case "ms":
                        unit = 1_000_000;
                        break;
                    case "s":
                        unit = 1_000_000_000L;
                        break;
                    case "m":
                        unit = 60_000_000_000L;
                        break;
                    case "h":
                        unit = 3_600_000_000_000L;
                        break;
                    default:
                        unit = 86_400_000_000_000L;
                        break;
                }
                nanos = Math.multiplyExact(n, unit);
            } else {
                final String upper = text.toUpperCase(Locale.ROOT);
                if (upper.startsWith("P") && !upper.contains("T") && (upper.endsWith("W") || upper.endsWith("D"))) {
                    final Period period = Period.parse(upper);
                    if (period.getYears() != 0 || period.getMonths() != 0) {
                        throw invalid(p, "a bucket of calendar months and years takes no days or weeks (P1M, P3M, P1Y, P1Y6M); '" + text
                            + "' mixes them");
                    }
                    nanos = Math.multiplyExact(period.getDays(), 86_400_000_000_000L);
                } else {
                    nanos = Duration.parse(upper).toNanos();
                }
            }
        } catch (final DateTimeParseException | ArithmeticException | NumberFormatException e) {
            throw invalid(p, "bucket '" + text + "' is not a duration; use 1s 1m 5m 15m 1h 1d or an ISO-8601 duration such as PT30S or P1D");
        }
        if (nanos <= 0) {
            throw invalid(p, "bucket '" + text + "' must be a positive duration");
        }
        return nanos;
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
                for (int s = 0; s < snap.segmentCount(); s++) {
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

    private static boolean numeric(final ColumnType t) {
        return t == ColumnType.I8 || t == ColumnType.I16 || t == ColumnType.I32 || t == ColumnType.I64 || t == ColumnType.DECIMAL
            || t == ColumnType.F64;
    }

    private Column[] operand(final String col, final String p, final boolean productAllowed, final String op) {
        if (col == null) {
            throw invalid(p, op + " needs \"col\"");
        }
        final int star = col.indexOf('*');
        if (star >= 0) {
            if (!productAllowed) {
                throw invalid(p, "a product a*b is not allowed in " + op);
            }
            if (col.indexOf('*', star + 1) >= 0) {
                throw invalid(p, "a product has two factors, a*b; '" + col + "' has more");
            }
            final Column a = column(col.substring(0, star).trim(), p);
            final Column b = column(col.substring(star + 1).trim(), p);
            if (!numeric(a.type()) || !numeric(b.type())) {
                throw invalid(p, "a product multiplies numeric columns (integers, decimals, f64); " + a.name() + " is " + a.typeName() + ", "
                    + b.name() + " is " + b.typeName());
            }
            return new Column[] {a, b};
        }
        return new Column[] {column(col.trim(), p)};
    }

    /** @param cs one column, or two for a product. @return the product operand (its slots allocated), or null. */
    private Product product(final Column[] cs) {
        if (cs.length < 2) {
            return null;
        }
        return new Product(slot(cs[0].index()), cs[0].type() == ColumnType.F64, cs[0].scale(), slot(cs[1].index()),
            cs[1].type() == ColumnType.F64, cs[1].scale());
    }

    private Supplier<Acc> aggregate(final Agg a, final String p, final ResultColumn[] out) {
        final String name = a.name();
        final AggOp op = AggOp.of(a.op()); // a.op() is never null: the Query's constructor checks it
        if (op == null) {
            throw invalid(p + "/op", "unknown aggregate '" + a.op() + "'; use one of " + AggOp.NAMES);
        }
        switch (op) {
            case COUNT: {
                out[0] = new ResultColumn(name, "i64");
                if (a.col() == null) {
                    return RowCountAcc::new;
                }
                final Column[] cs = operand(a.col(), p + "/col", true, "count");
                final Column c = cs[0];
                final int s = slot(c.index());
                final boolean f64 = c.type() == ColumnType.F64;
                final Product prod = product(cs);
                final int colB = cs.length < 2 ? -1 : cs[1].index();
                return () -> new CountAcc(s, f64, prod, c.index(), colB);
            }
            case SUM:
            case AVG: {
                final boolean avg = op == AggOp.AVG;
                final Column[] cs = operand(a.col(), p + "/col", true, a.op());
                for (final Column c : cs) {
                    if (!numeric(c.type())) {
                        throw invalid(p + "/col", a.op() + " applies to integer, decimal and f64 columns; '" + c.name() + "' is " + c.typeName());
                    }
                }
                final Column x = cs[0];
                final Column y = cs.length > 1 ? cs[1] : null;
                final int sx = slot(x.index());
                final int sy = y == null ? -1 : slot(y.index());
                if (x.type() == ColumnType.F64 || y != null && y.type() == ColumnType.F64) {
                    out[0] = new ResultColumn(name, "f64");
                    final boolean fx = x.type() == ColumnType.F64;
                    final boolean fy = y != null && y.type() == ColumnType.F64;
                    final int scx = x.scale();
                    final int scy = y == null ? 0 : y.scale();
                    plan.fixedMorselOrder = true;
                    return () -> new DoubleSumAcc(sx, fx, scx, sy, fy, scy, avg);
                }
                final int scale = x.scale() + (y == null ? 0 : y.scale());
                out[0] = new ResultColumn(name, avg ? "f64" : "decimal(" + scale + ")");
                final int cx = x.index();
                final int cy = y == null ? -1 : y.index();
                return () -> new SumAcc(sx, cx, sy, cy, scale, avg);
            }
            case MIN:
            case MAX: {
                final Column[] cs = operand(a.col(), p + "/col", true, a.op());
                final Column c = cs[0];
                if (cs.length == 2) {
                    final Product prod = product(cs);
                    final boolean max = op == AggOp.MAX;
                    out[0] = new ResultColumn(name, prod.type());
                    return () -> new ProductMinMaxAcc(prod, max);
                }
                if (!numeric(c.type()) && c.type() != ColumnType.TIMESTAMP) {
                    throw invalid(p + "/col", a.op() + " applies to integer, decimal, f64 and timestamp columns; '" + c.name() + "' is "
                        + c.typeName());
                }
                out[0] = new ResultColumn(name, c.typeName());
                final int s = slot(c.index());
                final boolean max = op == AggOp.MAX;
                return () -> new MinMaxAcc(s, c, max, snap);
            }
            case FIRST:
            case LAST: {
                final Column[] cs = operand(a.col(), p + "/col", true, a.op());
                final Column c = cs[0];
                final Product prod = product(cs);
                final int ts = schema.timestampIndex();
                if (ts < 0) {
                    throw invalid(p + "/op", a.op() + " is by the designated timestamp, and table '" + schema.name() + "' has none");
                }
                out[0] = new ResultColumn(name, prod != null ? prod.type() : c.typeName());
                final int s = slot(c.index());
                final int st = slot(ts);
                final boolean last = op == AggOp.LAST;
                return () -> new FirstLastAcc(st, s, c, last, snap, prod);
            }
            case VWAP: {
                final Column pc;
                final Column qc;
                if (a.col() != null) {
                    final Column[] cs = operand(a.col(), p + "/col", true, "vwap");
                    if (cs.length != 2) {
                        throw invalid(p + "/col", "vwap takes \"price*quantity\" (or no col, for columns price and quantity)");
                    }
                    // the volume is the factor named quantity, as vwap without col takes it, in either order (quantity*price
                    // gave sum(p*q)/sum(p) before); else the second factor as written. Not by types: a price in integer
                    // ticks and a decimal quantity, or two decimals, would be guessed wrong
                    final boolean swap = "quantity".equals(cs[0].name()) && !"quantity".equals(cs[1].name());
                    pc = swap ? cs[1] : cs[0];
                    qc = swap ? cs[0] : cs[1];
                } else {
                    if (schema.indexOf("price") < 0 || schema.indexOf("quantity") < 0) {
                        throw new QueryException(ErrorCode.UNKNOWN_COLUMN, "vwap without col needs columns price and quantity; give \"col\": "
                            + "\"<price>*<quantity>\"", p + "/col");
                    }
                    pc = schema.column(schema.indexOf("price"));
                    qc = schema.column(schema.indexOf("quantity"));
                }
                for (final Column c : new Column[] {pc, qc}) {
                    if (!numeric(c.type()) || c.type() == ColumnType.F64) {
                        throw invalid(p + "/col", "vwap needs integer or decimal price and quantity; '" + c.name() + "' is " + c.typeName());
                    }
                }
                out[0] = new ResultColumn(name, "f64");
                final int sp = slot(pc.index());
                final int sq = slot(qc.index());
                return () -> new VwapAcc(sp, pc.index(), pc.scale(), sq, qc.index(), qc.scale());
            }
            case PERCENTILE: {
                final Column[] cs = operand(a.col(), p + "/col", true, "percentile");
                final Column c = cs[0];
                final Product prod = product(cs);
                if (!numeric(c.type())) {
                    throw invalid(p + "/col", "percentile applies to integer, decimal and f64 columns; '" + c.name() + "' is " + c.typeName());
                }
                if (a.p() == null || !(a.p() >= 0 && a.p() <= 100)) {
                    throw invalid(p + "/p", "percentile needs \"p\" between 0 and 100");
                }
                out[0] = new ResultColumn(name, "f64", true, Math.pow(10, -PercentileAcc.DIGITS));
                final int s = slot(c.index());
                final boolean f64 = c.type() == ColumnType.F64;
                final double pct = a.p();
                return () -> new PercentileAcc(s, f64, c.scale(), pct, prod);
            }
            case COUNT_DISTINCT: {
                final Column[] cs = operand(a.col(), p + "/col", true, "countDistinct");
                final Column c = cs[0];
                final Product prod = product(cs);
                out[0] = new ResultColumn(name, "i64");
                final int s = slot(c.index());
                final int kind = c.type() == ColumnType.F64 ? 2 : c.width() <= 4 ? 0 : 1;
                return () -> new DistinctAcc(s, kind, prod);
            }
            default:
                throw new IllegalStateException("aggregate " + op + " has no accumulator");
        }
    }

    // ---------------------------------------------------------------- having

    private RowPredicate having(final Filter f, final String p, final boolean negate, final List<String> names, final List<ResultColumn> out) {
        if (f == null) {
            throw invalid(p, "missing filter");
        }
        QueryParser.checkFilterDepth(p);
        if (f instanceof Filter.And || f instanceof Filter.Or) {
            final boolean and = f instanceof Filter.And;
            final List<Filter> args = and ? ((Filter.And) f).args() : ((Filter.Or) f).args();
            if (args.isEmpty()) {
                throw invalid(p + "/args", "needs at least one argument");
            }
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
            throw new QueryException(ErrorCode.UNKNOWN_COLUMN, "having names an output column; '" + col + "' is not one of " + names, p + "/col");
        }
        final String type = out.get(idx).type();
        if (f instanceof Filter.Eq) {
            return new RowPredicate.Leaf(idx, null, false, null, false, new Object[] {outValue(((Filter.Eq) f).value(), type, p + "/value")},
                negate);
        }
        if (f instanceof Filter.Ne) {
            return new RowPredicate.Leaf(idx, null, false, null, false, new Object[] {outValue(((Filter.Ne) f).value(), type, p + "/value")},
                !negate);
        }
        if (f instanceof Filter.In) {
            final List<Object> vs = ((Filter.In) f).values();
            final Object[] set = new Object[vs.size()];
            for (int i = 0; i < set.length; i++) {
                set[i] = outValue(vs.get(i), type, p + "/values/" + i);
            }
            return new RowPredicate.Leaf(idx, null, false, null, false, set, negate);
        }
        final Filter.Range r = (Filter.Range) f;
        if (type.equals("symbol")) {
            throw invalid(p + "/op", "range does not apply to symbol output '" + col + "'; use eq, ne or in");
        }
        final Object lo = r.gt() != null ? outValue(r.gt(), type, p + "/gt") : r.gte() != null ? outValue(r.gte(), type, p + "/gte") : null;
        final Object hi = r.lt() != null ? outValue(r.lt(), type, p + "/lt") : r.lte() != null ? outValue(r.lte(), type, p + "/lte") : null;
        return new RowPredicate.Leaf(idx, lo, r.gte() != null, hi, r.lte() != null, null, negate);
    }

    private static Object outValue(final Object v, final String type, final String p) {
        if (v == null) {
            throw invalid(p, "value must not be null");
        }
        if (type.equals("symbol") || type.equals("char")) {
            if (!(v instanceof String)) {
                throw invalid(p, "output is a " + type + ": values are strings");
            }
            return v;
        }
        if (type.equals("timestamp")) {
            return timestamp(v, p);
        }
        if (v instanceof Long) {
            return v;
        }
        if (v instanceof BigInteger) {
            return new BigDecimal((BigInteger) v);
        }
        if (v instanceof BigDecimal) {
            return v;
        }
        if (v instanceof Number) {
            return new BigDecimal(((Number) v).toString());
        }
        if (v instanceof String) {
            return decimalText((String) v, p, "a number");
        }
        throw invalid(p, "values are numbers");
    }
}
