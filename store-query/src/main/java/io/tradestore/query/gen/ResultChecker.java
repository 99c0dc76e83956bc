package io.tradestore.query.gen;

import java.math.BigDecimal;
import java.math.MathContext;
import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.tradestore.query.QueryResult;
import io.tradestore.query.gen.GenQuery.Output;

/**
 * Compares the engine's answer to a query with DuckDB's. Exact equality (as numbers, whatever the Java type) for
 * counts, sums, min/max, first/last, countDistinct, keys and scanned values; relative 1e-9 for avg, vwap and f64 sums;
 * percentiles within one rank and {@link #PERCENTILE_PRECISION}. With a limit, rows tied on the orderBy keys at the cut
 * may differ: the check is that the engine returns {@code min(limit, n)} distinct correct rows whose orderBy keys
 * equal, position by position, those of DuckDB's fully ordered answer.
 */
public final class ResultChecker {
    /** The relative precision the engine states for percentiles (HdrHistogram with 3 significant digits). */
    static final double PERCENTILE_PRECISION =
        Double.parseDouble(System.getProperty("tradestore.difftest.percentilePrecision", "1e-3"));
    /** Values per group the engine keeps exactly before it moves to histograms (PercentileAcc.EXACT_LIMIT). */
    static final int EXACT_PERCENTILE_VALUES = 1024;
    static final double RELATIVE = 1e-9;

    private ResultChecker() {
    }

