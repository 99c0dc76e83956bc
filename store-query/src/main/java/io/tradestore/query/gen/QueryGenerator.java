package io.tradestore.query.gen;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.tradestore.core.schema.ColumnType;
import io.tradestore.query.gen.GenQuery.Check;
import io.tradestore.query.gen.GenQuery.Output;

/**
 * Draws random queries from the whole grammar of docs/query-language.md (filters eq ne in range and or not on every
 * type, time ranges, up to four group keys with at most one time bucket, every aggregate on columns and products,
 * having, orderBy on several keys, limit, scans) over a {@link GenTable}, and translates each to DuckDB SQL over the
 * same rows. The table's {@link GenProfile} names the columns each part draws from and bounds the draw; the
 * differential test's profile keeps a seed's draws reproducible, so a failing seed replays.
 *
 * <p>Translation rules (where SQL and our language differ), in the {@link GenProfile.Dialect#ORACLE} dialect:
 * <ul>
 *   <li>Filters: literal, since the engine uses SQL's three-valued logic (see {@link Pred}).</li>
 *   <li>{@code time} is {@code ts >= from AND ts < to}; timestamps are epoch-nanosecond BIGINTs in DuckDB.</li>
 *   <li>Buckets: {@code ts - ts % width} (epoch-aligned, as the engine's buckets; all timestamps are positive);
 *       calendar buckets ({@code P1M}, {@code P1Y}) {@code time_bucket} of months with origin 1970-01-01.</li>
 *   <li>Exact sums: DuckDB sums BIGINT into HUGEINT and DECIMAL(18,s) into DECIMAL(38,s); products are
 *       {@code CAST(a AS DECIMAL(19,sa)) * CAST(b AS DECIMAL(19,sb))} (DECIMAL(38, sa+sb)); with an f64 factor,
 *       DOUBLE.</li>
 *   <li>{@code first}/{@code last}: the first/last non-null value by {@code ts}, ties broken by row order
 *       ({@code first(x ORDER BY ts, rid) FILTER (WHERE x IS NOT NULL)}).</li>
 *   <li>{@code vwap}: sum(price*quantity) / sum(quantity) over rows where both are present; null when that is
 *       empty.</li>
 *   <li>{@code avg}: the exact sum over the count of non-null values, divided in Java.</li>
 *   <li>{@code percentile}: nearest rank {@code ceil(p/100*n)} of the sorted non-null values (HdrHistogram's
 *       definition); the comparison allows one rank either side and the engine's stated relative precision.</li>
 *   <li>{@code countDistinct}: {@code count(DISTINCT x)} (nulls not counted).</li>
 *   <li>{@code orderBy}: {@code NULLS LAST} in both directions unless {@code
 *       -Dtradestore.difftest.nullsFirstOnDesc=true}; symbols order by their strings.</li>
 * </ul>
 * The {@link GenProfile.Dialect#NATIVE} dialect differs where a DuckDB user would write it otherwise: timestamps are
 * TIMESTAMP columns (literals {@code TIMESTAMP '...'}, outputs {@code epoch_ns(...)}, buckets {@code time_bucket} from
 * the epoch), first/last are {@code arg_min}/{@code arg_max} by the timestamp (the table's timestamps are unique),
 * percentiles are {@code quantile_disc} (the same nearest rank, compared within the engine's precision).
 */
