package io.tradestore.query;

import java.io.ByteArrayInputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.schema.Layout;
import io.tradestore.query.index.BitmapIndexes;
import io.tradestore.query.model.Agg;
import io.tradestore.query.model.Filter;
import io.tradestore.query.model.Query;
import io.tradestore.query.parse.QueryParser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Error codes with their JSON paths, limits, exact overflow, indexes on disk, and queries beside a writer. */
class QueryErrorsTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"table\":\"trades\",|MALFORMED_JSON|''",
        "[1]|INVALID_QUERY|''",
        "{\"table\":\"trades\",\"bogus\":1}|INVALID_QUERY|/bogus",
        "{\"table\":\"nope\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}|UNKNOWN_TABLE|/table",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"and\",\"args\":[{\"op\":\"eq\",\"col\":\"nope\",\"value\":1}]}}|UN"
        + "KNOWN_COLUMN|/filter/args/0/col",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"range\",\"col\":\"venue\",\"gt\":\"A\"}}|INVALID_QUERY|/filter/op",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"quantity\",\"value\":\"ten\"}}|INVALID_QUERY|/filte"
        + "r/value",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"quantity\",\"value\":1.5}}|INVALID_QUERY|/filter/va"
        + "lue",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"in\",\"col\":\"venue\",\"values\":[\"X\",3]}}|INVALID_QUERY|/filte"
        + "r/values/1",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"like\",\"col\":\"venue\"}}|INVALID_QUERY|/filter/op",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"not\",\"arg\":{\"op\":\"eq\",\"col\":\"side\",\"value\":\"BS\"}}}|"
        + "INVALID_QUERY|/filter/arg/value",
        "{\"table\":\"trades\",\"time\":{\"from\":\"yesterday\"}}|INVALID_QUERY|/time/from",
        "{\"table\":\"trades\",\"aggs\":[{\"name\":\"x\",\"op\":\"median\",\"col\":\"price\"}]}|"
        + "INVALID_QUERY|/aggs/0/op",
        "{\"table\":\"trades\",\"aggs\":[{\"name\":\"x\",\"op\":\"sum\",\"col\":\"venue\"}]}|INVALID_QUERY|/aggs/0/col",
        "{\"table\":\"trades\",\"aggs\":[{\"name\":\"x\",\"op\":\"sum\",\"col\":\"price*nope\"}]}|UNKNOWN_COLUMN|/aggs"
        + "/0/col",
        "{\"table\":\"trades\",\"aggs\":[{\"name\":\"x\",\"op\":\"max\",\"col\":\"price*venue\"}]}|INVALID_QUERY|/aggs"
        + "/0/col",
        "{\"table\":\"trades\",\"aggs\":[{\"name\":1E+2147483648,\"op\":\"count\"}]}|MALFORMED_JSON|''",
        "{\"table\":\"trades\",\"aggs\":[{\"name\":\"x\",\"op\":\"percentile\",\"col\":\"price\",\"p\":101}]}|INVALID_"
        + "QUERY|/aggs/0/p",
        "{\"table\":\"trades\",\"aggs\":[{\"name\":\"x\",\"op\":\"count\"},{\"name\":\"x\",\"op\":\"count\"}]}|INVALID"
        + "_QUERY|/aggs/1/name",
        "{\"table\":\"trades\",\"groupBy\":[{\"bucket\":\"1M\",\"col\":\"ts\"}],\"aggs\":[{\"name\":\"n\",\"op\":\"cou"
        + "nt\"}]}|INVALID_QUERY|/groupBy/0/bucket",
        "{\"table\":\"trades\",\"groupBy\":[{\"bucket\":\"1m\",\"col\":\"price\"}],\"aggs\":[{\"name\":\"n\",\"op\":\""
        + "count\"}]}|INVALID_QUERY|/groupBy/0/col",
        "{\"table\":\"trades\",\"groupBy\":[\"a\",\"b\",\"c\",\"d\",\"e\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}"
        + "]}|INVALID_QUERY|/groupBy/4",
        "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}],\"orderBy\":[{\"col\":\"zz\"}]}|UNKNOWN_CO"
        + "LUMN|/orderBy/0",
        "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}],\"orderBy\":[\"zz\"]}|UNKNOWN_COLUMN|/orde"
        + "rBy/0",
        "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}],\"orderBy\":[{\"col\":\"zz\",\"desc\":true"
        + "}]}|UNKNOWN_COLUMN|/orderBy/0/col",
        "{\"table\":\"trades\",\"columns\":[\"price\"],\"orderBy\":[\"zz\"]}|UNKNOWN_COLUMN|/orderBy/0",
        "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}],\"orderBy\":[5]}|INVALID_QUERY|/orderBy/0",
        "{\"table\":\"trades\",\"groupBy\":[5],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}|INVALID_QUERY|/groupBy/0",
        "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"sum\",\"col\":\"price*quantity*price\"}]}|INVALID_QU"
        + "ERY|/aggs/0/col",
        "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}],\"having\":{\"op\":\"eq\",\"col\":\"zz\","
        + "\"value\":1}}|UNKNOWN_COLUMN|/having/col",
        "{\"table\":\"trades\",\"columns\":[\"nope\"]}|UNKNOWN_COLUMN|/columns/0",
        "{\"table\":\"trades\",\"limit\":-1}|INVALID_QUERY|/limit",
        "{\"table\":\"trades\",\"options\":{\"timeoutMs\":\"soon\"}}|INVALID_QUERY|/options/timeoutMs",
        "{\"table\":\"trades\",\"groupBy\":[\"venue\"]}|INVALID_QUERY|/groupBy",
        // a pointer escapes / and ~ in a field name (RFC 6901)
        "{\"table\":\"trades\",\"a/b\":1}|INVALID_QUERY|/a~1b",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"not\",\"~x/\":1}}|INVALID_QUERY|/filter/~0x~1",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"quantity\",\"value\":1e-1000000000}}|INVALID_QUERY|"
        + "/filter/value"})
    void shouldRejectWithCodeAndPath(final String json, final ErrorCode code, final String path) {
        try (Store store = Store.open(dir)) {
            new TradeData().write(store, TradeData.schema(Layout.COLUMN, 64, 16), 10, 1, false);
            try (QueryEngine engine = new QueryEngine(store, 1)) {
                // the text, and its UTF-8 bytes as a server hands them on (no String first): the same code and path
                assertThatThrownBy(() -> engine.execute(json)).isInstanceOfSatisfying(QueryException.class, e -> {
                    assertThat(e.code()).as(e.getMessage()).isEqualTo(code);
                    assertThat(e.path()).as(e.getMessage()).isEqualTo(path);
                    assertThat(e.getMessage()).isNotBlank();
                });
                assertThatThrownBy(() -> engine
                    .execute(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), 10_000))
                    .isInstanceOfSatisfying(QueryException.class, e -> {
                        assertThat(e.code()).as(e.getMessage()).isEqualTo(code);
                        assertThat(e.path()).as(e.getMessage()).isEqualTo(path);
                    });
            }
        }
    }

    /** A long unknown name comes back as its start and its length, not whole. */
    @Test
    void shouldRepeatOnlyTheStartOfALongUnknownName() {
        try (Store store = Store.open(dir)) {
            new TradeData().write(store, TradeData.schema(Layout.COLUMN, 64, 16), 10, 1, false);
            try (QueryEngine engine = new QueryEngine(store, 1)) {
                final String name = "c".repeat(40_000);
                for (final String q : new String[] {"{\"table\":\"trades\",\"columns\":[\"" + name + "\"]}",
                    "{\"table\":\"" + name + "\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}"}) {
                    assertThatThrownBy(() -> engine.execute(q)).isInstanceOfSatisfying(QueryException.class, e -> {
                        assertThat(e.getMessage()).contains("'" + "c".repeat(64) + "... (40000 characters)'")
                            .hasSizeLessThan(400);
                        assertThat(e.code()).isIn(ErrorCode.UNKNOWN_COLUMN, ErrorCode.UNKNOWN_TABLE);
                    });
                }
                final String shortName = "c".repeat(64);
                assertThatThrownBy(() -> engine.execute("{\"table\":\"trades\",\"columns\":[\"" + shortName + "\"]}"))
                    .hasMessageContaining("'" + shortName + "'");
            }
        }
    }

    /**
     * One byte order mark before the query is skipped in text as in bytes (Jackson skips it in bytes); elsewhere it is
     * not JSON.
     */
    @Test
    void shouldReadAQueryAfterOneLeadingByteOrderMarkOnly() {
        try (Store store = Store.open(dir)) {
            new TradeData().write(store, TradeData.schema(Layout.COLUMN, 64, 16), 10, 1, false);
            try (QueryEngine engine = new QueryEngine(store, 1)) {
                final String q = "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";
                assertThat(engine.execute("\uFEFF" + q).value(0, 0)).isEqualTo(10L);
                assertThat(engine
                    .execute(new ByteArrayInputStream(("\uFEFF" + q).getBytes(StandardCharsets.UTF_8)), 10_000)
                    .value(0, 0)).isEqualTo(10L);
                for (final String bad
                    : new String[] {"\uFEFF\uFEFF" + q, " \uFEFF" + q, q.replace(",", ",\uFEFF"), q + "\uFEFF",
                    "\uFEFF"}) {
                    assertThatThrownBy(() -> engine.execute(bad)).as(bad)
                        .isInstanceOfSatisfying(QueryException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_JSON));
                    assertThatThrownBy(() -> engine
                        .execute(new ByteArrayInputStream(bad.getBytes(StandardCharsets.UTF_8)), 10_000)).as(bad)
                        .isInstanceOfSatisfying(QueryException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_JSON));
                }
            }
        }
    }

    @Test
    void shouldCompareLiteralsWithExtremeExponentsExactlyAndQuickly() {
        try (Store store = Store.open(dir)) {
            final TradeData data = new TradeData().write(store, TradeData.schema(Layout.COLUMN, 64, 16), 300, 5, true);
            final long prices = data.rows.stream().filter(x -> x.price() != null).count();
            final long quantities = data.rows.stream().filter(x -> x.quantity() != null).count();
            try (QueryEngine engine = new QueryEngine(store, 1)) {
                // each once gave INTERNAL (a BigInteger overflow while moving the point or rounding), or ran for
                // minutes
                final String[][] cases = {
                    {"{\"op\":\"range\",\"col\":\"price\",\"lte\":\"1e-1000000000\"}", "0"},
                    {"{\"op\":\"range\",\"col\":\"price\",\"gt\":-1e-1000000000}", String.valueOf(prices)},
                    {"{\"op\":\"range\",\"col\":\"price\",\"gt\":1e1000000000}", "0"},
                    {"{\"op\":\"range\",\"col\":\"price\",\"lt\":1e100000000}", String.valueOf(prices)},
                    {"{\"op\":\"range\",\"col\":\"price\",\"gte\":-1e1000000000,\"lt\":\"1E+2147483647\"}",
                    String.valueOf(prices)},
                    {"{\"op\":\"eq\",\"col\":\"price\",\"value\":1e1000000000}", "0"},
                    {"{\"op\":\"ne\",\"col\":\"price\",\"value\":\"-1e100000000\"}", String.valueOf(prices)},
                    {"{\"op\":\"in\",\"col\":\"price\",\"values\":[1e-2147483647,\"1e2147483647\"]}", "0"},
                    {"{\"op\":\"range\",\"col\":\"quantity\",\"gt\":-1e1000000000}", String.valueOf(quantities)},
                    {"{\"op\":\"range\",\"col\":\"quantity\",\"lte\":1e1000000000}", String.valueOf(quantities)}};
                for (final String[] c : cases) {
                    final String q = "{\"table\":\"trades\",\"filter\":" + c[0]
                        + ",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";
                    assertThat(engine.execute(q).value(0, 0)).as(q).isEqualTo(Long.parseLong(c[1]));
                }
                // a decimal string is read like a JSON number, up to 1,000 characters: reading is quadratic in its
                // length
                final String digits =
                    "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"price\",\"value\":\"%s\"},"
                    + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}],\"having\":{\"op\":\"eq\",\"col\":\"n\",\"value\":"
                    + "\"%s\"}}";
                assertThat(engine.execute(String.format(digits, "1." + "0".repeat(990), "0")).rowCount()).isEqualTo(1);
                assertThatThrownBy(() -> engine.execute(String.format(digits, "7".repeat(200_000), "0")))
                    .isInstanceOfSatisfying(QueryException.class, e -> assertThat(e.path()).isEqualTo("/filter/value"));
                assertThatThrownBy(() -> engine.execute(String.format(digits, "1", "7".repeat(200_000))))
                    .isInstanceOfSatisfying(QueryException.class, e -> assertThat(e.path()).isEqualTo("/having/value"));
            }
        }
    }

    @Test
    void shouldKeepPercentilesOfManyGroupsSmallAndWithinPrecision() {
        try (Store store = Store.open(dir)) {
            final int rows = 30_000;
            try (TableWriter w = store.createTable(TradeData.schema(Layout.COLUMN, 4096, 1024)).writer()) {
                final TradeFlyweight f = new TradeFlyweight();
                for (int i = 0; i < rows; i++) {
                    w.append(f).tradeId(1_000_000_000_000_000_000L + i * 7_919L).ts(TradeData.T0 + i)
                        .side(i % 2 == 0 ? 'B' : 'S')
                        .quantity(i).clientId(i / 2);
                }
                w.commit();
            }
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                final QueryResult many = engine
                    .execute(Query.builder("trades").groupBy("client_id").agg(Agg.percentile("p", "trade_id", 50))
                    .build());
                assertThat(many.rowCount()).isEqualTo(rows / 2);
                assertThat(many.value(10, 1)).isEqualTo((double) (1_000_000_000_000_000_000L + 20 * 7_919L));
                final QueryResult two = engine
                    .execute(Query.builder("trades").groupBy("side").agg(Agg.percentile("p", "trade_id", 90))
                    .build());
                final double exact = 1_000_000_000_000_000_000L + (2.0 * (Math.ceil(0.9 * rows / 2) - 1)) * 7_919L;
                assertThat((Double) two.value(0, 1))
                    .isCloseTo(exact, org.assertj.core.data.Percentage.withPercentage(0.1));
            }
        }
    }

    /** 64 levels of and, or or not pass, 65 do not, in JSON and built in Java (before: 63 of and/or, 127 of not). */
    @ParameterizedTest
    @CsvSource({"not", "and", "or"})
    void shouldAcceptFiltersNestedExactlyAsDeepAsTheLimit(final String op) {
        try (Store store = Store.open(dir)) {
            new TradeData().write(store, TradeData.schema(Layout.COLUMN, 64, 16), 10, 1, false);
            try (QueryEngine engine = new QueryEngine(store, 1)) {
                for (final int levels : new int[] {QueryParser.MAX_FILTER_DEPTH, QueryParser.MAX_FILTER_DEPTH + 1}) {
                    final String open = "not".equals(op) ? "{\"op\":\"not\",\"arg\":" : "{\"op\":\"" + op
                        + "\",\"args\":[";
                    final String close = "not".equals(op) ? "}" : "]}";
                    final String json = "{\"table\":\"trades\",\"filter\":" + open.repeat(levels - 1)
                        + "{\"op\":\"eq\",\"col\":\"side\",\"value\":\"B\"}"
                        + close.repeat(levels - 1) + ",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";
                    Filter f = Filter.eq("side", "B");
                    for (int i = 1; i < levels; i++) {
                        f = "not".equals(op) ? Filter.not(f) : "and".equals(op) ? Filter.and(f) : Filter.or(f);
                    }
                    final Query built = Query.builder("trades").filter(f).agg(io.tradestore.query.model.Agg.count("n"))
                        .build();
                    if (levels <= QueryParser.MAX_FILTER_DEPTH) {
                        assertThat(engine.execute(json).rowCount()).isEqualTo(1);
                        assertThat(engine.execute(built).rowCount()).isEqualTo(1);
                    } else {
                        assertThatThrownBy(() -> engine.execute(json))
                            .hasMessage("filters nest at most 64 levels deep");
                        assertThatThrownBy(() -> engine.execute(built))
                            .hasMessage("filters nest at most 64 levels deep");
                    }
                }
            }
        }
    }

    @Test
    void shouldRejectFiltersNestedTooDeep() {
        try (Store store = Store.open(dir)) {
            new TradeData().write(store, TradeData.schema(Layout.COLUMN, 64, 16), 10, 1, false);
            try (QueryEngine engine = new QueryEngine(store, 1)) {
                final StringBuilder json = new StringBuilder("{\"table\":\"trades\",\"filter\":");
                for (int i = 0; i < 5000; i++) {
                    json.append("{\"op\":\"not\",\"arg\":");
                }
                json.append("{\"op\":\"eq\",\"col\":\"side\",\"value\":\"B\"}").append("}".repeat(5001));
                assertThatThrownBy(() -> engine.execute(json.toString())).isInstanceOfSatisfying(QueryException.class,
                    e -> assertThat(e.code()).isIn(ErrorCode.INVALID_QUERY, ErrorCode.MALFORMED_JSON));
                Filter f = Filter.eq("side", "B");
                for (int i = 0; i < 5000; i++) {
                    f = Filter.not(f);
                }
                final Query q = Query.builder("trades").filter(f).build();
                assertThatThrownBy(() -> engine.execute(q)).isInstanceOfSatisfying(QueryException.class,
                    e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_QUERY));
            }
        }
    }

    @Test
    void shouldFailWithTooManyGroupsNeverTruncate() {
        try (Store store = Store.open(dir)) {
            new TradeData().write(store, TradeData.schema(Layout.COLUMN, 256, 64), 2000, 2, false);
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                final String tooMany =
                    "{\"table\":\"trades\",\"groupBy\":[\"trade_id\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}],"
                    + "\"options\":{\"maxGroups\":100}}";
                assertThatThrownBy(() -> engine.execute(tooMany)).isInstanceOfSatisfying(QueryException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.TOO_MANY_GROUPS);
                    assertThat(e.path()).isEqualTo("/groupBy");
                });
                assertThat(engine
                    .execute(Query.builder("trades").groupBy("trade_id").agg(Agg.count("n")).maxGroups(2000).build())
                    .rowCount())
                    .isEqualTo(2000);
            }
        }
    }

    /**
     * A query split between two workers where the pool's worker overflows maxGroups while the calling thread is still
     * in its first morsel (one segment of a single trade id): the caller stops when it sees the other fail, and the
     * query fails with the cause, TOO_MANY_GROUPS; it once failed with the caller's stop, a TIMEOUT.
     */
    @Test
    void shouldFailWithTooManyGroupsWhicheverWorkerOverflows() {
        final int segment = 1 << 18;
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.createTable(TradeData.schema(Layout.COLUMN, segment, 1 << 12)).writer()) {
                final TradeFlyweight f = new TradeFlyweight();
                for (int r = 0; r < 3 * segment; r++) {
                    w.append(f).tradeId(r < segment ? 1 : r).ts(TradeData.T0 + r).quantity(1);
                }
                w.commit();
            }
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                engine.morselRows(segment);
                for (int i = 0; i < 20; i++) {
                    assertThatThrownBy(() -> engine
                        .execute(Query.builder("trades").groupBy("trade_id").agg(Agg.count("n")).maxGroups(100)
                        .build()))
                        .isInstanceOfSatisfying(QueryException.class, e -> {
                            assertThat(e.code()).isEqualTo(ErrorCode.TOO_MANY_GROUPS);
                            assertThat(e.path()).isEqualTo("/groupBy");
                        });
                }
            }
        }
    }

    @Test
    void shouldCancelByTimeout() {
        try (Store store = Store.open(dir)) {
            new TradeData().write(store, TradeData.schema(Layout.ROW, 1024, 256), 20_000, 3, false);
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                final Query slow = Query.builder("trades").groupBy("trade_id", "client_id")
                    .agg(Agg.percentile("p", "price", 50),
                    Agg.countDistinct("d", "quantity")).timeoutMs(1).build();
                assertThatThrownBy(() -> {
                    for (int i = 0; i < 50; i++) {
                        engine.execute(slow);
                    }
                }).isInstanceOfSatisfying(QueryException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.TIMEOUT);
                    assertThat(e.path()).isEqualTo("/options/timeoutMs");
                });
            }
        }
    }

    @Test
    void shouldCheckQueriesBuiltInJavaAsTheParserChecksJson() {
        try (Store store = Store.open(dir)) {
            new TradeData().write(store, TradeData.schema(Layout.COLUMN, 64, 16), 300, 1, true);
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                // each gave INTERNAL (limit -1 of an aggregate, a null op), an empty answer (scan limit -1), TIMEOUT or
                // TOO_MANY_GROUPS where the same JSON is INVALID_QUERY; the model's constructors check them for both
                final Object[][] cases = {
                    {(Supplier<Query>) () -> Query.builder("trades").agg(Agg.count("n")).groupBy("side").limit(-1)
                        .build(), "/limit"},
                    {(Supplier<Query>) () -> Query.builder("trades").limit(-1).build(), "/limit"},
                    {(Supplier<Query>) () -> Query.builder("trades").agg(Agg.count("n")).timeoutMs(0).build(),
                    "/options/timeoutMs"},
                    {(Supplier<Query>) () -> Query.builder("trades").agg(Agg.count("n")).timeoutMs(-5).build(),
                    "/options/timeoutMs"},
                    {(Supplier<Query>) () -> Query.builder("trades").agg(Agg.count("n")).groupBy("client_id")
                    .maxGroups(0).build(), "/options/maxGroups"},
                    {(Supplier<Query>) () -> Query.builder("trades").agg(new Agg("n", null, null, null)).build(),
                    "/aggs/0/op"}};
                for (final Object[] c : cases) {
                    @SuppressWarnings("unchecked")
                    final Supplier<Query> build = (Supplier<Query>) c[0];
                    assertThatThrownBy(() -> engine.execute(build.get())).as(c[1].toString())
                        .isInstanceOfSatisfying(QueryException.class, e -> {
                        assertThat(e.code()).as(e.getMessage()).isEqualTo(ErrorCode.INVALID_QUERY);
                        assertThat(e.path()).isEqualTo(c[1]);
                    });
                }
                assertThat(engine.execute(Query.builder("trades").agg(Agg.count("n")).groupBy("side").limit(0).build())
                    .rowCount()).isZero();
            }
        }
    }

    @Test
    void shouldNotTimeOutAQueryThatAllowsCenturies() {
        try (Store store = Store.open(dir)) {
            new TradeData().write(store, TradeData.schema(Layout.ROW, 1024, 256), 5_000, 3, false);
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                engine.morselRows(256);
                engine.smallQueryRows(0);
                // each once overflowed timeoutMs * 1e6 (or the start plus that) into a deadline in the past: TIMEOUT at
                // once
                for (final long ms : new long[] {Long.MAX_VALUE, Long.MAX_VALUE / 1_000_000 + 1, 9_000_000_000_000L}) {
                    final String q =
                        "{\"table\":\"trades\",\"groupBy\":[\"client_id\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
                        + "{\"name\":\"p\",\"op\":\"percentile\",\"col\":\"price\",\"p\":50}],\"options\":{\"timeoutMs"
                        + "\":" + ms + "}}";
                    assertThat(engine.execute(q).rowCount()).as(q).isPositive();
                    assertThat(engine
                        .execute(Query.builder("trades").groupBy("side").agg(Agg.count("n")).timeoutMs(ms).build())
                        .rowCount())
                        .isEqualTo(2);
                }
            }
        }
    }

    @Test
    void shouldCancelAtTheCallersLimitUnlessTheQueryAsksForLess() {
        try (Store store = Store.open(dir)) {
            new TradeData().write(store, TradeData.schema(Layout.ROW, 1024, 256), 20_000, 4, false);
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                final String slow =
                    "{\"table\":\"trades\",\"groupBy\":[\"trade_id\",\"client_id\"],\"aggs\":[{\"name\":\"p\","
                    + "\"op\":\"percentile\",\"col\":\"price\",\"p\":50},{\"name\":\"d\",\"op\":\"countDistinct\",\"co"
                    + "l\":\"quantity\"}]%s}";
                // a server's limit of 1 ms stops the query (its deadline passes during the first segment)
                assertThatThrownBy(() -> {
                    for (int i = 0; i < 50; i++) {
                        engine.execute(String.format(slow, ""), 1);
                    }
                }).isInstanceOfSatisfying(QueryException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.TIMEOUT);
                    // the limit is named as the caller's: the query's author set no options.timeoutMs
                    assertThat(e.getMessage())
                        .isEqualTo("the query did not finish within the server's limit of 1 ms; narrow the time range "
                        + "or filter");
                    assertThat(e.path()).isEmpty();
                });
                // a generous limit does not, nor does it lengthen a query's own shorter one
                assertThat(engine.execute(String.format(slow, ""), 600_000).rowCount()).isEqualTo(20_000);
                assertThatThrownBy(() -> {
                    for (int i = 0; i < 50; i++) {
                        engine.execute(String.format(slow, ",\"options\":{\"timeoutMs\":1}"), 600_000);
                    }
                }).isInstanceOfSatisfying(QueryException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.TIMEOUT);
                    assertThat(e.getMessage()).contains("options.timeoutMs=1");
                    assertThat(e.path()).isEqualTo("/options/timeoutMs");
                });
            }
        }
    }

    @Test
    void shouldSumProductsBeyond64BitsExactly() {
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.createTable(TradeData.schema(Layout.COLUMN, 128, 32)).writer()) {
                final TradeFlyweight f = new TradeFlyweight();
                for (int i = 0; i < 1000; i++) {
                    w.append(f).tradeId(i).ts(TradeData.T0 + i).side(i % 3 == 0 ? 'S' : 'B').venue("XLON")
                        .instrument("BIG")
                        .price(999_999_999_999_999L - i)
                        .quantity(i % 2 == 0 ? 9_000_000_000L + i : -7_000_000_000L + i);
                }
                w.commit();
            }
            BigInteger buy = BigInteger.ZERO;
            BigInteger sell = BigInteger.ZERO;
            BigInteger qty = BigInteger.ZERO;
            for (int i = 0; i < 1000; i++) {
                final BigInteger p = BigInteger.valueOf(999_999_999_999_999L - i)
                    .multiply(BigInteger.valueOf(i % 2 == 0 ? 9_000_000_000L + i
                    : -7_000_000_000L + i));
                if (i % 3 == 0) {
                    sell = sell.add(p);
                } else {
                    buy = buy.add(p);
                }
                qty = qty.add(BigInteger.valueOf(i % 2 == 0 ? 9_000_000_000L + i : -7_000_000_000L + i));
            }
            assertThat(buy.bitLength()).isGreaterThan(64);
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                final QueryResult r = engine
                    .execute(Query.builder("trades").groupBy("side").agg(Agg.sum("notional", "price*quantity"),
                    Agg.sum("q", "quantity"), Agg.sum("p", "price")).build());
                assertThat(r.value(0, 1)).isEqualTo(new BigDecimal(buy, 6));
                assertThat(r.value(1, 1)).isEqualTo(new BigDecimal(sell, 6));
                final QueryResult g = engine
                    .execute(Query.builder("trades").agg(Agg.sum("q", "quantity"), Agg.sum("n", "price*quantity"),
                    Agg.max("hi", "price*quantity"), Agg.min("lo", "price*quantity"),
                    Agg.last("last", "price*quantity"),
                    Agg.countDistinct("d", "price*quantity"),
                    new io.tradestore.query.model.Agg("c", "count", "price*quantity", null)).build());
                assertThat(g.value(0, 0)).isEqualTo(new BigDecimal(qty));
                assertThat(g.value(0, 1)).isEqualTo(new BigDecimal(buy.add(sell), 6));
                BigInteger hi = null;
                BigInteger lo = null;
                for (int i = 0; i < 1000; i++) {
                    final BigInteger p = BigInteger.valueOf(999_999_999_999_999L - i)
                        .multiply(BigInteger.valueOf(i % 2 == 0 ? 9_000_000_000L + i
                        : -7_000_000_000L + i));
                    hi = hi == null || p.compareTo(hi) > 0 ? p : hi;
                    lo = lo == null || p.compareTo(lo) < 0 ? p : lo;
                }
                assertThat(g.value(0, 2)).isEqualTo(new BigDecimal(hi, 6));
                assertThat(g.value(0, 3)).isEqualTo(new BigDecimal(lo, 6));
                assertThat(g.value(0, 4)).isEqualTo(new BigDecimal(BigInteger.valueOf(999_999_999_999_999L - 999)
                    .multiply(BigInteger.valueOf(-7_000_000_000L + 999)), 6));
                assertThat(g.value(0, 5)).isEqualTo(1000L);
                assertThat(g.value(0, 6)).isEqualTo(1000L);
            }
        }
    }

    @Test
    void shouldBuildPersistAndReloadBitmapIndexes() throws Exception {
        try (Store store = Store.open(dir)) {
            final TradeData data = new TradeData()
                .write(store, TradeData.schema(Layout.COLUMN, 512, 64), 2000, 4, true);
            final String q =
                "{\"table\":\"trades\",\"filter\":{\"op\":\"and\",\"args\":[{\"op\":\"eq\",\"col\":\"instrument\",\"va"
                + "lue\":\"SYM7\"},"
                + "{\"op\":\"ne\",\"col\":\"venue\",\"value\":\"XLON\"},{\"op\":\"eq\",\"col\":\"client_id\",\"value\""
                + ":5}]},"
                + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";
            final long expected = data.rows.stream()
                .filter(x -> "SYM7".equals(x.instrument()) && x.venue() != null && !"XLON".equals(x.venue())
                && Long.valueOf(5).equals(x.clientId())).count();
            final Path file;
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                engine.indexes().minSegmentRows(1);
                final QueryResult r = engine.execute(q);
                assertThat(r.value(0, 0)).isEqualTo(expected);
                // 3 sealed segments through their index files, the open one (464 rows) through its in-memory index
                assertThat(r.stats().indexedSegments()).isEqualTo(4);
                assertThat(engine.indexes().builds()).isPositive();
                engine.morselRows(100);
                engine.smallQueryRows(0);
                final QueryResult split = engine.execute(q);
                assertThat(split.value(0, 0)).isEqualTo(expected);
                assertThat(split.stats().indexedSegments()).isEqualTo(4);
                engine.morselRows(0);
                engine.useIndexes(false);
                assertThat(engine.execute(q).value(0, 0)).isEqualTo(expected);
                file = BitmapIndexes.file(engine.snapshot("trades").segment(0),
                    store.table("trades").schema().column(4));
            }
            assertThat(file).exists();
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                engine.indexes().minSegmentRows(1);
                assertThat(engine.execute(q).value(0, 0)).isEqualTo(expected);
                assertThat(engine.indexes().builds()).isZero();
                assertThat(engine.indexes().loads()).isPositive();
            }
            final byte[] bytes = Files.readAllBytes(file);
            bytes[bytes.length - 3] ^= 0x5A;
            Files.write(file, bytes);
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                engine.indexes().minSegmentRows(1);
                assertThat(engine.execute(q).value(0, 0)).isEqualTo(expected);
                assertThat(engine.indexes().builds()).isEqualTo(1);
            }
        }
    }

    /**
     * Queries while a writer appends and commits, in lock step: in the middle of every batch the writer waits
     * (boundedly) until a query has run, so queries see uncommitted rows in the files and every commit is a moment they
     * can observe. Each answer is one committed prefix: the count a multiple of the batch, sums, max and the
     * per-instrument counts those of exactly that many rows.
     */
    @ParameterizedTest
    @CsvSource({"COLUMN", "ROW"})
    void shouldSeeACommittedPrefixWhileAWriterAppends(final Layout layout) throws Exception {
        final int batches = 200;
        final int batch = 37;
        try (Store store = Store.open(dir)) {
            store.createTable(TradeData.schema(layout, 256, 64));
            final AtomicBoolean done = new AtomicBoolean();
            final AtomicBoolean stop = new AtomicBoolean(); // the query side failed: the writer stops waiting for it
            final AtomicLong queries = new AtomicLong();
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Thread writer = new Thread(() -> {
                try (TableWriter w = store.table("trades").writer()) {
                    final TradeFlyweight f = new TradeFlyweight();
                    for (int b = 0; b < batches; b++) {
                        long before = 0;
                        for (int i = 0; i < batch; i++) {
                            if (i == batch / 2) {
                                before = queries.get();
                                final long until = System.nanoTime() + 2_000_000_000L;
                                while (queries.get() < before + 1 && System.nanoTime() < until && !stop.get()) {
                                    LockSupport.parkNanos(20_000);
                                }
                            }
                            final long r = w.pendingRows();
                            w.append(f).tradeId(r).ts(TradeData.T0 + r).side('B').venue("XLON")
                                .instrument("S" + (r % 5)).price(1_000_000)
                                .quantity(1);
                        }
                        w.commit();
                    }
                } catch (final Throwable t) {
                    failure.set(t);
                } finally {
                    done.set(true);
                }
            });
            final Set<Long> seen = new HashSet<>();
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                writer.start();
                try {
                    readWhileWriting(engine, done, queries, seen, batch);
                } finally {
                    stop.set(true);
                    writer.join(10_000);
                }
                assertThat(failure.get()).isNull();
            }
            assertThat(seen.size()).as("distinct committed prefixes the queries saw, of %d commits", batches)
                .isGreaterThan(batches / 2);
        }
    }

    private static void readWhileWriting(final QueryEngine engine, final AtomicBoolean done, final AtomicLong queries,
        final Set<Long> seen,
                                         final int batch) {
        long last = 0;
        while (!done.get()) {
            final QueryResult r = engine.execute(Query.builder("trades").agg(Agg.count("n"), Agg.sum("q", "quantity"),
                Agg.max("id", "trade_id")).filter(Filter.ne("instrument", "none")).build());
            final long n = (Long) r.value(0, 0);
            assertThat(n % batch).as("rows seen: %d", n).isZero();
            assertThat(n).isGreaterThanOrEqualTo(last);
            assertThat(r.value(0, 1)).isEqualTo(n == 0 ? null : BigDecimal.valueOf(n));
            assertThat(r.value(0, 2)).isEqualTo(n == 0 ? null : n - 1);
            final QueryResult g = engine
                .execute(Query.builder("trades").groupBy("instrument").agg(Agg.count("n")).build());
            final long m = g.rowCount() == 0 ? 0 : java.util.stream.IntStream.range(0, g.rowCount())
                .mapToLong(i -> (Long) g.value(i, 1)).sum();
            assertThat(m).as("rows seen by the group-by").isGreaterThanOrEqualTo(n).matches(x -> x % batch == 0);
            for (int i = 0; i < g.rowCount(); i++) {
                final int k = Integer.parseInt(((String) g.value(i, 0)).substring(1));
                assertThat(g.value(i, 1)).as("rows of %s among %d", g.value(i, 0), m).isEqualTo((m - k + 4) / 5);
            }
            seen.add(n);
            last = n;
            queries.incrementAndGet();
        }
    }
}