    /**
     * Runs the SQL of a query and turns DuckDB's rows into expected output rows.
     *
     * @param conn DuckDB.
     * @param q    the query.
     * @return one Object[] per row, one value per output (percentiles: the sorted values as Object[]).
     * @throws SQLException when DuckDB fails.
     */
    public static List<Object[]> expected(final Connection conn, final GenQuery q) throws SQLException {
        final List<Object[]> rows = new ArrayList<>();
        try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery(q.sql())) {
            while (rs.next()) {
                final Object[] row = new Object[q.outputs().size()];
                int c = 1;
                for (int i = 0; i < row.length; i++) {
                    final Output o = q.outputs().get(i);
                    switch (o.check()) {
                        case AVG:
                            row[i] = ratio(rs.getObject(c), rs.getObject(c + 1));
                            break;
                        case VWAP:
                            row[i] = ratio(rs.getObject(c), rs.getObject(c + 1));
                            break;
                        case PERCENTILE:
                            final Array a = rs.getArray(c);
                            row[i] = a == null ? new Object[0] : (Object[]) a.getArray();
                            break;
                        default:
                            row[i] = rs.getObject(c);
                            break;
                    }
                    c += o.sqlColumns();
                }
                rows.add(row);
            }
        }
        return rows;
    }

    private static Double ratio(final Object sum, final Object count) {
        if (sum == null || count == null || Norm.number(count).signum() == 0) {
            return null;
        }
        if (sum instanceof Double) {
            return (Double) sum / Norm.number(count).doubleValue();
        }
        return Norm.number(sum).divide(Norm.number(count), MathContext.DECIMAL128).doubleValue();
    }

    /**
     * Compares.
     *
     * @param q        the query.
     * @param expected DuckDB's rows from {@link #expected}.
     * @param result   the engine's answer.
     * @return what differs (empty when the answers agree).
     */
    public static List<String> compare(final GenQuery q, final List<Object[]> expected, final QueryResult result) {
        final List<String> problems = new ArrayList<>();
        final int n = q.outputs().size();
        final int[] at = new int[n];
        for (int i = 0; i < n; i++) {
            at[i] = -1;
            for (int c = 0; c < result.columns().size(); c++) {
                if (result.columns().get(c).name().equals(q.outputs().get(i).name())) {
                    at[i] = c;
                }
            }
            if (at[i] < 0) {
                problems.add("output column '" + q.outputs().get(i).name() + "' missing; engine columns " + result
                    .columns());
            }
        }
        if (!problems.isEmpty()) {
            return problems;
        }
        final List<Object[]> actual = new ArrayList<>();
        for (int row = 0; row < result.rowCount(); row++) {
            final Object[] v = new Object[n];
            for (int i = 0; i < n; i++) {
                v[i] = result.value(row, at[i]);
            }
            actual.add(v);
        }
        final int skip = q.offset();
        final int wanted = q.limit() >= 0 ? Math.min(q.limit(), Math.max(0, expected.size() - skip)) : expected.size();
        if (actual.size() != wanted) {
            problems.add("row count: expected " + wanted + " (DuckDB " + expected.size()
                + (q.limit() >= 0 ? ", limit " + q.limit() + ", offset " + skip : "")
                + ") but engine returned " + actual.size());
        }
        if (result.truncated() != (q.limit() >= 0 && expected.size() > skip + q.limit())) {
            problems.add("truncated: expected " + (expected.size() > skip + q.limit()) + " (" + expected.size()
                + " rows or groups, limit " + q.limit() + ", offset " + skip
                + ") but engine said " + result.truncated());
        }
        // order: the orderBy keys of row i equal those of DuckDB's row offset + i
        if (!q.orderBy().isEmpty()) {
            for (int i = 0; i < Math.min(actual.size(), expected.size() - skip); i++) {
                final String a = orderKey(q, actual.get(i));
                final String e = orderKey(q, expected.get(skip + i));
                if (!a.equals(e)) {
                    problems.add("order: row " + i + " has orderBy keys " + a + " but DuckDB's row " + (skip + i)
                        + " has " + e);
                    break;
                }
            }
        }
        if (q.scan()) {
            compareScan(q, expected, actual, problems);
        } else {
            compareGroups(q, expected, actual, problems);
        }
        return problems;
    }

    private static String orderKey(final GenQuery q, final Object[] row) {
        final StringBuilder sb = new StringBuilder("[");
        for (final int o : q.orderBy()) {
            sb.append(sb.length() == 1 ? "" : ", ").append(Norm.key(row[o]));
        }
        return sb.append(']').toString();
    }

    private static String rowKey(final Object[] row, final int from, final int to) {
        final StringBuilder sb = new StringBuilder("[");
        for (int i = from; i < to; i++) {
            sb.append(i == from ? "" : ", ").append(Norm.key(row[i]));
        }
        return sb.append(']').toString();
    }

    private static void compareScan(final GenQuery q, final List<Object[]> expected, final List<Object[]> actual,
        final List<String> problems) {
        final Map<String, Integer> bag = new HashMap<>();
        for (final Object[] e : expected) {
            bag.merge(rowKey(e, 0, e.length), 1, Integer::sum);
        }
        for (int i = 0; i < actual.size(); i++) {
            final Object[] a = actual.get(i);
            final String k = rowKey(a, 0, a.length);
            final Integer left = bag.get(k);
            if (left == null || left == 0) {
                problems.add("scan row " + i + " " + k + " is not among DuckDB's rows (or appears too often)");
                if (problems.size() > 8) {
                    return;
                }
            } else {
                bag.put(k, left - 1);
            }
            checkScales(q, a, i, problems);
        }
    }

    private static void compareGroups(final GenQuery q, final List<Object[]> expected, final List<Object[]> actual,
        final List<String> problems) {
        final int keys = q.keyCount();
        final Map<String, Object[]> byKey = new HashMap<>();
        for (final Object[] e : expected) {
            if (byKey.put(rowKey(e, 0, keys), e) != null) {
                problems.add("translation: DuckDB has two rows for group " + rowKey(e, 0, keys));
            }
        }
        final Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < actual.size(); i++) {
            final Object[] a = actual.get(i);
            final String k = rowKey(a, 0, keys);
            if (seen.put(k, i) != null) {
                problems.add("group " + k + " returned twice (rows " + seen.get(k) + " and " + i + ")");
                continue;
            }
            final Object[] e = byKey.get(k);
            if (e == null) {
                problems.add("group " + k + " (engine row " + i + ") is not in DuckDB's answer");
                continue;
            }
            for (int c = keys; c < a.length; c++) {
                final String p = compareValue(q.outputs().get(c), e[c], a[c]);
                if (p != null) {
                    problems.add("group " + k + " " + q.outputs().get(c).name() + ": " + p);
                }
            }
            checkScales(q, a, i, problems);
            if (problems.size() > 12) {
                return;
            }
        }
    }

    private static void checkScales(final GenQuery q, final Object[] a, final int row, final List<String> problems) {
        for (int c = 0; c < a.length; c++) {
            final int scale = q.outputs().get(c).decimalScale();
            if (scale >= 0 && a[c] != null && (!(a[c] instanceof BigDecimal) || ((BigDecimal) a[c]).scale() != scale)) {
                problems.add("row " + row + " " + q.outputs().get(c).name() + ": decimal with scale " + scale
                    + " expected, engine gave "
                    + Norm.show(a[c]) + (a[c] instanceof BigDecimal ? " scale " + ((BigDecimal) a[c]).scale() : ""));
                return;
            }
        }
    }

    /** @return null when equal, else what differs. */
    static String compareValue(final Output o, final Object e, final Object a) {
        switch (o.check()) {
            case EXACT:
                return Norm.key(e).equals(Norm.key(a)) ? null : "expected " + Norm.show(e) + " but engine gave "
                    + Norm.show(a);
            case RELATIVE:
            case AVG:
            case VWAP:
                if (e == null || a == null) {
                    return e == a ? null : "expected " + Norm.show(e) + " but engine gave " + Norm.show(a);
                }
                final double x = Norm.number(e).doubleValue();
                final double y = ((Number) a).doubleValue();
                return Math.abs(x - y) <= RELATIVE * Math.max(Math.abs(x), Math.abs(y)) ? null
                    : "expected " + Norm.show(e) + " but engine gave " + Norm.show(a) + " (relative error "
                    + Math.abs(x - y) / Math.abs(x) + ")";
            case PERCENTILE_VALUE:
                if (e == null || a == null) {
                    return e == a ? null : "expected " + Norm.show(e) + " but engine gave " + Norm.show(a);
                }
                final double want = Norm.number(e).doubleValue();
                final double got = Norm.number(a).doubleValue();
                return Math.abs(got - want) <= PERCENTILE_PRECISION * Math.abs(want) + 1e-9 ? null
                    : "p" + o.percentile() + ": nearest rank is " + Norm.show(e) + " but engine gave " + Norm.show(a)
                    + " (precision " + PERCENTILE_PRECISION + ")";
            case PERCENTILE:
                final Object[] sorted = (Object[]) e;
                if (sorted.length == 0 || a == null) {
                    return sorted.length == 0 && a == null ? null : "expected "
                        + (sorted.length == 0 ? "null" : "a value") + " but engine gave "
                        + Norm.show(a);
                }
                final int count = sorted.length;
                final int rank = (int) Math.max(1, Math.ceil(o.percentile() / 100.0 * count));
                final double lo = Norm.number(sorted[Math.max(1, rank - 1) - 1]).doubleValue();
                final double hi = Norm.number(sorted[Math.min(count, rank + 1) - 1]).doubleValue();
                final double v = Norm.number(a).doubleValue();
                final double exact = Norm.number(sorted[rank - 1]).doubleValue();
                if (count <= EXACT_PERCENTILE_VALUES) {
                    // the engine keeps a group's values exactly up to this many: the nearest rank itself, to a double's
                    // rounding
                    return Math.abs(v - exact) <= 1e-12 * Math.abs(exact) ? null
                        : "p" + o.percentile() + " of " + count + " values (kept exactly): nearest rank " + rank
                        + " is " + exact
                        + " but engine gave " + Norm.show(a);
                }
                return v >= lo - PERCENTILE_PRECISION * Math.abs(lo) - 1e-9 && v <= hi
                    + PERCENTILE_PRECISION * Math.abs(hi) + 1e-9 ? null
                    : "p" + o.percentile() + " of " + count + " values: exact nearest rank " + rank + " is " + exact
                    + " (ranks around it "
                    + lo + ".." + hi + ", precision " + PERCENTILE_PRECISION + ") but engine gave " + Norm.show(a);
            default:
                throw new IllegalStateException(o.check().name());
        }
    }

    /** @param rows rows. @param max how many. @return them as text. */
    public static String show(final List<Object[]> rows, final int max) {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(max, rows.size()); i++) {
            sb.append("    ");
            final Object[] r = rows.get(i);
            for (int c = 0; c < r.length; c++) {
                sb.append(c == 0 ? "" : " | ")
                    .append(r[c] instanceof Object[] ? ((Object[]) r[c]).length + " values" : Norm.show(r[c]));
            }
            sb.append('\n');
        }
        if (rows.size() > max) {
            sb.append("    ... ").append(rows.size() - max).append(" more\n");
        }
        return sb.toString();
    }

    /** @param result an engine answer. @return its rows for printing. */
    public static List<Object[]> rows(final QueryResult result) {
        final List<Object[]> rows = new ArrayList<>();
        for (int r = 0; r < result.rowCount(); r++) {
            final Object[] v = new Object[result.columns().size()];
            for (int c = 0; c < v.length; c++) {
                v[c] = result.value(r, c);
            }
            rows.add(v);
        }
        return rows;
    }

    /** @return a BigDecimal formatted plainly (for reports). */
    static String plain(final BigDecimal d) {
        return d.toPlainString();
    }
}
