package io.tradestore.query.parse;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ValueNode;

import io.tradestore.core.schema.JsonErrors;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.JsonBodyCheck;
import io.tradestore.query.QueryException;
import io.tradestore.query.model.Agg;
import io.tradestore.query.model.AggOp;
import io.tradestore.query.model.Filter;
import io.tradestore.query.model.GroupKey;
import io.tradestore.query.model.OrderKey;
import io.tradestore.query.model.Options;
import io.tradestore.query.model.Query;
import io.tradestore.query.model.TimeRange;

/**
 * Reads the JSON query language into the {@link Query} model. Checks the shape only (fields, JSON types); columns and
 * value types are checked by {@link Binder} against the table. Numbers are read exactly (never through a double).
 */
public final class QueryParser {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
        .nodeFactory(new SameOnEveryJdk())
        .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .disable(JsonParser.Feature.ALLOW_COMMENTS)
        .build();
    /** The fields of a query object. */
    static final Set<String> TOP = Set.of("table", "time", "filter", "columns", "groupBy", "aggs", "having",
        "orderBy", "limit", "offset", "options");
    private static final Set<String> TIME = Set.of("from", "to");
    private static final Set<String> GROUP = Set.of("col", "bucket", "as");
    private static final Set<String> AGG = Set.of("name", "op", "col", "p");
    private static final Set<String> ORDER = Set.of("col", "desc");
    private static final Set<String> OPTIONS = Set.of("timeoutMs", "maxGroups", "epochNanos");

    private QueryParser() {
    }

    /**
     * Parses a query.
     *
     * @param json the text; one byte order mark (U+FEFF) before it is skipped, as Jackson skips it in bytes (editors on
     *             Windows save files with one), and one anywhere else is not JSON.
     * @return the model.
     * @throws QueryException MALFORMED_JSON or INVALID_QUERY with the JSON path.
     */
    public static Query parse(final String json) {
        final String text = json != null && json.startsWith("\uFEFF") ? json.substring(1) : json;
        if (text != null) {
            final Query q = streaming(text);
            if (q != null) {
                return q;
            }
        }
        return parseTree(text);
    }

    /**
     * Parses a query through Jackson's tree model, as {@link #parse(String)} does for text it cannot read straight from
     * the token stream: the reference that reading is tested against, and the one that names every error and its path.
     *
     * @param text the query text, without a byte order mark.
     * @return the model.
     * @throws QueryException MALFORMED_JSON or INVALID_QUERY with the JSON path.
     */
    public static Query parseTree(final String text) {
        final JsonNode root;
        try {
            root = MAPPER.readTree(text);
        } catch (final JsonProcessingException e) {
            throw malformed(e);
        } catch (final RuntimeException e) {
            throw malformed(e);
        }
        return fromRoot(root);
    }

    /**
     * Parses a query from its bytes as they arrived (an HTTP body), without first copying them into a String. The bytes
     * are checked as Jackson reads them ({@link JsonBodyCheck}), and those after a syntax error too: what is not UTF-8
     * anywhere, or holds a NUL among its first four bytes (Jackson would read it as UTF-16 or UTF-32), fails as the
     * HTTP server refuses such a body, whatever else is wrong with it.
     *
     * @param utf8Json the text in UTF-8, after one optional byte order mark. It is read to its end and closed.
     * @return the model.
     * @throws QueryException MALFORMED_JSON (also when the stream cannot be read) or INVALID_QUERY with the JSON path.
     */
    public static Query parse(final InputStream utf8Json) {
        final CheckedInput in = new CheckedInput(utf8Json);
        final RecordedInput recorded = new RecordedInput(in);
        final Query q = streaming(recorded);
        if (q != null) { // read to the end of the JSON: what is left to check is what follows it, as below
            final QueryException bytes = in.finish();
            if (bytes != null) {
                throw bytes;
            }
            if (in.sourceFailure != null) {
                throw unreadable(in.sourceFailure);
            }
            return q;
        }
        JsonNode root = null;
        QueryException failure = null;
        try {
            root = MAPPER.readTree(recorded.replay());
        } catch (final JsonProcessingException e) {
            failure = malformed(e);
        } catch (final IOException e) {
            failure = unreadable(e);
        } catch (final RuntimeException e) {
            failure = malformed(e);
        }
        final QueryException bytes = in.finish();
        if (bytes != null) {
            throw bytes;
        }
        if (failure != null) {
            throw failure;
        }
        if (in.sourceFailure != null) { // Jackson read to the end, then the source failed to close
            throw unreadable(in.sourceFailure);
        }
        return fromRoot(root);
    }