public final class QueryGenerator {
    /** Nanoseconds in a day. */
    public static final long DAY_NS = 86_400_000_000_000L;
    static final ObjectMapper JSON = new ObjectMapper().enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);
    static final boolean NULLS_FIRST_ON_DESC = Boolean.getBoolean("tradestore.difftest.nullsFirstOnDesc");

    /**
     * The aggregates that get products {@code a*b} as their column (docs/query-language.md allows them for every
     * aggregate with a col).
     */
    static final List<String> PRODUCT_OPS = List.of(System.getProperty("tradestore.difftest.productOps",
        "sum,avg,min,max,first,last,count,percentile,countDistinct").split(","));
    private static final String[] BUCKETS =
        {"1s", "1m", "5m", "15m", "1h", "1d", "PT30S", "PT2H", "PT10M", "P1D", "PT0.25S", "P1M", "P1Y"};
    private static final double[] PERCENTILES = {0, 1, 25, 50, 75, 90, 95, 99, 99.9, 100};

    /**
     * Percentiles only where a query has at most this many groups (estimated from the keys' cardinalities). Unlimited
     * by default; the switch bounds the heap a test JVM needs when an engine change keeps a large structure per group
     * (a full HdrHistogram per group runs a 1 GB JVM out of heap on tens of thousands of groups).
     */
    static final long MAX_PERCENTILE_GROUPS = Long.getLong("tradestore.difftest.maxPercentileGroups", Long.MAX_VALUE);
    /** Whether first/last are asked of symbol and char columns too. */
    static final boolean FIRST_LAST_TEXT = !Boolean.getBoolean("tradestore.difftest.noTextFirstLast");

    private final GenTable t;
    private final GenProfile p;
    private final SplittableRandom r;
    private final FilterGenerator filters;
    private final String id;
    private boolean percentileAllowed = true;
    /**
     * A global aggregate of an eq/in on an indexable column with count/sum/min/max/avg/vwap of non-f64 operands: the
     * shape the value summaries answer (BitmapIndexes.summary). Decided by a random source of its own, so that the
     * other draws of a seed do not depend on it.
     */
    private final boolean summaryShaped;
    /**
     * One time bucket on {@code ts} (mostly of whole minutes), an eq/in on an indexable column (now and then with a
     * residual conjunct, or none), and count/sum/min/max/avg/first/last/vwap of non-f64 operands: the shape the
     * per-minute bucket summaries answer (BitmapIndexes.bucketSummary) on sealed segments in time order. Its own random
     * source, like {@link #summaryShaped}.
     */
    private final boolean bucketShaped;
    private static final String[] MINUTE_BUCKETS = {"1m", "5m", "15m", "1h", "1d", "PT2M", "PT90S"};

    /**
     * @param t    the table queried.
     * @param seed the query's seed.
     * @param id   the replay id.
     */
    public QueryGenerator(final GenTable t, final long seed, final String id) {
        this.t = t;
        this.p = t.profile();
        this.r = new SplittableRandom(seed);
        this.filters = new FilterGenerator(t, r);
        this.id = id;
        this.summaryShaped = new SplittableRandom(seed ^ 0x5EED_5EEDL).nextInt(100) < 15;
        this.bucketShaped = !summaryShaped && new SplittableRandom(seed ^ 0xB0C3_E75EL).nextInt(100) < 20;
    }

    /** An aggregate operand: one column or the product of two. */
    private static final class Operand {
        final GenColumn a;
        final GenColumn b;

        Operand(final GenColumn a, final GenColumn b) {
            this.a = a;
            this.b = b;
        }

        String json() {
            return b == null ? a.name() : a.name() + "*" + b.name();
        }

        boolean f64() {
            return a.type() == ColumnType.F64 || b != null && b.type() == ColumnType.F64;
        }

        boolean decimal() {
            return !f64() && (a.type() == ColumnType.DECIMAL || b != null && b.type() == ColumnType.DECIMAL);
        }

        int scale() {
            return a.scale() + (b == null ? 0 : b.scale());
        }

        ColumnType type() {
            return b == null ? a.type() : f64() ? ColumnType.F64 : decimal() ? ColumnType.DECIMAL : ColumnType.I64;
        }

        String sql() {
            if (b == null) {
                return q(a.name());
            }
            if (f64()) {
                return "(CAST(" + q(a.name()) + " AS DOUBLE) * CAST(" + q(b.name()) + " AS DOUBLE))";
            }
            return "(CAST(" + q(a.name()) + " AS DECIMAL(19," + a.scale() + ")) * CAST(" + q(b.name())
                + " AS DECIMAL(19," + b.scale() + ")))";
        }
    }

    /**
     * The outputs of an aggregate query being drawn, with their types, scales and operands (null for counts, vwaps and
     * buckets) at the same indexes, and the SQL select terms that feed them (two for an avg or a vwap).
     */
    private static final class Select {
        final List<String> select = new ArrayList<>();
        final List<Output> outputs = new ArrayList<>();
        final List<ColumnType> types = new ArrayList<>();
        final List<Integer> scales = new ArrayList<>();
        final List<Operand> operands = new ArrayList<>();
    }

    /** @param name an identifier. @return it quoted for SQL. */
    static String q(final String name) {
        return "\"" + name + "\"";
    }

    private GenColumn col(final String name) {
        return t.column(name);
    }

    /** @return the next query. */
    public GenQuery next() {
        if (summaryShaped || bucketShaped) {
            return aggregate();
        }
        return r.nextInt(100) < p.scanPercent() ? scan() : aggregate();
    }

    // ---------------------------------------------------------------------------------------------- queries

    private GenQuery aggregate() {
        final ObjectNode root = Pred.NODES.objectNode();
        root.put("table", t.name());
        final Pred.Leaf time = filters.timeRange();
        if (time != null) {
            root.set("time", FilterGenerator.timeJson(time));
        }
        final Pred filter = summaryShaped || bucketShaped
            ? filters.summaryFilter(bucketShaped ? p.barColumns() : p.indexedColumns())
            : r.nextInt(10) < 6 ? filters.filter(0) : null;
        if (filter != null) {
            root.set("filter", filter.json());
        }
        final Select sel = new Select();
        final int keyCount = groupKeys(root, sel);
        // aggregates
        final ArrayNode aggs = root.putArray("aggs");
        final int aggCount = 1 + r.nextInt(5);
        final List<String> exactAggs = new ArrayList<>();
        for (int i = 0; i < aggCount; i++) {
            addAggregate(i, aggs, sel, exactAggs);
        }
        // having
        Pred having = null;
        final List<Integer> havingable = new ArrayList<>();
        for (int i = 0; i < sel.outputs.size(); i++) {
            if (sel.outputs.get(i).check() == Check.EXACT && sel.types.get(i) != ColumnType.F64) {
                havingable.add(i);
            }
        }
        if (r.nextInt(10) < 2 && !havingable.isEmpty()) {
            having = havingPred(havingable, sel, 0);
            root.set("having", having.json());
        }
        final List<Integer> orderBy = new ArrayList<>();
        final StringBuilder order = new StringBuilder();
        final int limit = orderAndLimit(root, havingable, sel.outputs, orderBy, order);
        final String sql = aggregateSql(sel.select, keyCount, where(time, filter), having, order);
        final int offset = offset(root, limit);
        return new GenQuery(id, text(root), sql, false, sel.outputs, keyCount, orderBy, limit, offset,
            fold(time, filter));
    }

    /**
     * Draws up to four group keys, at most one of them a time bucket, into the query and its outputs, and allows
     * percentiles only when the keys promise few enough groups.
     *
     * @return how many keys were drawn.
     */
    private int groupKeys(final ObjectNode root, final Select sel) {
        final int[] keyWeights = {25, 30, 25, 12, 8};
        int keyCount = 0;
        int w = summaryShaped ? 0 : bucketShaped ? keyWeights[0] : r.nextInt(100);
        while (w >= keyWeights[keyCount]) {
            w -= keyWeights[keyCount];
            keyCount++;
        }
        final ArrayNode groupBy = Pred.NODES.arrayNode();
        boolean bucketUsed = false;
        long estimatedGroups = 1;
        final List<String> keyNames = new ArrayList<>();
        for (int i = 0; i < keyCount; i++) {
            if (!bucketUsed && (bucketShaped || r.nextInt(10) < 3)) {
                bucketUsed = true;
                estimatedGroups = Math.min(1L << 40, estimatedGroups * bucketKey(groupBy, sel, estimatedGroups));
                keyNames.add("bk");
                continue;
            }
            GenColumn kc;
            int tries = 0;
            do {
                kc = col(p.keyColumns().get(r.nextInt(p.keyColumns().size())));
            } while (keyNames.contains(kc.name()) || tooMany(estimatedGroups, keyGroups(kc)) && ++tries < 100);
            if (tooMany(estimatedGroups, keyGroups(kc))) {
                // no key left that keeps the groups within the profile's bound: fewer keys
                break;
            }
            groupBy.add(kc.name());
            estimatedGroups = Math.min(1L << 40, estimatedGroups * keyGroups(kc));
            sel.select.add(timestampOut(q(kc.name()), kc.type()) + " AS " + q(kc.name()));
            keyNames.add(kc.name());
            sel.outputs.add(
                new Output(kc.name(), Check.EXACT, 1, 0, kc.type() == ColumnType.DECIMAL ? kc.scale() : -1));
            sel.types.add(kc.type());
            sel.scales.add(kc.scale());
            sel.operands.add(new Operand(kc, null));
        }
        percentileAllowed = estimatedGroups <= MAX_PERCENTILE_GROUPS;
        if (!keyNames.isEmpty()) {
            root.set("groupBy", groupBy);
        }
        return keyNames.size();
    }

    private long keyGroups(final GenColumn kc) {
        return Math.min(Math.max(1, t.rows()), p.cardinality(kc.name()));
    }

    private boolean tooMany(final long groups, final long factor) {
        return groups * factor > p.maxGroups();
    }

    /** @return the SQL of a timestamp output: epoch nanos in both dialects. */
    private String timestampOut(final String sql, final ColumnType type) {
        return type == ColumnType.TIMESTAMP && p.dialect() == GenProfile.Dialect.NATIVE ? "epoch_ns(" + sql + ")"
            : sql;
    }

    /**
     * Draws a time bucket key (output {@code bk}) into the groupBy and the outputs.
     *
     * @param groups the groups the keys drawn so far make (estimated).
     * @return a rough number of groups the bucket makes.
     */
    private long bucketKey(final ArrayNode groupBy, final Select sel, final long groups) {
        final String bcol = !bucketShaped && r.nextInt(5) == 0 ? p.altTimestamp() : p.timestamp();
        String spec;
        int tries = 0;
        do {
            spec = bucketShaped ? MINUTE_BUCKETS[r.nextInt(MINUTE_BUCKETS.length)]
                : BUCKETS[r.nextInt(BUCKETS.length)];
        } while (tooMany(groups, bucketGroups(spec)) && ++tries < 50);
        final long width = bucketNanos(spec);
        final ObjectNode b = groupBy.addObject();
        b.put("bucket", spec);
        b.put("col", bcol);
        b.put("as", "bk");
        final int months = spec.equals("P1M") ? 1 : spec.equals("P1Y") ? 12 : 0;
        // calendar buckets: DuckDB's time_bucket of months from 1970-01 (the engine's origin) on the
        // timestamp's microseconds
        if (p.dialect() == GenProfile.Dialect.NATIVE) {
            // a TIMESTAMP column (microseconds): time_bucket from the epoch, as a DuckDB user writes it
            sel.select.add("epoch_ns(time_bucket(INTERVAL '" + (months > 0 ? months + " months" : width / 1000
                + " microseconds") + "', " + q(bcol) + ", TIMESTAMP '1970-01-01')) AS " + q("bk"));
        } else {
            sel.select.add((months > 0 ? "epoch_ns(time_bucket(INTERVAL '" + months + " months', make_timestamp("
                + q(bcol) + " // 1000), "
                + "TIMESTAMP '1970-01-01'))" : "(" + q(bcol) + " - " + q(bcol) + " % " + width + ")") + " AS "
                + q("bk"));
        }
        sel.outputs.add(new Output("bk", Check.EXACT, 1, 0, -1));
        sel.types.add(ColumnType.TIMESTAMP);
        sel.scales.add(0);
        sel.operands.add(null);
        return bucketGroups(spec);
    }

    private long bucketGroups(final String spec) {
        return Math.max(1, Math.min(t.rows(), p.spanNs() / bucketNanos(spec)));
    }

    /**
     * Now and then draws an orderBy on one to three of the candidate outputs, and then now and then a limit.
     *
     * @param orderBy receives the indexes of the outputs ordered by.
     * @param order   receives the SQL ORDER BY clause.
     * @return the limit, or -1.
     */
    private int orderAndLimit(final ObjectNode root, final List<Integer> candidates, final List<Output> outputs,
                              final List<Integer> orderBy, final StringBuilder order) {
        int limit = -1;
        if (r.nextInt(10) < 5 && !candidates.isEmpty()) {
            final ArrayNode ob = root.putArray("orderBy");
            final int n = 1 + r.nextInt(Math.min(3, candidates.size()));
            for (int i = 0; i < n; i++) {
                final int o = candidates.get(r.nextInt(candidates.size()));
                if (orderBy.contains(o)) {
                    continue;
                }
                orderBy.add(o);
                final boolean desc = r.nextBoolean();
                final ObjectNode e = ob.addObject();
                e.put("col", outputs.get(o).name());
                if (desc || r.nextBoolean()) {
                    e.put("desc", desc);
                }
                order.append(order.length() == 0 ? " ORDER BY " : ", ").append(orderTerm(outputs.get(o).name(), desc));
            }
            if (r.nextInt(10) < 7) {
                limit = 1 + r.nextInt(25);
                root.put("limit", limit);
            }
        }
        return limit;
    }

    /**
     * Now and then draws an offset for a query with a limit: the last thing drawn, so that the queries drawn before
     * offsets were are otherwise the same.
     *
     * @return the offset, or 0.
     */
    private int offset(final ObjectNode root, final int limit) {
        if (limit < 0 || r.nextInt(4) != 0) {
            return 0;
        }
        final int offset = 1 + r.nextInt(30);
        root.put("offset", offset);
        return offset;
    }

    /** @return the DuckDB query: the grouping in a subquery, so that having filters on its output names. */
    private String aggregateSql(final List<String> select, final int keyCount, final String where, final Pred having,
                                final CharSequence order) {
        final StringBuilder sql = new StringBuilder("SELECT * FROM (SELECT ");
        sql.append(String.join(", ", select)).append(" FROM ").append(t.name());
        if (!where.isEmpty()) {
            sql.append(" WHERE ").append(where);
        }
        if (keyCount > 0) {
            sql.append(" GROUP BY ");
            for (int i = 1; i <= keyCount; i++) {
                sql.append(i == 1 ? "" : ", ").append(i);
            }
        }
        sql.append(") AS g");
        if (having != null) {
            sql.append(" WHERE ").append(having.sql());
        }
        sql.append(order);
        return sql.toString();
    }

    private static String orderTerm(final String name, final boolean desc) {
        return q(name) + (desc ? " DESC" : " ASC") + (desc && NULLS_FIRST_ON_DESC ? " NULLS FIRST" : " NULLS LAST");
    }

    private void addAggregate(final int i, final ArrayNode aggs, final Select sel, final List<String> exactAggs) {
        final String[] ops = summaryShaped ? new String[] {"count", "sum", "min", "max", "avg", "vwap"}
            : bucketShaped
                ? new String[] {"count", "sum", "min", "max", "avg", "vwap", "first", "last", "first", "last"}
            : new String[] {"count", "sum", "sum", "min", "max", "avg", "first", "last", "vwap", "percentile",
                "countDistinct"};
        String op = ops[r.nextInt(ops.length)];
        if (op.equals("percentile") && !percentileAllowed) {
            // see MAX_PERCENTILE_GROUPS
            op = "countDistinct";
        }
        final String name = op.toLowerCase(java.util.Locale.ROOT) + i;
        final ObjectNode a = aggs.addObject();
        a.put("name", name);
        a.put("op", op);
        switch (op) {
            case "count":
                if (r.nextInt(10) < 3) {
                    // count of a column: its non-null values
                    final GenColumn c = t.columns().get(r.nextInt(t.columns().size()));
                    a.put("col", c.name());
                    sel.select.add("count(" + q(c.name()) + ") AS " + q(name));
                } else {
                    sel.select.add("count(*) AS " + q(name));
                }
                sel.outputs.add(new Output(name, Check.EXACT, 1, 0, -1));
                sel.types.add(ColumnType.I64);
                sel.scales.add(0);
                sel.operands.add(null);
                return;
            case "vwap":
                sel.select.add("sum(CAST(\"price\" AS DECIMAL(19,6)) * CAST(\"quantity\" AS DECIMAL(19,0))) AS "
                    + q(name + "__pq"));
                sel.select.add("sum(\"quantity\") FILTER (WHERE \"price\" IS NOT NULL) AS " + q(name + "__q"));
                sel.outputs.add(new Output(name, Check.VWAP, 2, 0, -1));
                sel.types.add(ColumnType.F64);
                sel.scales.add(0);
                sel.operands.add(null);
                return;
            default:
                break;
        }
        Operand x = operand(op);
        while ((summaryShaped || bucketShaped) && x.f64()) {
            x = operand(op);
        }
        a.put("col", x.json());
        final String e = x.sql();
        final int decScale = x.decimal() ? x.scale() : -1;
        switch (op) {
            case "sum":
                sel.select.add("sum(" + e + ") AS " + q(name));
                sel.outputs.add(new Output(name, x.f64() ? Check.RELATIVE : Check.EXACT, 1, 0, decScale));
                sel.types.add(x.f64() ? ColumnType.F64 : x.decimal() ? ColumnType.DECIMAL : ColumnType.I64);
                break;
            case "min":
            case "max":
                sel.select.add(timestampOut(op + "(" + e + ")", x.type()) + " AS " + q(name));
                sel.outputs.add(new Output(name, Check.EXACT, 1, 0, decScale));
                sel.types.add(x.type());
                break;
            case "avg":
                sel.select.add("sum(" + e + ") AS " + q(name + "__s"));
                sel.select.add("count(" + e + ") AS " + q(name + "__c"));
                sel.outputs.add(new Output(name, Check.AVG, 2, 0, -1));
                sel.types.add(ColumnType.F64);
                break;
            case "first":
            case "last":
                sel.select.add(timestampOut(firstLast(op, e), x.type()) + " AS " + q(name));
                sel.outputs.add(new Output(name, Check.EXACT, 1, 0, decScale));
                sel.types.add(x.type());
                break;
            case "percentile":
                final double pc = PERCENTILES[r.nextInt(PERCENTILES.length)];
                a.put("p", pc);
                if (p.dialect() == GenProfile.Dialect.NATIVE) {
                    sel.select.add("quantile_disc(" + e + ", " + BigDecimal.valueOf(pc).movePointLeft(2).toPlainString()
                        + ") AS " + q(name));
                    sel.outputs.add(new Output(name, Check.PERCENTILE_VALUE, 1, pc, -1));
                } else {
                    sel.select.add(
                        "list(" + e + " ORDER BY " + e + ") FILTER (WHERE " + e + " IS NOT NULL) AS " + q(name));
                    sel.outputs.add(new Output(name, Check.PERCENTILE, 1, pc, -1));
                }
                sel.types.add(ColumnType.F64);
                break;
            case "countDistinct":
                sel.select.add("count(DISTINCT " + e + ") AS " + q(name));
                sel.outputs.add(new Output(name, Check.EXACT, 1, 0, -1));
                sel.types.add(ColumnType.I64);
                break;
            default:
                throw new IllegalStateException(op);
        }
        sel.scales.add(x.scale());
        sel.operands.add(x);
        exactAggs.add(name);
    }

    /**
     * @param op {@code first} or {@code last}.
     * @param e  the operand's SQL.
     * @return the SQL of the first or last non-null value by the designated timestamp.
     */
    private String firstLast(final String op, final String e) {
        final String ts = q(p.timestamp());
        if (p.dialect() == GenProfile.Dialect.NATIVE) {
            // timestamps are unique in such a table: no tie to break
            return (op.equals("first") ? "arg_min(" : "arg_max(") + e + ", " + ts + ") FILTER (WHERE " + e
                + " IS NOT NULL)";
        }
        final String dir = op.equals("first") ? "" : " DESC";
        return "first(" + e + " ORDER BY " + ts + dir + ", \"rid\"" + dir + ") FILTER (WHERE " + e
            + " IS NOT NULL)";
    }

    private Operand operand(final String op) {
        if ((op.equals("percentile") || op.equals("countDistinct")) && PRODUCT_OPS.contains(op) && r.nextInt(10) < 3) {
            final List<String> pair = p.products().get(r.nextInt(p.products().size()));
            return new Operand(col(pair.get(0)), col(pair.get(1)));
        }
        switch (op) {
            case "percentile":
                return new Operand(col(p.percentileColumns().get(r.nextInt(p.percentileColumns().size()))), null);
            case "countDistinct":
                GenColumn c;
                do {
                    c = t.columns().get(r.nextInt(t.columns().size()));
                } while (c.type() == ColumnType.F64 || p.noDistinct().contains(c.name()));
                return new Operand(c, null);
            default:
                break;
        }
        final boolean product = PRODUCT_OPS.contains(op) && r.nextInt(10) < 3;
        if (product) {
            final List<String> pair = p.products().get(r.nextInt(p.products().size()));
            return new Operand(col(pair.get(0)), col(pair.get(1)));
        }
        while (true) {
            final GenColumn c = t.columns().get(r.nextInt(t.columns().size()));
            final boolean ok = op.equals("sum") || op.equals("avg") ? c.summable()
                : op.equals("first") || op.equals("last") ? c.numeric() || FIRST_LAST_TEXT : c.numeric();
            if (ok) {
                return new Operand(c, null);
            }
        }
    }

    private Pred havingPred(final List<Integer> candidates, final Select sel, final int depth) {
        final int k = r.nextInt(10);
        if (depth < 1 && k >= 7) {
            final List<Pred> args = new ArrayList<>();
            args.add(havingPred(candidates, sel, depth + 1));
            args.add(havingPred(candidates, sel, depth + 1));
            return k == 9 ? new Pred.Not(args.get(0)) : new Pred.Junction(k == 7, args);
        }
        final int o = candidates.get(r.nextInt(candidates.size()));
        final Output out = sel.outputs.get(o);
        final ColumnType type = sel.types.get(o);
        final Operand x = sel.operands.get(o);
        final List<Object> values = new ArrayList<>();
        final Object v;
        if (x == null && type == ColumnType.I64) {
            v = (long) new int[] {0, 1, 2, 3, 5, 10, 20, 100}[r.nextInt(8)];
        } else if (x == null) {
            v = filters.sample(t.columnIndex(p.timestamp()));
        } else if (out.name().startsWith("countdistinct")) {
            v = (long) (1 + r.nextInt(20));
        } else {
            final Object a = filters.sample(t.columnIndex(x.a.name()));
            Object prod = x.b == null ? a
                : Norm.number(a).multiply(Norm.number(filters.sample(t.columnIndex(x.b.name()))));
            if (out.name().startsWith("sum")) {
                prod = Norm.number(prod).multiply(BigDecimal.valueOf(1 + r.nextInt(40)));
            }
            if (type == ColumnType.DECIMAL) {
                v = Norm.number(prod);
            } else if (prod instanceof String) {
                v = prod;
            } else {
                final BigDecimal d = Norm.number(prod);
                v = d.toBigInteger().bitLength() < 63 ? (Object) d.longValueExact() : d;
            }
        }
        final boolean text = v instanceof String;
        final String op = text ? (r.nextBoolean() ? "eq" : "ne") : r.nextInt(4) == 0 ? "eq" : "range";
        values.add(v);
        String[] bounds = null;
        if (op.equals("range")) {
            bounds = new String[] {new String[] {"gt", "gte", "lt", "lte"}[r.nextInt(4)]};
        }
        return new Pred.Leaf(op, out.name(), q(out.name()), type, -1, values, bounds, filters.form(type));
    }

    private GenQuery scan() {
        final ObjectNode root = Pred.NODES.objectNode();
        root.put("table", t.name());
        final Pred.Leaf time = filters.timeRange();
        if (time != null) {
            root.set("time", FilterGenerator.timeJson(time));
        }
        final boolean ordered = r.nextInt(10) < 7;
        Pred filter = r.nextInt(10) < 7 ? filters.filter(0) : null;
        if (!ordered) {
            // an unlimited scan: keep it selective
            final int c = t.columnIndex(p.selectiveColumns().get(r.nextBoolean() ? 0 : 1));
            final Pred sel = filters.leaf("eq", c, new ArrayList<>(List.of(filters.sample(c))), null,
                Pred.Form.NATIVE);
            filter = filter == null ? sel : new Pred.Junction(true, new ArrayList<>(List.of(sel, filter)));
        }
        if (filter != null) {
            root.set("filter", filter.json());
        }
        final List<Integer> cols = new ArrayList<>();
        final int n = 1 + r.nextInt(6);
        while (cols.size() < n) {
            final int c = r.nextInt(t.columns().size());
            if (!cols.contains(c)) {
                cols.add(c);
            }
        }
        final ArrayNode columns = root.putArray("columns");
        final List<Output> outputs = new ArrayList<>();
        final StringBuilder sql = new StringBuilder("SELECT ");
        for (int i = 0; i < cols.size(); i++) {
            final GenColumn c = t.columns().get(cols.get(i));
            columns.add(c.name());
            outputs.add(new Output(c.name(), Check.EXACT, 1, 0, c.type() == ColumnType.DECIMAL ? c.scale() : -1));
            sql.append(i == 0 ? "" : ", ").append(q(c.name()));
        }
        sql.append(" FROM ").append(t.name());
        final String where = where(time, filter);
        if (!where.isEmpty()) {
            sql.append(" WHERE ").append(where);
        }
        final List<Integer> orderBy = new ArrayList<>();
        int limit = -1;
        if (ordered) {
            final ArrayNode ob = root.putArray("orderBy");
            final int k = 1 + r.nextInt(Math.min(2, cols.size()));
            for (int i = 0; i < k; i++) {
                final int o = r.nextInt(cols.size());
                if (orderBy.contains(o)) {
                    continue;
                }
                orderBy.add(o);
                final boolean desc = r.nextBoolean();
                final ObjectNode e = ob.addObject();
                e.put("col", outputs.get(o).name());
                e.put("desc", desc);
                sql.append(i == 0 ? " ORDER BY " : ", ").append(orderTerm(outputs.get(o).name(), desc));
            }
            limit = 1 + r.nextInt(100);
            root.put("limit", limit);
        }
        final int offset = offset(root, limit);
        return new GenQuery(id, text(root), sql.toString(), true, outputs, 0, orderBy, limit, offset,
            fold(time, filter));
    }

    private static String where(final Pred time, final Pred filter) {
        if (time == null && filter == null) {
            return "";
        }
        if (time == null) {
            return filter.sql();
        }
        return filter == null ? time.sql() : time.sql() + " AND " + filter.sql();
    }

    private static Pred fold(final Pred time, final Pred filter) {
        if (time == null) {
            return filter;
        }
        return filter == null ? time : new Pred.Junction(true, List.of(time, filter));
    }

    /** @param spec a bucket: 1s 1m 5m 15m 1h 1d or an ISO-8601 duration. @return its width in nanoseconds. */
    public static long bucketNanos(final String spec) {
        switch (spec) {
            case "1s":
                return 1_000_000_000L;
            case "1m":
                return 60_000_000_000L;
            case "5m":
                return 300_000_000_000L;
            case "15m":
                return 900_000_000_000L;
            case "1h":
                return 3_600_000_000_000L;
            case "1d":
                return DAY_NS;
            case "P1M":
                return 30 * DAY_NS;
            case "P1Y":
                return 365 * DAY_NS;
            default:
                return java.time.Duration.parse(spec).toNanos();
        }
    }

    private static String text(final ObjectNode root) {
        try {
            return JSON.writeValueAsString(root);
        } catch (final JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
