package io.tradestore.query.parse;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import io.tradestore.query.model.Agg;
import io.tradestore.query.model.AggOp;
import io.tradestore.query.model.Filter;
import io.tradestore.query.model.GroupKey;
import io.tradestore.query.model.OrderKey;
import io.tradestore.query.model.Options;
import io.tradestore.query.model.Query;
import io.tradestore.query.model.TimeRange;

/**
 * Reads a well-formed query straight from Jackson's token stream into the model, without building a tree of it first.
 * It accepts exactly what {@link QueryParser}'s tree reading accepts, giving the same model, and gives up (null) at the
 * first thing it does not accept, whatever that is: bad JSON, an unknown field, a wrong type, a value out of range.
 * The tree reading then reads the same text and names the error and its JSON path, so every error comes from one
 * place, and its checks (in their order) stay the only description of what is wrong.
 */
final class StreamingQueryReader {
    /** Thrown to give up: preallocated, no stack trace (it is caught a few frames up and never shown). */
    private static final GiveUp GIVE_UP = new GiveUp();
    // a filter's fields, one bit each, to check them against the op's once the op is known (it may come last)
    private static final int F_OP = 1;
    private static final int F_COL = 2;
    private static final int F_VALUE = 4;
    private static final int F_VALUES = 8;
    private static final int F_GT = 16;
    private static final int F_GTE = 32;
    private static final int F_LT = 64;
    private static final int F_LTE = 128;
    private static final int F_ARGS = 256;
    private static final int F_ARG = 512;
    private static final int F_RANGE = F_OP | F_COL | F_GT | F_GTE | F_LT | F_LTE;

    private final JsonParser p;

    private StreamingQueryReader(final JsonParser p) {
        this.p = p;
    }

    /**
     * @param parser a parser of the query text (closed here).
     * @return the query, or null when the text is not a well-formed query (or reading it failed).
     */
    static Query read(final JsonParser parser) {
        try (JsonParser in = parser) {
            return new StreamingQueryReader(in).query();
        } catch (final IOException | RuntimeException e) { // a GiveUp, bad JSON, a number Jackson cannot read
            return null;
        }
    }

    private static GiveUp giveUp() {
        return GIVE_UP;
    }