    /**
     * @param text the query text.
     * @return the query read by {@link StreamingQueryReader} (the path of every well-formed query: no tree is built),
     *     or null when it gives up; the tree reading below then says what is wrong.
     */
    private static Query streaming(final String text) {
        try {
            return StreamingQueryReader.read(MAPPER.createParser(text));
        } catch (final IOException | RuntimeException e) {
            return null;
        }
    }

    /** @param in the query bytes, recorded. @return the query as {@link #streaming(String)} reads it, or null. */
    private static Query streaming(final RecordedInput in) {
        try {
            return StreamingQueryReader.read(MAPPER.createParser(in));
        } catch (final IOException | RuntimeException e) {
            return null;
        }
    }

    private static QueryException unreadable(final IOException e) {
        return new QueryException(ErrorCode.MALFORMED_JSON, "the query could not be read: " + e.getMessage(), "");
    }

    /**
     * The stream Jackson reads, checked as it passes: a read fails once the bytes are refused, and {@link #finish}
     * reads on to the end (bytes not UTF-8 after a syntax error still fail as not UTF-8) and closes the source.
     */
    private static final class CheckedInput extends InputStream {
        private final InputStream source;
        private final JsonBodyCheck check = new JsonBodyCheck();
        private final byte[] one = new byte[1];
        /** Whether the source has reached its end. */
        private boolean ended;
        /** An error of the source's read or close met by {@link #finish}. */
        private IOException sourceFailure;

        CheckedInput(final InputStream source) {
            this.source = source;
        }

        @Override
        public int read() throws IOException {
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(final byte[] b, final int off, final int len) throws IOException {
            if (!check.refused()) {
                final int n = source.read(b, off, len);
                if (n < 0) {
                    ended = true;
                    if (check.problem() == null) {
                        return n;
                    }
                } else if (check.accept(b, off, n) && !check.refused()) {
                    return n;
                }
            }
            throw new IOException("refused bytes"); // never shown: finish() names the problem
        }

        /**
         * Jackson closes its source when it is done (not always when a read fails): the source stays open for
         * {@link #finish}.
         */
        @Override
        public void close() {
        }

        /** @return the bytes' problem (after reading the rest of them, unless they are malformed already), or null. */
        QueryException finish() {
            try (InputStream s = source) {
                final byte[] rest = ended ? null : new byte[8192];
                int n = 0;
                while (!ended && check.accept(rest, 0, n)) {
                    n = s.read(rest);
                    ended = n < 0;
                }
            } catch (final IOException e) {
                sourceFailure = e;
            }
            return check.problem();
        }
    }

    private static QueryException malformed(final JsonProcessingException e) {
        return new QueryException(ErrorCode.MALFORMED_JSON,
            "the query is not valid JSON: " + JsonErrors.describe(e), "");
    }

    /** Jackson reports some number overflows (1E+2147483648) as NumberFormatException. */
    private static QueryException malformed(final RuntimeException e) {
        return new QueryException(ErrorCode.MALFORMED_JSON, "the query is not valid JSON: "
            + JsonErrors.words(e.getMessage()), "");
    }

    private static Query fromRoot(final JsonNode root) {
        if (root == null || root.isMissingNode()) {
            throw new QueryException(ErrorCode.MALFORMED_JSON, "the query is empty; send a JSON object", "");
        }
        return query(root);
    }

    /**
     * Makes a number's fate independent of the JDK: {@code new BigDecimal("1E+2147483648")} (scale Integer.MIN_VALUE)
     * is "Exponent overflow." on JDK 17 but a value on JDK 21 and later; this factory refuses it on every JDK, so the
     * same query is MALFORMED_JSON everywhere (QueryErrorsTest runs on both).
     */
    private static final class SameOnEveryJdk extends JsonNodeFactory {
        private static final long serialVersionUID = 1L;

        SameOnEveryJdk() {
            super(true);
        }

        @Override
        public ValueNode numberNode(final BigDecimal v) {
            if (v != null && v.scale() == Integer.MIN_VALUE) {
                throw new NumberFormatException("the number " + v + " is out of range: its exponent does not fit");
            }
            return super.numberNode(v);
        }
    }

