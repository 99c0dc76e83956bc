package io.tradestore.query;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamWriteConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.ingest.CsvLoader;
import io.tradestore.core.ingest.LoadOptions;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A seeded mutation fuzzer of the JSON query language: valid queries (every filter op, time buckets, every aggregate,
 * having, orderBy, limit, options) are mutated into wrong types, extreme numbers, empty and deeply nested structures,
 * unknown and duplicate fields, bad durations and timestamps, and broken JSON text. Every outcome must be a result that
 * encodes as JSON, or a {@link QueryException} whose code is not INTERNAL and whose path points into the query; never
 * another exception, an error, or a hang. Each query also runs on a plain engine (one thread, no indexes or summaries,
 * 64-row morsels), which must give the same answer or the same error code and path. Replay one case with
 * {@code -Dtradestore.fuzz.seed=S -Dtradestore.fuzz.cases=N} (case i uses seed {@code S + i}).
 */
class QueryFuzzTest {
    private static final long SEED = Long.getLong("tradestore.fuzz.seed", 0x7EAD_5EEDL);
    private static final int CASES = Integer.getInteger("tradestore.fuzz.cases", 3000);
    /** Far more than any case needs on this data (a few ms): a case that takes this long is a hang. */
    private static final long CASE_TIMEOUT_SECONDS = 20;
    /**
     * The test's own reader and writer: deeper nesting than any parser should accept, so that the engine gets to refuse
     * it.
     */
    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
        .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(100_000).build())
        .streamWriteConstraints(StreamWriteConstraints.builder().maxNestingDepth(100_000).build()).build());
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private static final String[] SEEDS = {
        "{\"table\":\"trades\",\"time\":{\"from\":\"2026-11-18T00:00:00Z\",\"to\":\"2026-11-19T12:00:00Z\"},"
            + "\"filter\":{\"op\":\"and\",\"args\":[{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM3\"},"
            + "{\"op\":\"in\",\"col\":\"venue\",\"values\":[\"XLON\",\"XPAR\"]},{\"op\":\"range\",\"col\":\"quantity\""
            + ",\"gte\":100,\"lt\":10000},"
            + "{\"op\":\"not\",\"arg\":{\"op\":\"eq\",\"col\":\"side\",\"value\":\"S\"}}]},"
            + "\"groupBy\":[\"venue\",{\"bucket\":\"1m\",\"col\":\"ts\",\"as\":\"minute\"}],"
            + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*quant"
            + "ity\"},"
            + "{\"name\":\"vwap\",\"op\":\"vwap\"},{\"name\":\"hi\",\"op\":\"max\",\"col\":\"price\"},{\"name\":\"open"
            + "\",\"op\":\"first\",\"col\":\"price\"},"
            + "{\"name\":\"p99\",\"op\":\"percentile\",\"col\":\"quantity\",\"p\":99}],"
            + "\"having\":{\"op\":\"range\",\"col\":\"n\",\"gte\":1},\"orderBy\":[{\"col\":\"notional\",\"desc\":true}"
            + "],\"limit\":10,"
            + "\"options\":{\"timeoutMs\":5000,\"maxGroups\":100000}}",
        "{\"table\":\"trades\",\"columns\":[\"trade_id\",\"ts\",\"price\",\"quantity\",\"side\",\"venue\"],"
            + "\"filter\":{\"op\":\"or\",\"args\":[{\"op\":\"eq\",\"col\":\"client_id\",\"value\":4},{\"op\":\"ne\",\""
            + "col\":\"venue\",\"value\":\"XETR\"}]},"
            + "\"orderBy\":[{\"col\":\"ts\",\"desc\":true},\"venue\"],\"limit\":100,\"options\":{\"epochNanos\":true}}",
        "{\"table\":\"trades\",\"groupBy\":[\"side\",\"client_id\"],\"aggs\":[{\"name\":\"d\",\"op\":\"countDistinct\""
        + ",\"col\":\"instrument\"},"
            + "{\"name\":\"a\",\"op\":\"avg\",\"col\":\"price\"},{\"name\":\"lo\",\"op\":\"min\",\"col\":\"price*quant"
            + "ity\"},"
            + "{\"name\":\"close\",\"op\":\"last\",\"col\":\"price\"},{\"name\":\"c\",\"op\":\"count\",\"col\":\"venue"
            + "\"}],"
            + "\"having\":{\"op\":\"or\",\"args\":[{\"op\":\"eq\",\"col\":\"side\",\"value\":\"B\"},{\"op\":\"range\","
            + "\"col\":\"a\",\"gt\":\"1.5\"}]},"
            + "\"orderBy\":[\"d\",{\"col\":\"close\",\"desc\":false}],\"limit\":0}",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"range\",\"col\":\"price\",\"gt\":1.000001,\"lte\":\"400.5\"},"
            + "\"groupBy\":[{\"bucket\":\"PT30S\",\"col\":\"ts\"}],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
            + "{\"name\":\"s\",\"op\":\"sum\",\"col\":\"quantity\"}],\"options\":{\"maxGroups\":50}}",
        "{\"table\":\"trades\",\"time\":{\"from\":1795000000000000000,\"to\":\"2027-01-01\"},\"aggs\":[{\"name\":\"n\""
        + ",\"op\":\"count\"},"
            + "{\"name\":\"p\",\"op\":\"percentile\",\"col\":\"price*quantity\",\"p\":50.5},{\"name\":\"v\",\"op\":\"v"
            + "wap\",\"col\":\"price*quantity\"}]}",
        "{\"table\":\"wide\",\"filter\":{\"op\":\"and\",\"args\":[{\"op\":\"range\",\"col\":\"f\",\"gte\":-1.5,\"lt\":"
        + "1e300},"
            + "{\"op\":\"in\",\"col\":\"b\",\"values\":[1,2,-128,127]},{\"op\":\"range\",\"col\":\"ts2\",\"gte\":\"202"
            + "6-11-16T00:00:00+01:00\"},"
            + "{\"op\":\"not\",\"arg\":{\"op\":\"range\",\"col\":\"pnl\",\"lt\":\"-0.01\"}}]},"
            + "\"groupBy\":[\"sym\",\"s\",{\"bucket\":\"1d\",\"col\":\"ts\",\"as\":\"day\"}],\"aggs\":[{\"name\":\"n\""
            + ",\"op\":\"count\"},"
            + "{\"name\":\"sf\",\"op\":\"sum\",\"col\":\"f\"},{\"name\":\"xf\",\"op\":\"max\",\"col\":\"f*q32\"},"
            + "{\"name\":\"pf\",\"op\":\"percentile\",\"col\":\"f\",\"p\":0},{\"name\":\"big\",\"op\":\"sum\",\"col\":"
            + "\"big*big\"},"
            + "{\"name\":\"dl\",\"op\":\"countDistinct\",\"col\":\"f\"},{\"name\":\"fl\",\"op\":\"first\",\"col\":\"ts"
            + "2\"}],"
            + "\"orderBy\":[{\"col\":\"big\",\"desc\":true}],\"limit\":5}",
        "{\"table\":\"wide\",\"columns\":[\"ts\",\"big\",\"f\",\"pnl\",\"side\"],\"filter\":{\"op\":\"range\",\"col\":"
        + "\"big\",\"gt\":-9223372036854775807},"
            + "\"orderBy\":[\"f\",{\"col\":\"pnl\",\"desc\":true}]}",
        "{\"table\":\"wide\",\"groupBy\":[\"big\",\"side\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"a"
        + "\",\"op\":\"avg\",\"col\":\"big\"},"
            + "{\"name\":\"m\",\"op\":\"min\",\"col\":\"ts2\"},{\"name\":\"pp\",\"op\":\"percentile\",\"col\":\"big*pn"
            + "l\",\"p\":100}],"
            + "\"having\":{\"op\":\"in\",\"col\":\"big\",\"values\":[1,\"9223372036854775807\"]}}",
        "{\"table\":\"wide\",\"groupBy\":[{\"bucket\":\"7ns\",\"col\":\"ts2\",\"as\":\"t\"}],\"aggs\":[{\"name\":\"n\""
        + ",\"op\":\"count\"}],"
            + "\"having\":{\"op\":\"not\",\"arg\":{\"op\":\"range\",\"col\":\"t\",\"lt\":\"2026-11-17\"}}}",
    };

    /** Replacement values for any node: wrong types, extremes, empties, odd strings. */
    private static final String[] VALUES = {
        "null", "true", "false", "0", "-1", "1", "-0", "0.0", "-0.0", "1.5", "2147483647", "2147483648", "-2147483649",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "1e308", "1e309",
        "-1e309",
        "4.9e-324", "1e-400", "1e400", "1e100000", "1e1000000000", "-1e1000000000", "1e-1000000000",
        "123456789012345678901234567890.5",
        "\"\"", "\" \"", "\"NaN\"", "\"Infinity\"", "\"-Infinity\"", "\"1e1000000000\"", "\"1e-1000000000\"",
        "\"0x10\"", "\"1_000\"",
        "\"\\u0000\"", "\"\\ud83d\\udca5\"", "\"\\ud800\"", "\"\\u00e9\"", "\"B\"", "\"S\"", "\"BS\"", "\"\\u007f\"",
        "\"\\u0080\"",
        "[]", "{}", "[[]]", "[{}]", "{\"op\":\"eq\"}", "{\"op\":\"not\"}", "{\"op\":\"and\",\"args\":[]}", "[null]",
        "[1,\"a\",null]",
    };
    private static final String[] COLUMNS =
        {"trade_id", "ts", "client_id", "venue", "instrument", "side", "price", "quantity", "ts2", "b",
        "s", "q32", "big", "f", "pnl", "sym", "n", "notional", "minute", "nope", "", " ", "price*", "*price",
        "price*quantity*price",
        "price * quantity", "ts*ts", "venue*price", "f*f", "big*big", "PRICE", "price\u0000", "\u00e9", "a/b", "~0",
        "n*n"};
    private static final String[] OPS =
        {"eq", "ne", "in", "range", "and", "or", "not", "like", "EQ", "", "count", "sum", "min", "max",
        "avg", "first", "last", "vwap", "percentile", "countDistinct", "median", "time"};
    private static final String[] DURATIONS =
        {"1ns", "0ns", "1s", "1m", "5m", "15m", "1h", "1d", "7d", "36500d", "106751d", "106752d",
        "9223372036854775807ns", "9223372036854775808ns", "99999999999999999999d", "-1s", "1M", "1y", "P1W", "P1D",
        "P0D", "P-1D", "PT0S",
        "PT-1S", "PT30S", "PT0.000000001S", "P100Y", "P1M", "P1Y2D", "P2147483647D", "P2147483647W", "PT2562047H",
        "PT2562048H",
        "PT99999999999999999999H", "P1DT1H", "p1d", "pt1m", "1 s", "1e3s", "", "s", "P", "PT", "1.5s", "\u0661s",
        "1s\n"};
    private static final String[] TIMES =
        {"2026-11-17T10:00:00Z", "2026-13-01T00:00:00Z", "2026-02-29", "2024-02-29", "2026-11-17T24:00:00Z",
        "2026-11-17T10:00:60Z", "2026-11-17T10:00:00.0000000001Z", "2026-11-17T10:00:00.Z", "2026-11-17T10:00:00+25:00",
        "2026-11-17T10:00:00+18:00", "2026-11-17T10:00:00-18:00", "2262-04-11T23:47:16.854775807Z",
        "2262-04-11T23:47:16.854775808Z",
        "1677-09-21T00:12:43.145224192Z", "1677-09-21T00:12:43.145224191Z", "1677-09-21T00:12:43.145224193Z",
        "+999999999-12-31T23:59:59Z",
        "-999999999-01-01T00:00:00Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "2026-11-17T10:00:00",
        "2026-11-17 10:00:00Z",
        "yesterday", "", "\u0662\u0660\u0662\u0666-11-17T10:00:00Z", "2026-11-17T10:00:00z",
        "2026-11-17T10:00:00.123456789123Z",
        "2026-11-17T10:00:00.1234567891234567890Z"};
    private static final long[] NUMBERS =
        {0, 1, -1, 2, 99, 100, 101, Integer.MAX_VALUE, Integer.MAX_VALUE + 1L, Integer.MIN_VALUE,
        Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1, 1_795_000_000_000_000_000L, -1_000_000_000_000_000_000L,
        127, 128, -128, -129,
        32767, 32768, -32768};

    @TempDir
    static Path dir;
    private static Store store;
    private static QueryEngine engine;
    private static QueryEngine plain;
    private static ExecutorService runner;

    @BeforeAll
    static void createTables() throws IOException {
        store = Store.open(dir);
        new TradeData().write(store, TradeData.schema(Layout.COLUMN, 512, 64), 3000, 11, true);
        final Schema wide = Schema.builder("wide").layout(Layout.ROW).segmentRows(256).blockRows(32).timestamp("ts")
            .column("ts", "timestamp").column("ts2", "timestamp").column("sym", "symbol").column("side", "char")
            .column("b", "i8")
            .column("s", "i16").column("q32", "i32").column("big", "i64").column("f", "f64").column("pnl", "decimal(2)")
            .build();
        final StringBuilder csv = new StringBuilder("ts,ts2,sym,side,b,s,q32,big,f,pnl\n");
        final SplittableRandom r = new SplittableRandom(5);
        final String[] extremes = {String.valueOf(Long.MAX_VALUE), String.valueOf(Long.MIN_VALUE + 1), "0", "-1", ""};
        for (int i = 0; i < 1000; i++) {
            final long ts = i < 3 ? (i == 0 ? Long.MIN_VALUE + 1 : i == 1 ? Long.MAX_VALUE : -1) : TradeData.T0 + r
                .nextLong(1L << 45);
            csv.append(ts).append(',')
                .append(r.nextInt(10) == 0 ? ""
                : String.valueOf(r.nextInt(4) == 0 ? (r.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE + 1)
                    : ts + r.nextLong(1L << 40))).append(',')
                .append(r.nextInt(10) == 0 ? "" : "Y" + r.nextInt(30)).append(',')
                .append(r.nextInt(10) == 0 ? "" : r.nextBoolean() ? "B" : "S").append(',')
                .append(r.nextInt(10) == 0 ? "" : String.valueOf(r.nextInt(255) - 127)).append(',')
                .append(r.nextInt(10) == 0 ? "" : String.valueOf(r.nextInt(65535) - 32767)).append(',')
                .append(r.nextInt(10) == 0 ? "" : String.valueOf(r.nextInt())).append(',')
                .append(r.nextInt(3) == 0 ? extremes[r.nextInt(extremes.length)] : String.valueOf(r.nextLong()))
                .append(',')
                .append(r.nextInt(10) == 0 ? "" : r
                .nextInt(8) == 0 ? "1e308" : String.valueOf(r.nextDouble() * 1e6 - 5e5)).append(',')
                .append(r.nextInt(10) == 0 ? "" : BigDecimal.valueOf(r.nextLong() >> r.nextInt(64), 2).toPlainString())
                .append('\n');
        }
        try (TableWriter w = store.createTable(wide).writer()) {
            CsvLoader.load(w, "wide.csv", new ByteArrayInputStream(csv.toString().getBytes(StandardCharsets.UTF_8)),
                LoadOptions.defaults(), null);
        }
        store.createTable(TradeData.schema(Layout.COLUMN, 64, 16).with("empty", Layout.COLUMN, 64, 16));
        engine = new QueryEngine(store, 2);
        engine.indexes().minSegmentRows(1);
        plain = new QueryEngine(store, 1);
        plain.useIndexes(false);
        plain.morselRows(64);
        plain.smallQueryRows(0);
        runner = Executors.newSingleThreadExecutor(t -> {
            final Thread th = new Thread(t, "query-fuzz");
            th.setDaemon(true);
            return th;
        });
    }

    @AfterAll
    static void close() {
        runner.shutdownNow();
        engine.close();
        plain.close();
        store.close();
    }

    @Test
    void shouldAnswerEveryMutatedQueryWithAResultOrACodedError() throws Exception {
        final List<String> failures = new ArrayList<>();
        int results = 0;
        int errors = 0;
        for (int i = 0; i < CASES && failures.size() < 10; i++) {
            final SplittableRandom r = new SplittableRandom(SEED + i);
            final String json = mutate(r);
            final Future<Outcome[]> f = runner
                .submit(() -> new Outcome[] {Outcome.of(engine, json), Outcome.of(plain, json)});
            final Outcome[] o;
            try {
                o = f.get(CASE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (final TimeoutException e) {
                f.cancel(true);
                failures.add("case " + i + " (seed " + (SEED + i) + "): no answer within " + CASE_TIMEOUT_SECONDS
                    + " s\n  query: "
                    + abbreviate(json));
                break;
            }
            String problem;
            if (o[0].error() == null) {
                checkResult(o[0].result());
                results++;
                problem = null;
            } else {
                problem = problem(o[0].error(), json);
                errors++;
            }
            if (problem == null) {
                problem = differ(o[0], o[1]);
            }
            if (problem != null) {
                failures.add("case " + i + " (seed " + (SEED + i) + "): " + problem + "\n  query: " + abbreviate(json));
            }
        }
        assertThat(failures).as("results=%d errors=%d", results, errors).isEmpty();
        assertThat(results).as("the mutations still leave some queries valid").isPositive();
        assertThat(errors).isPositive();
    }

    /** A query's answer or failure on one engine. */
    record Outcome(QueryResult result, Throwable error) {
        static Outcome of(final QueryEngine e, final String json) {
            try {
                return new Outcome(e.execute(json), null);
            } catch (final Throwable t) {
                return new Outcome(null, t);
            }
        }
    }

    /**
     * @param a the answer of the engine with indexes, summaries and large morsels.
     * @param b the answer of the plain engine (one thread, no indexes, 64-row morsels).
     * @return null when both agree (cell by cell; doubles to 1e-9 relative, as f64 sums depend on the order), else how
     *              not.
     */
    static String differ(final Outcome a, final Outcome b) {
        if (a.error() != null || b.error() != null) {
            if (a.error() instanceof QueryException && b.error() instanceof QueryException) {
                final QueryException x = (QueryException) a.error();
                final QueryException y = (QueryException) b.error();
                if (x.code() == ErrorCode.TIMEOUT || y.code() == ErrorCode.TIMEOUT || x.code() == y.code() && x.path()
                    .equals(y.path())) {
                    return null;
                }
            }
            if (a.error() instanceof QueryException && ((QueryException) a.error()).code() == ErrorCode.TIMEOUT
                || b.error() instanceof QueryException && ((QueryException) b.error()).code() == ErrorCode.TIMEOUT) {
                return null;
            }
            return "the engines disagree: " + describe(a) + " / plain: " + describe(b);
        }
        final QueryResult x = a.result();
        final QueryResult y = b.result();
        if (!x.columns().equals(y.columns()) || x.rowCount() != y.rowCount() || x.truncated() != y.truncated()) {
            return "the engines disagree on the shape: " + x.columns() + " " + x.rowCount() + " rows / plain: " + y
                .columns() + " "
                + y.rowCount() + " rows";
        }
        for (int r = 0; r < x.rowCount(); r++) {
            for (int c = 0; c < x.columns().size(); c++) {
                final Object u = x.value(r, c);
                final Object v = y.value(r, c);
                final boolean same = u == null ? v == null : u instanceof Double && v instanceof Double
                    ? Math.abs((Double) u - (Double) v) <= 1e-9 * Math.max(1.0, Math.abs((Double) u)) || u.equals(v)
                    : u.equals(v);
                if (!same) {
                    return "the engines disagree at row " + r + " column " + x.columns().get(c).name() + ": " + u
                        + " / plain: " + v;
                }
            }
        }
        return null;
    }

    private static String describe(final Outcome o) {
        if (o.error() instanceof QueryException) {
            final QueryException e = (QueryException) o.error();
            return e.code() + " at " + e.path() + " (" + e.getMessage() + ")";
        }
        return o.error() != null ? String.valueOf(o.error()) : o.result().rowCount() + " rows";
    }

    /** @return null when {@code t} is an acceptable failure of {@code json}, else what is wrong. */
    static String problem(final Throwable t, final String json) {
        if (!(t instanceof QueryException)) {
            return t.getClass().getName() + ": " + t.getMessage() + stack(t);
        }
        final QueryException e = (QueryException) t;
        if (e.code() == null || e.code() == ErrorCode.INTERNAL) {
            return "code " + e.code() + ": " + e.getMessage() + stack(e.getCause() != null ? e.getCause() : e);
        }
        if (e.getMessage() == null || e.getMessage().isBlank()) {
            return e.code() + " without a message at " + e.path();
        }
        if (e.code() == ErrorCode.MALFORMED_JSON) {
            return null;
        }
        // the path must point into the query: at the node, or (a missing field) at its parent
        final JsonNode root;
        try {
            // one byte order mark before the text is skipped (QueryParser.parse), as Jackson skips it in bytes
            root = JSON.readTree(json.startsWith("\uFEFF") ? json.substring(1) : json);
        } catch (final IOException x) {
            return e.code() + " for text that is not JSON";
        }
        if (e.code() == ErrorCode.TIMEOUT) {
            // a few thousand rows take milliseconds: only a limit of a few seconds or less may run out
            final JsonNode limit = root.path("options").path("timeoutMs");
            if (!limit.canConvertToLong() || limit.longValue() > 5_000) {
                return "TIMEOUT although options.timeoutMs is " + limit + ": " + e.getMessage();
            }
        }
        final String path = e.path();
        if (path.isEmpty()) {
            return null;
        }
        if (!path.startsWith("/")) {
            return e.code() + " with path '" + path + "' that is not a JSON pointer: " + e.getMessage();
        }
        final JsonPointer ptr = JsonPointer.compile(path);
        if (root.at(ptr).isMissingNode() && root.at(ptr.head()).isMissingNode()) {
            return e.code() + " with path " + path + " that names nothing in the query: " + e.getMessage();
        }
        return null;
    }

    private static String stack(final Throwable t) {
        final StringBuilder b = new StringBuilder();
        final StackTraceElement[] st = t.getStackTrace();
        for (int i = 0; i < Math.min(8, st.length); i++) {
            b.append("\n    at ").append(st[i]);
        }
        return b.toString();
    }

    private static String abbreviate(final String s) {
        return s.length() <= 2000 ? s : s.substring(0, 1000) + " ...(" + s.length() + " chars)... " + s
            .substring(s.length() - 500);
    }

    /** Reads every value and encodes the answer both ways: the server does both. */
    private static void checkResult(final QueryResult res) throws IOException {
        for (int row = 0; row < res.rowCount(); row++) {
            for (int c = 0; c < res.columns().size(); c++) {
                final Object v = res.value(row, c);
                assertThat(v == null || v instanceof Long || v instanceof BigDecimal || v instanceof Double
                    || v instanceof String)
                    .as("value %s", v).isTrue();
            }
        }
        for (final boolean nanos : new boolean[] {false, true}) {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            res.writeJson(out, nanos);
            final JsonNode back = JSON.readTree(out.toByteArray());
            assertThat(back.get("rows").size()).isEqualTo(res.rowCount());
        }
    }

    // ---------------------------------------------------------------- mutations

    /** Deep nestings are written as text: a tree that deep overflows the writer's stack. */
    private static final String SPLICE = "@@splice";
    private static final ThreadLocal<List<String>> SPLICES = ThreadLocal.withInitial(ArrayList::new);

    private static final int MAX_TEXT = 2 << 20;

    static String mutate(final SplittableRandom r) throws IOException {
        final JsonNode root = JSON.readTree(SEEDS[r.nextInt(SEEDS.length)]);
        final int n = 1 + r.nextInt(r.nextInt(4) == 0 ? 6 : 2);
        JsonNode tree = root;
        for (int k = 0; k < n; k++) {
            tree = mutateTree(tree, r);
        }
        String text = JSON.writeValueAsString(tree);
        if (text.length() > MAX_TEXT) {
            // mutations of mutations can multiply a long string; the server bounds bodies anyway
            SPLICES.get().clear();
            return SEEDS[r.nextInt(SEEDS.length)];
        }
        for (int k = SPLICES.get().size() - 1; k >= 0; k--) {
            text = text.replace("\"" + SPLICE + k + "\"", SPLICES.get().get(k));
        }
        SPLICES.get().clear();
        if (r.nextInt(6) == 0) {
            text = mutateText(text, r);
        }
        return text;
    }

    /** A place in the tree: a container and a field name or an index. */
    private record Slot(JsonNode parent, String field, int index) {
        JsonNode get() {
            return field != null ? parent.get(field) : parent.get(index);
        }

        void set(final JsonNode v) {
            if (field != null) {
                ((ObjectNode) parent).set(field, v);
            } else {
                ((ArrayNode) parent).set(index, v);
            }
        }

        void remove() {
            if (field != null) {
                ((ObjectNode) parent).remove(field);
            } else {
                ((ArrayNode) parent).remove(index);
            }
        }
    }

    private static void slots(final JsonNode n, final List<Slot> out) {
        if (n.isObject()) {
            for (final Map.Entry<String, JsonNode> e : n.properties()) {
                out.add(new Slot(n, e.getKey(), -1));
                slots(e.getValue(), out);
            }
        } else if (n.isArray()) {
            for (int i = 0; i < n.size(); i++) {
                out.add(new Slot(n, null, i));
                slots(n.get(i), out);
            }
        }
    }

    private static JsonNode mutateTree(final JsonNode root, final SplittableRandom r) throws IOException {
        final List<Slot> all = new ArrayList<>();
        slots(root, all);
        if (all.isEmpty()) {
            return root;
        }
        final Slot s = all.get(r.nextInt(all.size()));
        final JsonNode old = s.get();
        final String field = s.field() != null ? s.field() : "";
        switch (r.nextInt(14)) {
            case 0:
            case 1:
                s.set(JSON.readTree(VALUES[r.nextInt(VALUES.length)]));
                break;
            case 2:
                s.remove();
                break;
            case 3:
                misplaceField(s.parent(), old, r);
                break;
            case 4:
                s.set(F.textNode(COLUMNS[r.nextInt(COLUMNS.length)]));
                break;
            case 5:
                s.set(F.textNode(OPS[r.nextInt(OPS.length)]));
                break;
            case 6:
                s.set(F.textNode(DURATIONS[r.nextInt(DURATIONS.length)]));
                break;
            case 7:
                s.set(r.nextBoolean() ? F.textNode(TIMES[r.nextInt(TIMES.length)])
                    : F.numberNode(NUMBERS[r.nextInt(NUMBERS.length)]));
                break;
            case 8:
                s.set(boundaryNumber(r));
                break;
            case 9:
                s.set(nest(old, r));
                break;
            case 10:
                s.set(oddString(r));
                break;
            case 11:
                s.set(oddArray(old, r));
                break;
            case 12:
                s.set(fieldSpecificValue(field, r));
                break;
            default:
                swap(s, old, all.get(r.nextInt(all.size())));
                break;
        }
        return root;
    }

    /** Adds a copy of a node as a field where it does not belong, or an unknown one, or as one more array element. */
    private static void misplaceField(final JsonNode parent, final JsonNode old, final SplittableRandom r) {
        if (parent.isObject()) {
            final String[] keys =
                {"op", "col", "value", "values", "args", "arg", "gt", "gte", "lt", "lte", "bucket", "as",
                "name", "p",
                "desc", "from", "to", "table", "filter", "aggs", "limit", "options", "timeoutMs", "maxGroups",
                "epochNanos", "bogus",
                "Op", "\u00e9", ""};
            ((ObjectNode) parent).set(keys[r.nextInt(keys.length)], old.deepCopy());
        } else {
            ((ArrayNode) parent).add(old.deepCopy());
        }
    }

    /** @return a number near a boundary, or as a string, or one past the long range. */
    private static JsonNode boundaryNumber(final SplittableRandom r) {
        final long v = NUMBERS[r.nextInt(NUMBERS.length)];
        switch (r.nextInt(3)) {
            case 0:
                return F.numberNode(v);
            case 1:
                return F.textNode(Long.toString(v));
            default:
                return F.numberNode(BigInteger.valueOf(v).multiply(BigInteger.TEN)
                    .add(BigInteger.valueOf(r.nextInt(10))));
        }
    }

    /**
     * @return the node inside not/and/or a few or thousands of times; a deep nest is a placeholder string, as the
     *     test's writer would refuse it, spliced in after writing.
     */
    private static JsonNode nest(final JsonNode old, final SplittableRandom r) throws IOException {
        final boolean deep = r.nextInt(3) == 0;
        final int depth = deep ? 100 + r.nextInt(5000) : 1 + r.nextInt(70);
        final StringBuilder head = new StringBuilder();
        final StringBuilder tail = new StringBuilder();
        JsonNode x = old;
        for (int d = 0; d < depth; d++) {
            final int op = r.nextInt(3);
            if (deep) {
                head.append(op == 0 ? "{\"op\":\"not\",\"arg\":" : op == 1 ? "{\"op\":\"and\",\"args\":["
                    : "{\"op\":\"or\",\"args\":[");
                tail.insert(0, op == 0 ? "}" : "]}");
                continue;
            }
            final ObjectNode o = F.objectNode();
            if (op == 0) {
                o.put("op", "not").set("arg", x);
            } else {
                o.put("op", op == 1 ? "and" : "or").set("args", F.arrayNode().add(x));
            }
            x = o;
        }
        if (deep) {
            final String key = SPLICE + SPLICES.get().size();
            SPLICES.get().add(head + JSON.writeValueAsString(old) + tail);
            x = F.textNode(key);
        }
        return x;
    }

    /** @return a long or odd string. */
    private static JsonNode oddString(final SplittableRandom r) {
        final String[] bits = {"a", "\u00e9", "\ud83d\udca5", "\u0000", "\"", "\\", "/", "~1", "\n"};
        final int len = r.nextInt(3) == 0 ? 100_000 : 1 + r.nextInt(40);
        final StringBuilder b = new StringBuilder();
        while (b.length() < len) {
            b.append(bits[r.nextInt(bits.length)]);
        }
        return F.textNode(b.toString());
    }

    /** @return an array: empty, huge, or of the wrong element type. */
    private static JsonNode oddArray(final JsonNode old, final SplittableRandom r) {
        final ArrayNode a = F.arrayNode();
        final boolean huge = r.nextInt(4) == 0;
        final int len = huge ? 10_000 : r.nextInt(3);
        for (int k = 0; k < len; k++) {
            a.add(huge || old == null ? F.textNode(COLUMNS[k % COLUMNS.length]) : old.deepCopy());
        }
        return r.nextBoolean() ? a : F.arrayNode();
    }

    /** @return a weird value for the field: limits, percentiles and options near their bounds, else a duration. */
    private static JsonNode fieldSpecificValue(final String field, final SplittableRandom r) throws IOException {
        if (field.equals("limit")) {
            return F.numberNode(
                new long[] {0, 1, Integer.MAX_VALUE, Integer.MAX_VALUE + 1L, 1_000_000, 1_000_001,
                -1}[r.nextInt(7)]);
        }
        if (field.equals("p")) {
            return JSON.readTree(
                new String[] {"-0.0", "0", "100", "100.0000001", "-1e-300", "1e-320",
                "99.99999999999999999"}[r.nextInt(7)]);
        }
        if (field.equals("timeoutMs") || field.equals("maxGroups")) {
            return F.numberNode(
                new long[] {1, 0, Long.MAX_VALUE, Long.MAX_VALUE / 1_000_000 + 1, 2}[r.nextInt(5)]);
        }
        return F.textNode(DURATIONS[r.nextInt(DURATIONS.length)]);
    }

    /** Swaps the node {@code old} of one slot with another slot's, unless one holds the other. */
    private static void swap(final Slot s, final JsonNode old, final Slot o) {
        final JsonNode other = o.get();
        if (other != null && old != null && !contains(old, other) && !contains(other, old)) {
            s.set(other.deepCopy());
            o.set(old.deepCopy());
        }
    }

    private static boolean contains(final JsonNode outer, final JsonNode inner) {
        if (outer == inner) {
            return true;
        }
        for (final JsonNode c : outer) {
            if (contains(c, inner)) {
                return true;
            }
        }
        return false;
    }

    private static String mutateText(final String text, final SplittableRandom r) {
        switch (r.nextInt(8)) {
            case 0:
                return text.substring(0, r.nextInt(text.length()));
            case 1:
                // a duplicate key
                return "{\"table\":\"trades\"," + text.substring(1);
            case 2: {
                // a non-numeric number token
                final String[] bad =
                    {"NaN", "Infinity", "-Infinity", "+1", "01", ".5", "1.", "0x1F", "1E+2147483648", "1e-2147483649"};
                final int at = text.indexOf(':', r.nextInt(text.length()));
                return at < 0 ? text : text.substring(0, at + 1) + bad[r.nextInt(bad.length)] + "," + text
                    .substring(at + 1);
            }
            case 3: {
                // deep arrays
                final int depth = 500 + r.nextInt(5000);
                return text.substring(0, text.length() - 1) + ",\"x\":" + "[".repeat(depth) + "]".repeat(depth) + "}";
            }
            case 4: {
                final char[] cs = text.toCharArray();
                for (int k = 0; k < 3; k++) {
                    cs[r.nextInt(cs.length)] = (char) r.nextInt(0x80);
                }
                return new String(cs);
            }
            case 5:
                return text + text;
            case 6:
                return "\ufeff" + text;
            default:
                return text.replace("\"trades\"", "\"tr\\u0061des\"").replace(":", " : ");
        }
    }
}
