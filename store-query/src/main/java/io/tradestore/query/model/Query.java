package io.tradestore.query.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;

/**
 * An immutable query. Build one with {@link #builder(String)} or parse JSON with {@code QueryEngine.parse}; both give
 * the same model, checked when it is made where no table is needed (limits, aggregate ops) and against the table
 * when it runs.
 *
 * @param table   table name.
 * @param time    time range or null.
 * @param filter  row filter or null.
 * @param columns scan output columns (empty: all), only without aggs.
 * @param groupBy group keys (at most 4).
 * @param aggs    aggregates; empty makes the query a scan.
 * @param having  filter over output columns of an aggregate query, or null.
 * @param orderBy sort keys by output name.
 * @param limit   row limit or null.
 * @param offset  rows of the ordered answer left out before the limit's, or null (none).
 * @param options options.
 */
public record Query(String table, TimeRange time, Filter filter, List<String> columns, List<GroupKey> groupBy,
    List<Agg> aggs,
                    Filter having, List<OrderKey> orderBy, Integer limit, Integer offset, Options options) {
    /**
     * Copies the lists and checks what needs no table (the same for JSON and for queries built in Java).
     *
     * @throws QueryException INVALID_QUERY at {@code /limit} when it is negative, at {@code /aggs/i/op} when an
     *                        aggregate has no op.
     */
    public Query {
        if (limit != null && limit < 0) {
            throw QueryException.outOfRange("/limit", 0, Integer.MAX_VALUE, limit);
        }
        if (offset != null && offset < 0) {
            throw QueryException.outOfRange("/offset", 0, Integer.MAX_VALUE, offset);
        }
        for (int i = 0; i < aggs.size(); i++) {
            if (aggs.get(i).op() == null) {
                throw new QueryException(ErrorCode.INVALID_QUERY,
                    "missing required field \"op\"; use one of " + AggOp.NAMES, "/aggs/" + i + "/op");
            }
        }
        columns = List.copyOf(columns);
        groupBy = List.copyOf(groupBy);
        aggs = List.copyOf(aggs);
        orderBy = List.copyOf(orderBy);
        options = options == null ? Options.NONE : options;
    }

    /**
     * A query without an offset.
     *
     * @param table   table name.
     * @param time    time range or null.
     * @param filter  row filter or null.
     * @param columns scan output columns.
     * @param groupBy group keys.
     * @param aggs    aggregates.
     * @param having  filter over outputs, or null.
     * @param orderBy sort keys.
     * @param limit   row limit or null.
     * @param options options.
     */
    public Query(final String table, final TimeRange time, final Filter filter, final List<String> columns,
        final List<GroupKey> groupBy, final List<Agg> aggs, final Filter having, final List<OrderKey> orderBy,
        final Integer limit, final Options options) {
        this(table, time, filter, columns, groupBy, aggs, having, orderBy, limit, null, options);
    }

    /** @return the offset, 0 when none. */
    public int skip() {
        return offset == null ? 0 : offset;
    }

    /**
     * @param newLimit  the row limit, or null.
     * @param newOffset the offset, or null.
     * @return this query with that page of its answer.
     */
    public Query withPage(final Integer newLimit, final Integer newOffset) {
        return new Query(table, time, filter, columns, groupBy, aggs, having, orderBy, newLimit, newOffset, options);
    }

    /**
     * @param more conjuncts every row must also pass.
     * @return this query with its filter (if any) and them as one AND.
     */
    public Query narrowedBy(final List<Filter> more) {
        final List<Filter> all = new ArrayList<>();
        if (filter != null) {
            all.add(filter);
        }
        all.addAll(more);
        final Filter f = all.size() == 1 ? all.get(0) : new Filter.And(all);
        return new Query(table, time, f, columns, groupBy, aggs, having, orderBy, limit, offset, options);
    }

    /** @param newOptions the options. @return this query with them. */
    public Query withOptions(final Options newOptions) {
        return new Query(table, time, filter, columns, groupBy, aggs, having, orderBy, limit, offset, newOptions);
    }

    /** @return whether this is a scan (no aggregates). */
    public boolean isScan() {
        return aggs.isEmpty();
    }

    /** @param table the table. @return a fluent builder. */
    public static Builder builder(final String table) {
        return new Builder(table);
    }

    /** Fluent builder of a {@link Query}. */
    public static final class Builder {
        private final String table;
        private TimeRange time;
        private Filter filter;
        private final List<String> columns = new ArrayList<>();
        private final List<GroupKey> groupBy = new ArrayList<>();
        private final List<Agg> aggs = new ArrayList<>();
        private Filter having;
        private final List<OrderKey> orderBy = new ArrayList<>();
        private Integer limit;
        private Integer offset;
        private Long timeoutMs;
        private Long maxGroups;
        private Boolean epochNanos;

        private Builder(final String table) {
            this.table = table;
        }

        /** @param from inclusive (ISO-8601 or Long nanos). @param to exclusive. @return this */
        public Builder time(final Object from, final Object to) {
            this.time = new TimeRange(from, to);
            return this;
        }

        /** @param value the filter. @return this */
        public Builder filter(final Filter value) {
            this.filter = value;
            return this;
        }

        /** @param names scan columns. @return this */
        public Builder columns(final String... names) {
            columns.addAll(Arrays.asList(names));
            return this;
        }

        /** @param cols group by these columns. @return this */
        public Builder groupBy(final String... cols) {
            for (final String c : cols) {
                groupBy.add(GroupKey.column(c));
            }
            return this;
        }

        /** @param key a group key. @return this */
        public Builder groupBy(final GroupKey key) {
            groupBy.add(key);
            return this;
        }

        /** @param width bucket width. @param col timestamp column. @param as output name. @return this */
        public Builder bucket(final String width, final String col, final String as) {
            groupBy.add(GroupKey.bucket(width, col, as));
            return this;
        }

        /** @param values aggregates. @return this */
        public Builder agg(final Agg... values) {
            aggs.addAll(Arrays.asList(values));
            return this;
        }

        /** @param value having filter. @return this */
        public Builder having(final Filter value) {
            this.having = value;
            return this;
        }

        /** @param col output name. @param desc descending. @return this */
        public Builder orderBy(final String col, final boolean desc) {
            orderBy.add(new OrderKey(col, desc));
            return this;
        }

        /** @param value rows of the ordered answer left out first. @return this */
        public Builder offset(final int value) {
            this.offset = value;
            return this;
        }

        /** @param value row limit. @return this */
        public Builder limit(final int value) {
            this.limit = value;
            return this;
        }

        /** @param value timeout. @return this */
        public Builder timeoutMs(final long value) {
            this.timeoutMs = value;
            return this;
        }

        /** @param value group limit. @return this */
        public Builder maxGroups(final long value) {
            this.maxGroups = value;
            return this;
        }

        /** @param value epoch nanos in JSON output. @return this */
        public Builder epochNanos(final boolean value) {
            this.epochNanos = value;
            return this;
        }

        /** @return the query. */
        public Query build() {
            return new Query(table, time, filter, columns, groupBy, aggs, having, orderBy, limit, offset,
                new Options(timeoutMs, maxGroups, epochNanos));
        }
    }
}