    /**
     * Deepest nesting of filters accepted (and/or/not): deeper queries are rejected instead of overflowing the stack.
     */
    public static final int MAX_FILTER_DEPTH = 64;

    /**
     * Refuses a filter nested deeper than {@link #MAX_FILTER_DEPTH} levels: the top filter is level 1, and each {@code
     * and}/{@code or}/{@code not} adds one. (Counted in path segments before, so and/or stopped at 63 and not at 127.)
     *
     * @param p the filter's JSON path ({@code /filter/args/0/arg}: one level per "/arg" segment below the top).
     * @throws QueryException INVALID_QUERY at p.
     */
    public static void checkFilterDepth(final String p) {
        int levels = 1;
        for (int i = p.indexOf("/arg"); i >= 0; i = p.indexOf("/arg", i + 4)) {
            levels++;
        }
        if (levels > MAX_FILTER_DEPTH) {
            throw invalid(p, "filters nest at most " + MAX_FILTER_DEPTH + " levels deep");
        }
    }

    private static Query query(final JsonNode n) {
        object(n, "", TOP);
        final String table = text(required(n, "table", ""), "/table");
        final TimeRange time = timeRange(n);
        final Filter filter = present(n, "filter") ? filter(n.get("filter"), "/filter") : null;
        final List<String> columns = columns(n);
        final List<GroupKey> groupBy = groupBy(n);
        final List<Agg> aggs = aggs(n);
        final Filter having = present(n, "having") ? filter(n.get("having"), "/having") : null;
        final List<OrderKey> orderBy = orderBy(n);
        final Integer limit = present(n, "limit") ? (int) longValue(n.get("limit"), "/limit", 0, Integer.MAX_VALUE)
            : null;
        final Integer offset = present(n, "offset") ? (int) longValue(n.get("offset"), "/offset", 0,
            Integer.MAX_VALUE) : null;
        final Options options = options(n);
        return new Query(table, time, filter, columns, groupBy, aggs, having, orderBy, limit, offset, options);
    }

    private static TimeRange timeRange(final JsonNode n) {
        TimeRange time = null;
        if (present(n, "time")) {
            final JsonNode t = n.get("time");
            object(t, "/time", TIME);
            final Object from = present(t, "from") ? timeValue(t.get("from"), "/time/from") : null;
            final Object to = present(t, "to") ? timeValue(t.get("to"), "/time/to") : null;
            time = new TimeRange(from, to);
        }
        return time;
    }

    private static List<String> columns(final JsonNode n) {
        final List<String> columns = new ArrayList<>();
        if (present(n, "columns")) {
            final JsonNode a = array(n.get("columns"), "/columns");
            for (int i = 0; i < a.size(); i++) {
                columns.add(text(a.get(i), "/columns/" + i));
            }
        }
        return columns;
    }

    private static List<GroupKey> groupBy(final JsonNode n) {
        final List<GroupKey> groupBy = new ArrayList<>();
        if (present(n, "groupBy")) {
            final JsonNode a = array(n.get("groupBy"), "/groupBy");
            for (int i = 0; i < a.size(); i++) {
                final String p = "/groupBy/" + i;
                final JsonNode g = a.get(i);
                if (g.isTextual()) {
                    groupBy.add(GroupKey.column(g.textValue()));
                } else {
                    if (!g.isObject()) {
                        throw invalid(p,
                            "a group key is a column name or {\"col\": name, \"bucket\": width, \"as\": name}, not "
                                + kind(g));
                    }
                    object(g, p, GROUP);
                    groupBy.add(new GroupKey(text(required(g, "col", p), p + "/col"),
                        present(g, "bucket") ? text(g.get("bucket"), p + "/bucket") : null,
                        present(g, "as") ? text(g.get("as"), p + "/as") : null));
                }
            }
        }
        return groupBy;
    }

    private static List<Agg> aggs(final JsonNode n) {
        final List<Agg> aggs = new ArrayList<>();
        if (present(n, "aggs")) {
            final JsonNode a = array(n.get("aggs"), "/aggs");
            for (int i = 0; i < a.size(); i++) {
                final String p = "/aggs/" + i;
                final JsonNode g = a.get(i);
                object(g, p, AGG);
                final String op = text(required(g, "op", p), p + "/op");
                if (AggOp.of(op) == null) {
                    throw invalid(p + "/op", "unknown aggregate '" + op + "'; use one of " + AggOp.NAMES);
                }
                Double pct = null;
                if (present(g, "p")) {
                    if (!g.get("p").isNumber()) {
                        throw invalid(p + "/p", "p must be a number between 0 and 100");
                    }
                    pct = g.get("p").doubleValue();
                }
                aggs.add(new Agg(text(required(g, "name", p), p + "/name"), op,
                    present(g, "col") ? text(g.get("col"), p + "/col") : null, pct));
            }
        }
        return aggs;
    }