    private Query query() throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw giveUp();
        }
        String table = null;
        TimeRange time = null;
        Filter filter = null;
        List<String> columns = new ArrayList<>();
        List<GroupKey> groupBy = new ArrayList<>();
        List<Agg> aggs = new ArrayList<>();
        Filter having = null;
        List<OrderKey> orderBy = new ArrayList<>();
        Integer limit = null;
        Integer offset = null;
        Options options = Options.NONE;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            final String field = p.currentName();
            if (p.nextToken() == JsonToken.VALUE_NULL) {
                if (!QueryParser.TOP.contains(field) || field.equals("table")) {
                    throw giveUp();
                }
                continue; // null is absent
            }
            switch (field) {
                case "table" -> table = text();
                case "time" -> time = time();
                case "filter" -> filter = filter(1);
                case "columns" -> columns = columns();
                case "groupBy" -> groupBy = groupBy();
                case "aggs" -> aggs = aggs();
                case "having" -> having = filter(1);
                case "orderBy" -> orderBy = orderBy();
                case "limit" -> limit = (int) longValue(0, Integer.MAX_VALUE);
                case "offset" -> offset = (int) longValue(0, Integer.MAX_VALUE);
                case "options" -> options = options();
                default -> throw giveUp();
            }
        }
        if (table == null || p.nextToken() != null) {
            throw giveUp();
        }
        return new Query(table, time, filter, columns, groupBy, aggs, having, orderBy, limit, offset, options);
    }

    private TimeRange time() throws IOException {
        expect(JsonToken.START_OBJECT);
        Object from = null;
        Object to = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            final String field = p.currentName();
            final JsonToken t = p.nextToken();
            if (!field.equals("from") && !field.equals("to")) {
                throw giveUp();
            }
            Object v = null;
            if (t == JsonToken.VALUE_STRING) {
                v = p.getText();
            } else if (t == JsonToken.VALUE_NUMBER_INT && fitsLong()) {
                v = p.getLongValue();
            } else if (t != JsonToken.VALUE_NULL) {
                throw giveUp();
            }
            if (field.equals("from")) {
                from = v;
            } else {
                to = v;
            }
        }
        return new TimeRange(from, to);
    }

    private List<String> columns() throws IOException {
        expect(JsonToken.START_ARRAY);
        final List<String> columns = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            columns.add(text());
        }
        return columns;
    }

    private List<GroupKey> groupBy() throws IOException {
        expect(JsonToken.START_ARRAY);
        final List<GroupKey> groupBy = new ArrayList<>();
        for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
            if (t == JsonToken.VALUE_STRING) {
                groupBy.add(GroupKey.column(p.getText()));
                continue;
            }
            expect(JsonToken.START_OBJECT);
            String col = null;
            String bucket = null;
            String as = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                final String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "col" -> col = textOrNull();
                    case "bucket" -> bucket = textOrNull();
                    case "as" -> as = textOrNull();
                    default -> throw giveUp();
                }
            }
            if (col == null) {
                throw giveUp();
            }
            groupBy.add(new GroupKey(col, bucket, as));
        }
        return groupBy;
    }

    private List<Agg> aggs() throws IOException {
        expect(JsonToken.START_ARRAY);
        final List<Agg> aggs = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            expect(JsonToken.START_OBJECT);
            String name = null;
            String op = null;
            String col = null;
            Double pct = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                final String field = p.currentName();
                final JsonToken t = p.nextToken();
                switch (field) {
                    case "name" -> name = textOrNull();
                    case "op" -> op = textOrNull();
                    case "col" -> col = textOrNull();
                    case "p" -> pct = t == JsonToken.VALUE_NULL ? null : percentile(t);
                    default -> throw giveUp();
                }
            }
            if (name == null || op == null || AggOp.of(op) == null) {
                throw giveUp();
            }
            aggs.add(new Agg(name, op, col, pct));
        }
        return aggs;
    }

    /** @return a number as the tree's {@code doubleValue()} of its node gives it. */
    private double percentile(final JsonToken t) throws IOException {
        if (t == JsonToken.VALUE_NUMBER_INT) {
            return fitsLong() ? (double) p.getLongValue() : p.getBigIntegerValue().doubleValue();
        }
        if (t == JsonToken.VALUE_NUMBER_FLOAT) {
            return decimal().doubleValue();
        }
        throw giveUp();
    }

    private List<OrderKey> orderBy() throws IOException {
        expect(JsonToken.START_ARRAY);
        final List<OrderKey> orderBy = new ArrayList<>();
        for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
            if (t == JsonToken.VALUE_STRING) {
                orderBy.add(new OrderKey(p.getText(), false));
                continue;
            }
            expect(JsonToken.START_OBJECT);
            String col = null;
            boolean desc = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                final String field = p.currentName();
                final JsonToken v = p.nextToken();
                switch (field) {
                    case "col" -> col = textOrNull();
                    case "desc" -> desc = v != JsonToken.VALUE_NULL && bool(v);
                    default -> throw giveUp();
                }
            }
            if (col == null) {
                throw giveUp();
            }
            orderBy.add(new OrderKey(col, desc));
        }
        return orderBy;
    }

    private Options options() throws IOException {
        expect(JsonToken.START_OBJECT);
        Long timeoutMs = null;
        Long maxGroups = null;
        Boolean epochNanos = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            final String field = p.currentName();
            final JsonToken v = p.nextToken();
            final boolean absent = v == JsonToken.VALUE_NULL;
            switch (field) {
                case "timeoutMs" -> timeoutMs = absent ? null : longValue(1, Long.MAX_VALUE);
                case "maxGroups" -> maxGroups = absent ? null : longValue(1, Long.MAX_VALUE);
                case "epochNanos" -> epochNanos = absent ? null : bool(v);
                default -> throw giveUp();
            }
        }
        return new Options(timeoutMs, maxGroups, epochNanos);
    }

    /**
     * @param depth the filter's nesting level (the top one is 1; each and/or/not adds one).
     * @return the filter whose object starts at the current token.
     */
    private Filter filter(final int depth) throws IOException {
        if (depth > QueryParser.MAX_FILTER_DEPTH) {
            throw giveUp();
        }
        expect(JsonToken.START_OBJECT);
        int fields = 0;
        String op = null;
        String col = null;
        Object value = null;
        List<Object> values = null;
        final Object[] bounds = new Object[4]; // gt gte lt lte
        List<Filter> args = null;
        Filter arg = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            final String field = p.currentName();
            final boolean absent = p.nextToken() == JsonToken.VALUE_NULL;
            switch (field) {
                case "op" -> {
                    fields |= F_OP;
                    op = textOrNull();
                }
                case "col" -> {
                    fields |= F_COL;
                    col = textOrNull();
                }
                case "value" -> {
                    fields |= F_VALUE;
                    value = absent ? null : value();
                }
                case "values" -> {
                    fields |= F_VALUES;
                    values = absent ? null : values();
                }
                case "gt", "gte", "lt", "lte" -> {
                    final int b = field.equals("gt") ? 0 : field.equals("gte") ? 1 : field.equals("lt") ? 2 : 3;
                    fields |= F_GT << b;
                    bounds[b] = absent ? null : value();
                }
                case "args" -> {
                    fields |= F_ARGS;
                    args = absent ? null : args(depth + 1);
                }
                case "arg" -> {
                    fields |= F_ARG;
                    arg = absent ? null : filter(depth + 1);
                }
                default -> throw giveUp();
            }
        }
        if (op == null) {
            throw giveUp();
        }
        return switch (op) {
            case "eq", "ne" -> {
                allowed(fields, F_OP | F_COL | F_VALUE, col != null && value != null);
                yield op.equals("eq") ? new Filter.Eq(col, value) : new Filter.Ne(col, value);
            }
            case "in" -> {
                allowed(fields, F_OP | F_COL | F_VALUES, col != null && values != null && !values.isEmpty());
                yield new Filter.In(col, values);
            }
            case "range" -> {
                allowed(fields, F_RANGE, col != null && (bounds[0] == null || bounds[1] == null)
                    && (bounds[2] == null || bounds[3] == null)
                    && (bounds[0] != null || bounds[1] != null || bounds[2] != null || bounds[3] != null));
                yield new Filter.Range(col, bounds[0], bounds[1], bounds[2], bounds[3]);
            }
            case "and", "or" -> {
                allowed(fields, F_OP | F_ARGS, args != null && !args.isEmpty());
                yield op.equals("and") ? new Filter.And(args) : new Filter.Or(args);
            }
            case "not" -> {
                allowed(fields, F_OP | F_ARG, arg != null);
                yield new Filter.Not(arg);
            }
            default -> throw giveUp();
        };
    }

    /** Gives up unless the fields seen are among the allowed ones and the op's own checks hold. */
    private static void allowed(final int fields, final int allowed, final boolean valid) {
        if ((fields & ~allowed) != 0 || !valid) {
            throw giveUp();
        }
    }

    private List<Filter> args(final int depth) throws IOException {
        expect(JsonToken.START_ARRAY);
        final List<Filter> args = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            args.add(filter(depth));
        }
        return args;
    }

    private List<Object> values() throws IOException {
        expect(JsonToken.START_ARRAY);
        final List<Object> values = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            values.add(value());
        }
        return values;
    }

    /** @return a filter value as the tree reads it: a String, a Long, a BigInteger beyond longs, or a BigDecimal. */
    private Object value() throws IOException {
        switch (p.currentToken()) {
            case VALUE_STRING:
                return p.getText();
            case VALUE_NUMBER_INT:
                return fitsLong() ? (Object) p.getLongValue() : p.getBigIntegerValue();
            case VALUE_NUMBER_FLOAT:
                return decimal();
            default:
                throw giveUp();
        }
    }

    /** @return the current number exactly, refused as the tree refuses it when its exponent does not fit. */
    private BigDecimal decimal() throws IOException {
        final BigDecimal d = p.getDecimalValue();
        if (d.scale() == Integer.MIN_VALUE) {
            throw giveUp();
        }
        return d;
    }

    private boolean fitsLong() throws IOException {
        final JsonParser.NumberType t = p.getNumberType();
        return t == JsonParser.NumberType.INT || t == JsonParser.NumberType.LONG;
    }

    /** @return the current integer, when it lies from {@code min} to {@code max}. */
    private long longValue(final long min, final long max) throws IOException {
        if (p.currentToken() != JsonToken.VALUE_NUMBER_INT || !fitsLong()) {
            throw giveUp();
        }
        final long v = p.getLongValue();
        if (v < min || v > max) {
            throw giveUp();
        }
        return v;
    }

    private static boolean bool(final JsonToken t) {
        if (t != JsonToken.VALUE_TRUE && t != JsonToken.VALUE_FALSE) {
            throw giveUp();
        }
        return t == JsonToken.VALUE_TRUE;
    }

    private String text() throws IOException {
        if (p.currentToken() != JsonToken.VALUE_STRING) {
            throw giveUp();
        }
        return p.getText();
    }

    /** @return the current string, or null for JSON null (a field that is null is absent). */
    private String textOrNull() throws IOException {
        return p.currentToken() == JsonToken.VALUE_NULL ? null : text();
    }

    private void expect(final JsonToken t) {
        if (p.currentToken() != t) {
            throw giveUp();
        }
    }

    /** The signal to give up. */
    private static final class GiveUp extends RuntimeException {
        private static final long serialVersionUID = 1L;

        GiveUp() {
            super("not accepted", null, false, false);
        }
    }
}
