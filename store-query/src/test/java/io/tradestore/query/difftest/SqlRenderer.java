package io.tradestore.query.difftest;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

import io.tradestore.query.QueryEngine;
import io.tradestore.query.model.Agg;
import io.tradestore.query.model.Filter;
import io.tradestore.query.model.GroupKey;
import io.tradestore.query.model.OrderKey;
import io.tradestore.query.model.Query;
import io.tradestore.query.gen.QueryGenerator;

/**
 * Writes a generated JSON query as tradestore SQL (docs/sql.md), so that the random queries of the DuckDB comparison
 * also go through the SQL front end: every filter, time range, group key, time bucket, aggregate, having, order and
 * limit of the model in its SQL spelling, outputs in the model's order and under its names.
 */
final class SqlRenderer {
    private SqlRenderer() {
    }

    /** @param json a generated query. @param timestamp the table's designated timestamp. @return its SQL. */
    static String sql(final String json, final String timestamp) {
        final Query q = QueryEngine.parse(json);
        final List<String> select = new ArrayList<>();
        if (q.isScan()) {
            for (final String c : q.columns()) {
                select.add(id(c));
            }
        }
        for (final GroupKey k : q.groupBy()) {
            select.add((k.bucket() == null ? id(k.col()) : bucket(k)) + " AS " + id(k.outputName()));
        }
        for (final Agg a : q.aggs()) {
            select.add(aggregate(a) + " AS " + id(a.name()));
        }
        final StringBuilder sql = new StringBuilder("SELECT ").append(String.join(", ", select))
            .append("\nFROM ").append(q.table());
        final List<String> where = new ArrayList<>();
        if (q.time() != null && q.time().from() != null) {
            where.add(id(timestamp) + " >= " + value(q.time().from()));
        }
        if (q.time() != null && q.time().to() != null) {
            where.add(id(timestamp) + " < " + value(q.time().to()));
        }
        if (q.filter() != null) {
            where.add("(" + filter(q.filter()) + ")");
        }
        if (!where.isEmpty()) {
            sql.append("\nWHERE ").append(String.join(" AND ", where));
        }
        if (!q.groupBy().isEmpty()) {
            sql.append("\nGROUP BY ");
            for (int i = 0; i < q.groupBy().size(); i++) {
                sql.append(i == 0 ? "" : ", ").append(i + 1 + (q.isScan() ? q.columns().size() : 0));
            }
        }
        if (q.having() != null) {
            sql.append("\nHAVING ").append(filter(q.having()));
        }
        for (int i = 0; i < q.orderBy().size(); i++) {
            final OrderKey o = q.orderBy().get(i);
            sql.append(i == 0 ? "\nORDER BY " : ", ").append(id(o.col())).append(o.desc() ? " DESC" : " ASC");
        }
        if (q.limit() != null) {
            sql.append("\nLIMIT ").append(q.limit());
        }
        if (q.offset() != null && q.offset() > 0) {
            sql.append("\nOFFSET ").append(q.offset());
        }
        return sql.toString();
    }

    private static String bucket(final GroupKey k) {
        final String b = k.bucket();
        final String interval = b.equals("P1M") ? "1 month" : b.equals("P1Y") ? "1 year"
            : QueryGenerator.bucketNanos(b) + " nanoseconds";
        return "time_bucket(INTERVAL '" + interval + "', " + id(k.col()) + ", TIMESTAMP '1970-01-01')";
    }

    private static String aggregate(final Agg a) {
        final String col = a.col() == null ? null : operand(a.col());
        switch (a.op()) {
            case "count":
                return col == null ? "count(*)" : "count(" + col + ")";
            case "countDistinct":
                return "count(DISTINCT " + col + ")";
            case "vwap":
                return col == null ? "vwap(price, quantity)" : "vwap(" + col.replace("*", ", ") + ")";
            case "percentile":
                return "quantile_disc(" + col + ", " + BigDecimal.valueOf(a.p()).movePointLeft(2).toPlainString()
                    + ")";
            case "first":
            case "last":
            case "sum":
            case "min":
            case "max":
            case "avg":
                return a.op() + "(" + col + ")";
            default:
                throw new IllegalArgumentException(a.op());
        }
    }

    private static String operand(final String col) {
        final String[] f = col.split("\\*");
        return f.length == 1 ? id(f[0]) : id(f[0]) + " * " + id(f[1]);
    }

    private static String filter(final Filter f) {
        if (f instanceof Filter.And a) {
            return junction(a.args(), " AND ");
        }
        if (f instanceof Filter.Or o) {
            return junction(o.args(), " OR ");
        }
        if (f instanceof Filter.Not n) {
            return "NOT (" + filter(n.arg()) + ")";
        }
        if (f instanceof Filter.Eq e) {
            return id(e.col()) + " = " + value(e.value());
        }
        if (f instanceof Filter.Ne e) {
            return id(e.col()) + " <> " + value(e.value());
        }
        if (f instanceof Filter.In in) {
            final List<String> values = new ArrayList<>();
            for (final Object v : in.values()) {
                values.add(value(v));
            }
            return id(in.col()) + " IN (" + String.join(", ", values) + ")";
        }
        final Filter.Range r = (Filter.Range) f;
        final List<String> bounds = new ArrayList<>();
        if (r.gt() != null) {
            bounds.add(id(r.col()) + " > " + value(r.gt()));
        }
        if (r.gte() != null) {
            bounds.add(id(r.col()) + " >= " + value(r.gte()));
        }
        if (r.lt() != null) {
            bounds.add(id(r.col()) + " < " + value(r.lt()));
        }
        if (r.lte() != null) {
            bounds.add(id(r.col()) + " <= " + value(r.lte()));
        }
        return "(" + String.join(" AND ", bounds) + ")";
    }

    private static String junction(final List<Filter> args, final String op) {
        final List<String> parts = new ArrayList<>();
        for (final Filter a : args) {
            parts.add("(" + filter(a) + ")");
        }
        return String.join(op, parts);
    }

    private static String value(final Object v) {
        if (v instanceof String s) {
            return "'" + s.replace("'", "''") + "'";
        }
        if (v instanceof BigDecimal d) {
            return d.toPlainString();
        }
        if (v instanceof Double d) {
            return BigDecimal.valueOf(d).toPlainString();
        }
        return String.valueOf(v);
    }

    /** @param name a name. @return it double-quoted, as SQL writes a name that could be a keyword. */
    private static String id(final String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }
}
