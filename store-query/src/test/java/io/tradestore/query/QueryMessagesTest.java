package io.tradestore.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.Store;
import io.tradestore.core.schema.Layout;
import io.tradestore.query.model.Agg;
import io.tradestore.query.model.AggOp;
import io.tradestore.query.model.Query;
import io.tradestore.query.parse.QueryParser;

/**
 * The whole messages of two kinds of INVALID_QUERY, pinned where each can arise: an aggregate op that is unknown or
 * missing (the parser for JSON, the binder for an {@link Agg} built in Java, the model for a null op: one list,
 * {@link AggOp}), and an integer out of its range (the parser's one check for {@code limit}, {@code timeoutMs} and
 * {@code maxGroups}; the model's constructors for queries built in Java).
 */
class QueryMessagesTest {
    @TempDir
    Path dir;

    /** The ops in the order every message lists them (the messages as they were before AggOp). */
    private static final String OPS = "count sum min max avg first last vwap percentile countDistinct";
    /** A query's start, for the fields appended to it. */
    private static final String AGG = "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]";

    @Test
    void shouldListTheAggregateOpsInOneOrderWhereverAnOpIsWrong() {
        assertThat(AggOp.NAMES).isEqualTo(OPS);
        assertThat(Arrays.stream(AggOp.values()).map(AggOp::jsonName)).containsExactly(OPS.split(" "));
        for (final AggOp op : AggOp.values()) {
            assertThat(AggOp.of(op.jsonName())).isSameAs(op);
        }
        assertThat(AggOp.of("median")).isNull();
        assertThat(AggOp.of(null)).isNull();
        assertError(()
            -> QueryParser.parse(
            "{\"table\":\"trades\",\"aggs\":[{\"name\":\"x\",\"op\":\"median\",\"col\":\"price\"}]}"),
            "/aggs/0/op", "unknown aggregate 'median'; use one of " + OPS);
        assertError(() -> Query.builder("trades").agg(new Agg("n", null, null, null)).build(), "/aggs/0/op",
            "missing required field \"op\"; use one of " + OPS);
        assertError(() -> QueryParser.parse("{\"table\":\"trades\",\"aggs\":[{\"name\":\"x\",\"col\":\"price\"}]}"),
            "/aggs/0/op",
            "missing required field \"op\"");
        try (Store store = Store.open(dir)) {
            new TradeData().write(store, TradeData.schema(Layout.COLUMN, 64, 16), 10, 1, false);
            try (QueryEngine engine = new QueryEngine(store, 1)) {
                assertError(() -> engine
                    .execute(Query.builder("trades").agg(Agg.count("n"), new Agg("m", "median", "price", null))
                    .build()),
                    "/aggs/1/op", "unknown aggregate 'median'; use one of " + OPS);
                // every op the list names binds (none falls through to the binder's default)
                for (final AggOp op : AggOp.values()) {
                    final Agg a = new Agg("a", op.jsonName(), op == AggOp.COUNT || op == AggOp.VWAP ? null : "quantity",
                        op == AggOp.PERCENTILE ? 50.0 : null);
                    assertThat(engine.execute(Query.builder("trades").agg(a).build()).columns()).as(op.jsonName())
                        .hasSize(1);
                }
            }
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "\"limit\":-1|/limit|must be an integer between 0 and 2147483647, not -1",
        "\"limit\":2147483648|/limit|must be an integer between 0 and 2147483647, not 2147483648",
        "\"limit\":-9223372036854775809|/limit|must be an integer between 0 and 2147483647, not -9223372036854775809",
        "\"limit\":1.5|/limit|must be an integer between 0 and 2147483647, not 1.5",
        "\"limit\":\"7\"|/limit|must be an integer between 0 and 2147483647, not \"7\"",
        "\"options\":{\"timeoutMs\":0}|/options/timeoutMs|must be an integer between 1 and 9223372036854775807, not 0",
        "\"options\":{\"maxGroups\":-3}|/options/maxGroups|must be an integer between 1 and 9223372036854775807,"
        + " not -3",
        "\"options\":{\"maxGroups\":9223372036854775808}|/options/maxGroups|must be an integer between 1 and "
        + "9223372036854775807, "
            + "not 9223372036854775808",
    })
    void shouldNameTheRangeOfAnIntegerOutsideIt(final String field, final String path, final String message) {
        assertError(() -> QueryParser.parse(AGG + "," + field + "}"), path, message);
    }

    @Test
    void shouldGiveQueriesBuiltInJavaTheParsersRangeMessages() {
        assertError(() -> Query.builder("trades").agg(Agg.count("n")).limit(-1).build(), "/limit",
            "must be an integer between 0 and 2147483647, not -1");
        assertError(() -> Query.builder("trades").agg(Agg.count("n")).timeoutMs(0).build(), "/options/timeoutMs",
            "must be an integer between 1 and 9223372036854775807, not 0");
        assertThat(QueryParser.parse(AGG + ",\"limit\":2147483647}").limit()).isEqualTo(Integer.MAX_VALUE);
        assertThat(QueryParser.parse(AGG + ",\"limit\":0}").limit()).isZero();
    }

    /**
     * Keys and products that are not of the allowed shapes say which shapes are (before, 'must be an
     * object' and an unknown column).
     */
    @Test
    void shouldSayWhatShapeAKeyOrAProductTakes() {
        assertError(() -> QueryParser.parse(AGG + ",\"orderBy\":[5]}"), "/orderBy/0",
            "an orderBy key is a column name or {\"col\": name, \"desc\": true|false}, not a number");
        assertError(()
            -> QueryParser.parse(
            "{\"table\":\"trades\",\"groupBy\":[[\"venue\"]],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}"),
            "/groupBy/0",
            "a group key is a column name or {\"col\": name, \"bucket\": width, \"as\": name}, not an array");
        try (Store store = Store.open(dir)) {
            new TradeData().write(store, TradeData.schema(Layout.COLUMN, 64, 16), 10, 1, false);
            try (QueryEngine engine = new QueryEngine(store, 1)) {
                assertError(() -> engine
                    .execute("{\"table\":\"trades\",\"aggs\":[{\"name\":\"v\",\"op\":\"sum\",\"col\":\"price*quantity*"
                    + "price\"}]}"),
                    "/aggs/0/col", "a product has two factors, a*b; 'price*quantity*price' has more");
            }
        }
    }

    private static void assertError(final Supplier<?> call, final String path, final String message) {
        final QueryException e = catchThrowableOfType(QueryException.class, call::get);
        assertThat(e).as(message).isNotNull();
        assertThat(e.code()).as(e.getMessage()).isEqualTo(ErrorCode.INVALID_QUERY);
        assertThat(e.path()).as(e.getMessage()).isEqualTo(path);
        assertThat(e.getMessage()).isEqualTo(message);
    }
}
