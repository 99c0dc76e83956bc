package io.tradestore.bench;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import io.tradestore.query.gen.GenQuery;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The drawn query shapes: the default seed's list covers every class in {@link DrawnShapes#CLASSES}, is aggregates
 * only, is the same on every draw, and classifies filters and keys by column type.
 */
class DrawnShapesTest {
    private static final ShapeTable TABLE = ShapeTable.sample(200_000, 42);

    @Test
    void shouldCoverEveryAggregateFilterAndKeyClassForTheDefaultSeed() {
        final List<GenQuery> shapes = DrawnShapes.draw(TABLE, DrawnShapes.DEFAULT_SEED, DrawnShapes.DEFAULT_COUNT);
        final Set<String> covered = new TreeSet<>();
        for (final GenQuery q : shapes) {
            covered.addAll(DrawnShapes.classes(TABLE, q.json()));
            System.out.println(q.id() + "  " + DrawnShapes.text(TABLE, q.json()));
        }
        assertThat(covered).containsExactlyInAnyOrderElementsOf(DrawnShapes.CLASSES);
        assertThat(covered).contains("count", "sum", "avg", "min", "max", "first", "last", "vwap", "percentile",
            "countDistinct", "range:integer", "range:decimal", "range:timestamp", "eq:symbol", "in:symbol",
            "ne:symbol", "not-in:symbol", "char", "not", "or", "keys:1", "keys:4", "key:calendar");
        assertThat(shapes).hasSizeGreaterThanOrEqualTo(DrawnShapes.DEFAULT_COUNT)
            .allSatisfy(q -> assertThat(q.scan()).isFalse())
            .allSatisfy(q -> assertThat(q.sql()).doesNotContain("list(", "\"rid\""));
        assertThat(DrawnShapes.draw(TABLE, DrawnShapes.DEFAULT_SEED, DrawnShapes.DEFAULT_COUNT).stream()
            .map(GenQuery::json).toList()).isEqualTo(shapes.stream().map(GenQuery::json).toList());
    }

    @Test
    void shouldClassifyByColumnTypeAndReadTheColumnsAShapeNames() {
        final String json = "{\"table\":\"trades\",\"time\":{\"from\":1794787200000000000},\"filter\":{\"op\":\"and\","
            + "\"args\":[{\"op\":\"not\",\"arg\":{\"op\":\"in\",\"col\":\"venue\",\"values\":[\"XLON\"]}},"
            + "{\"op\":\"or\",\"args\":[{\"op\":\"range\",\"col\":\"price\",\"gte\":1},{\"op\":\"eq\",\"col\":\"side\","
            + "\"value\":\"B\"}]}]},\"groupBy\":[\"client_id\",{\"bucket\":\"P1M\",\"col\":\"ts\",\"as\":\"bk\"}],"
            + "\"aggs\":[{\"name\":\"a\",\"op\":\"first\",\"col\":\"quantity\"},{\"name\":\"v\",\"op\":\"vwap\"}],"
            + "\"limit\":3}";
        assertThat(DrawnShapes.classes(TABLE, json)).containsExactlyInAnyOrder("time", "not", "not-in:symbol",
            "in:symbol", "or", "range:decimal", "char", "keys:2", "key:integer", "key:calendar", "first", "vwap",
            "limit");
        assertThat(DrawnShapes.columns(TABLE, json)).isEqualTo("ts, client_id, venue, side, price, quantity");
        assertThat(DrawnShapes.text(TABLE, json)).isEqualTo("time [2026-11-16T00:00:00Z, ) where (not venue in [XLON]"
            + " and (price >= 1 or side = B)) by client_id, P1M(ts): first(quantity), vwap() limit 3");
    }
}