    private static List<OrderKey> orderBy(final JsonNode n) {
        final List<OrderKey> orderBy = new ArrayList<>();
        if (present(n, "orderBy")) {
            final JsonNode a = array(n.get("orderBy"), "/orderBy");
            for (int i = 0; i < a.size(); i++) {
                final String p = "/orderBy/" + i;
                final JsonNode o = a.get(i);
                if (o.isTextual()) {
                    orderBy.add(new OrderKey(o.textValue(), false));
                } else {
                    if (!o.isObject()) {
                        throw invalid(p,
                            "an orderBy key is a column name or {\"col\": name, \"desc\": true|false}, not " + kind(o));
                    }
                    object(o, p, ORDER);
                    boolean desc = false;
                    if (present(o, "desc")) {
                        if (!o.get("desc").isBoolean()) {
                            throw invalid(p + "/desc", "desc must be true or false");
                        }
                        desc = o.get("desc").booleanValue();
                    }
                    orderBy.add(new OrderKey(text(required(o, "col", p), p + "/col"), desc));
                }
            }
        }
        return orderBy;
    }

    private static Options options(final JsonNode n) {
        Options options = Options.NONE;
        if (present(n, "options")) {
            final JsonNode o = n.get("options");
            object(o, "/options", OPTIONS);
            Boolean epoch = null;
            if (present(o, "epochNanos")) {
                if (!o.get("epochNanos").isBoolean()) {
                    throw invalid("/options/epochNanos", "epochNanos must be true or false");
                }
                epoch = o.get("epochNanos").booleanValue();
            }
            options = new Options(
                present(o, "timeoutMs") ? longValue(o.get("timeoutMs"), "/options/timeoutMs", 1, Long.MAX_VALUE) : null,
                present(o, "maxGroups") ? longValue(o.get("maxGroups"), "/options/maxGroups", 1, Long.MAX_VALUE) : null,
                epoch);
        }
        return options;
    }

    private static Filter filter(final JsonNode n, final String p) {
        checkFilterDepth(p);
        if (!n.isObject()) {
            throw invalid(p, "a filter must be an object with an \"op\": eq ne in range and or not");
        }
        final String op = text(required(n, "op", p), p + "/op");
        switch (op) {
            case "eq":
            case "ne": {
                object(n, p, Set.of("op", "col", "value"));
                final String col = text(required(n, "col", p), p + "/col");
                final Object v = value(required(n, "value", p), p + "/value");
                return op.equals("eq") ? new Filter.Eq(col, v) : new Filter.Ne(col, v);
            }
            case "in": {
                object(n, p, Set.of("op", "col", "values"));
                final String col = text(required(n, "col", p), p + "/col");
                final JsonNode a = array(required(n, "values", p), p + "/values");
                if (a.isEmpty()) {
                    throw invalid(p + "/values", "in needs at least one value");
                }
                final List<Object> values = new ArrayList<>();
                for (int i = 0; i < a.size(); i++) {
                    values.add(value(a.get(i), p + "/values/" + i));
                }
                return new Filter.In(col, values);
            }
            case "range": {
                object(n, p, Set.of("op", "col", "gt", "gte", "lt", "lte"));
                final String col = text(required(n, "col", p), p + "/col");
                final Object gt = present(n, "gt") ? value(n.get("gt"), p + "/gt") : null;
                final Object gte = present(n, "gte") ? value(n.get("gte"), p + "/gte") : null;
                final Object lt = present(n, "lt") ? value(n.get("lt"), p + "/lt") : null;
                final Object lte = present(n, "lte") ? value(n.get("lte"), p + "/lte") : null;
                if (gt != null && gte != null) {
                    throw invalid(p + "/gte", "a range takes at most one of gt and gte");
                }
                if (lt != null && lte != null) {
                    throw invalid(p + "/lte", "a range takes at most one of lt and lte");
                }
                if (gt == null && gte == null && lt == null && lte == null) {
                    throw invalid(p, "a range needs at least one of gt gte lt lte");
                }
                return new Filter.Range(col, gt, gte, lt, lte);
            }
            case "and":
            case "or": {
                object(n, p, Set.of("op", "args"));
                final JsonNode a = array(required(n, "args", p), p + "/args");
                if (a.isEmpty()) {
                    throw invalid(p + "/args", op + " needs at least one argument");
                }
                final List<Filter> args = new ArrayList<>();
                for (int i = 0; i < a.size(); i++) {
                    args.add(filter(a.get(i), p + "/args/" + i));
                }
                return op.equals("and") ? new Filter.And(args) : new Filter.Or(args);
            }
            case "not":
                object(n, p, Set.of("op", "arg"));
                return new Filter.Not(filter(required(n, "arg", p), p + "/arg"));
            default:
                throw invalid(p + "/op", "unknown filter op '" + op + "'; use one of eq ne in range and or not");
        }
    }

    private static Object value(final JsonNode v, final String p) {
        if (v.isTextual()) {
            return v.textValue();
        }
        try {
            if (v.isIntegralNumber()) {
                return v.canConvertToLong() ? (Object) v.longValue() : v.bigIntegerValue();
            }
            if (v.isNumber()) {
                return v.decimalValue();
            }
        } catch (final RuntimeException e) {
            throw invalid(p, "the number " + v.asText() + " cannot be read exactly");
        }
        throw invalid(p, "a value must be a string or a number, not " + kind(v));
    }

    private static Object timeValue(final JsonNode v, final String p) {
        if (v.isTextual() || v.isIntegralNumber() && v.canConvertToLong()) {
            return v.isTextual() ? v.textValue() : (Object) v.longValue();
        }
        throw invalid(p, "a time must be an ISO-8601 string (2026-11-17T10:00:00Z) or integer epoch nanoseconds");
    }

    /**
     * @param v   a JSON value.
     * @param p   its path.
     * @param min the smallest value the field takes (the model's constructors check it too, for queries built in Java:
     *            {@code Options}, {@code Query}, with the same message).
     * @param max the largest.
     * @return it as a long, when it is an integer from {@code min} to {@code max}.
     */
    private static long longValue(final JsonNode v, final String p, final long min, final long max) {
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < min || v.longValue() > max) {
            throw QueryException.outOfRange(p, min, max, v);
        }
        return v.longValue();
    }

    private static JsonNode required(final JsonNode n, final String field, final String p) {
        final JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            throw invalid(p + "/" + field, "missing required field \"" + field + "\"");
        }
        return v;
    }

    private static boolean present(final JsonNode n, final String field) {
        final JsonNode v = n.get(field);
        return v != null && !v.isNull();
    }

    private static String text(final JsonNode v, final String p) {
        if (!v.isTextual()) {
            throw invalid(p, "must be a string, not " + kind(v));
        }
        return v.textValue();
    }

    private static JsonNode array(final JsonNode v, final String p) {
        if (!v.isArray()) {
            throw invalid(p, "must be an array, not " + kind(v));
        }
        return v;
    }

    private static void object(final JsonNode v, final String p, final Set<String> allowed) {
        if (!v.isObject()) {
            throw invalid(p.isEmpty() ? "" : p, "must be an object, not " + kind(v));
        }
        for (final Map.Entry<String, JsonNode> e : v.properties()) {
            final String f = e.getKey();
            if (!allowed.contains(f)) {
                // a JSON pointer escapes ~ and / in a name (RFC 6901), or the path of "a/b" would name a field b
                // inside a
                throw invalid(p + "/" + f.replace("~", "~0").replace("/", "~1"), "unknown field \"" + f
                    + "\"; allowed here: " + String.join(", ", new java.util.TreeSet<>(allowed)));
            }
        }
    }

    private static String kind(final JsonNode v) {
        if (v.isTextual()) {
            return "a string";
        }
        if (v.isNumber()) {
            return "a number";
        }
        if (v.isBoolean()) {
            return "a boolean";
        }
        if (v.isArray()) {
            return "an array";
        }
        if (v.isObject()) {
            return "an object";
        }
        return "null";
    }

    /** @param path JSON path. @param message what is allowed. @return an INVALID_QUERY exception. */
    public static QueryException invalid(final String path, final String message) {
        return new QueryException(ErrorCode.INVALID_QUERY, message, path);
    }
}
