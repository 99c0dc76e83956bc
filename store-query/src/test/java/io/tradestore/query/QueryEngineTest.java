package io.tradestore.query;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.schema.Layout;
import io.tradestore.query.model.Agg;
import io.tradestore.query.model.Filter;
import io.tradestore.query.model.Query;
import io.tradestore.query.sql.SqlException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Aggregates, filters, scans and output checked against a plain Java computation over the same rows. */
class QueryEngineTest {
    @TempDir
    static Path dir;
    static Store store;
    static QueryEngine engine;
    static TradeData data;

    @BeforeAll
    static void setUp() {
        store = Store.open(dir);
        data = new TradeData().write(store, TradeData.schema(Layout.COLUMN, 1024, 128), 5000, 42, true);
        engine = new QueryEngine(store, 2);
        engine.indexes().minSegmentRows(1);
        // several morsels per segment, so workers split segments (indexed and scanned) in every test here
        engine.morselRows(300);
        engine.smallQueryRows(0);
    }

    @AfterAll
    static void tearDown() {
        engine.close();
        store.close();
    }

    private static List<TradeData.Row> rows(final Predicate<TradeData.Row> p) {
        return data.rows.stream().filter(p).collect(Collectors.toList());
    }

    private static BigDecimal notional(final List<TradeData.Row> rs) {
        BigInteger s = BigInteger.ZERO;
        for (final TradeData.Row r : rs) {
            if (r.price() != null && r.quantity() != null) {
                s = s.add(BigInteger.valueOf(r.price()).multiply(BigInteger.valueOf(r.quantity())));
            }
        }
        return new BigDecimal(s, 6);
    }

    @Test
    void shouldSumNotionalBySideExactly() {
        final QueryResult r = engine
            .execute("{\"table\":\"trades\",\"groupBy\":[\"side\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
            + "{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*quantity\"}]}");
        assertThat(r.columns()).extracting(ResultColumn::type).containsExactly("char", "i64", "decimal(6)");
        final Map<String, List<TradeData.Row>> bySide = new TreeMap<>(Comparator.nullsLast(Comparator.naturalOrder()));
        for (final TradeData.Row row : data.rows) {
            bySide.computeIfAbsent(row.side() == null ? null : String.valueOf(row.side()), k -> new ArrayList<>())
                .add(row);
        }
        assertThat(r.rowCount()).isEqualTo(bySide.size());
        int i = 0;
        for (final Map.Entry<String, List<TradeData.Row>> e : bySide.entrySet()) {
            assertThat(r.value(i, 0)).isEqualTo(e.getKey());
            assertThat(r.value(i, 1)).isEqualTo((long) e.getValue().size());
            assertThat(r.value(i, 2)).isEqualTo(notional(e.getValue()));
            i++;
        }
    }

    /**
     * A vwap of a product weighs by the volume whatever the order it is written in: quantity*price was
     * sum(price*quantity)/sum(price) before. Without a factor named quantity, the second weighs.
     */
    @Test
    void shouldTakeTheVolumeOfAVwapProductInEitherOrder() {
        final QueryResult r = engine
            .execute("{\"table\":\"trades\",\"groupBy\":[\"venue\"],\"aggs\":[{\"name\":\"a\",\"op\":\"vwap\"},"
            + "{\"name\":\"b\",\"op\":\"vwap\",\"col\":\"price*quantity\"},{\"name\":\"c\",\"op\":\"vwap\",\"col\":\"q"
            + "uantity*price\"},"
            + "{\"name\":\"d\",\"op\":\"vwap\",\"col\":\"client_id*trade_id\"}]}");
        final Map<String,
            List<TradeData.Row>> by = rows(x -> true).stream()
            .collect(Collectors.groupingBy(x -> Objects.toString(x.venue(), "\u0000")));
        assertThat(r.rowCount()).isEqualTo(by.size());
        for (int i = 0; i < r.rowCount(); i++) {
            final List<TradeData.Row> g = by.get(Objects.toString(r.value(i, 0), "\u0000"));
            final List<TradeData.Row> priced = g.stream().filter(x -> x.price() != null && x.quantity() != null)
                .collect(Collectors.toList());
            final double vwap = notional(priced)
                .divide(BigDecimal.valueOf(priced.stream().mapToLong(TradeData.Row::quantity).sum()),
                java.math.MathContext.DECIMAL128).doubleValue();
            for (int c = 1; c <= 3; c++) {
                assertThat((Double) r.value(i, c)).as("column %d", c)
                    .isCloseTo(vwap, org.assertj.core.data.Percentage.withPercentage(1e-9));
            }
            // no factor named quantity: the second one as written is the volume
            final List<TradeData.Row> both = g.stream().filter(x -> x.tradeId() != null && x.clientId() != null)
                .collect(Collectors.toList());
            final BigDecimal qc = both.stream()
                .map(x -> BigDecimal.valueOf(x.tradeId()).multiply(BigDecimal.valueOf(x.clientId())))
                .reduce(BigDecimal.ZERO, BigDecimal::add);
            final BigDecimal cs = BigDecimal.valueOf(both.stream().mapToLong(TradeData.Row::tradeId).sum());
            assertThat((Double) r.value(i, 4)).isCloseTo(qc.divide(cs, java.math.MathContext.DECIMAL128).doubleValue(),
                org.assertj.core.data.Percentage.withPercentage(1e-9));
        }
    }

    @Test
    void shouldFilterAndAggregatePerInstrumentLikeTheReference() {
        final long from = TradeData.T0 + 700L * 1_000_000_000L;
        final long to = TradeData.T0 + 4100L * 1_000_000_000L;
        final Query q = Query.builder("trades").time(from, to)
            .filter(Filter.and(Filter.in("venue", "XLON", "XPAR", "NOPE"), Filter.not(Filter.eq("side", "S")),
                Filter.between("quantity", 100L, 9000L)))
            .groupBy("instrument")
            .agg(Agg.count("n"), Agg.sum("qty", "quantity"), Agg.min("lo", "price"), Agg.max("hi", "price"),
            Agg.first("open", "price"),
                Agg.last("close", "price"), Agg.vwap("vwap"), Agg.avg("avgq", "quantity"),
                Agg.countDistinct("clients", "client_id"))
            .orderBy("qty", true).limit(5).build();
        final QueryResult r = engine.execute(q);
        final List<TradeData.Row> match = rows(x -> x.ts() != null && x.ts() >= from && x.ts() < to
            && ("XLON".equals(x.venue()) || "XPAR".equals(x.venue())) && x.side() != null && x.side() != 'S'
            && x.quantity() != null && x.quantity() >= 100 && x.quantity() < 9000);
        final Map<String,
            List<TradeData.Row>> by = match.stream()
            .collect(Collectors.groupingBy(x -> Objects.toString(x.instrument(), "\u0000")));
        final List<Map.Entry<String, List<TradeData.Row>>> expected = new ArrayList<>(by.entrySet());
        expected.sort((a, b) -> {
            final long qa = a.getValue().stream().mapToLong(TradeData.Row::quantity).sum();
            final long qb = b.getValue().stream().mapToLong(TradeData.Row::quantity).sum();
            return qa != qb ? Long.compare(qb, qa) : a.getKey().compareTo(b.getKey());
        });
        assertThat(r.rowCount()).isEqualTo(Math.min(5, expected.size()));
        for (int i = 0; i < r.rowCount(); i++) {
            final List<TradeData.Row> g = expected.get(i).getValue();
            assertThat(r.value(i, 0))
                .isEqualTo(expected.get(i).getKey().equals("\u0000") ? null : expected.get(i).getKey());
            assertThat(r.value(i, 1)).isEqualTo((long) g.size());
            assertThat(r.value(i, 2))
                .isEqualTo(BigDecimal.valueOf(g.stream().mapToLong(TradeData.Row::quantity).sum()));
            final List<TradeData.Row> priced = g.stream().filter(x -> x.price() != null).collect(Collectors.toList());
            assertThat(r.value(i, 3))
                .isEqualTo(priced.stream().map(TradeData.Row::priceValue).min(Comparator.naturalOrder()).orElse(null));
            assertThat(r.value(i, 4))
                .isEqualTo(priced.stream().map(TradeData.Row::priceValue).max(Comparator.naturalOrder()).orElse(null));
            final Comparator<TradeData.Row> byTs = Comparator.comparing(TradeData.Row::ts)
                .thenComparing(TradeData.Row::row);
            assertThat(r.value(i, 5)).isEqualTo(priced.stream().min(byTs).map(TradeData.Row::priceValue).orElse(null));
            assertThat(r.value(i, 6)).isEqualTo(priced.stream().max(byTs).map(TradeData.Row::priceValue).orElse(null));
            final BigDecimal pq = notional(priced);
            final BigDecimal q2 = BigDecimal.valueOf(priced.stream().mapToLong(TradeData.Row::quantity).sum());
            assertThat((Double) r.value(i, 7)).isCloseTo(pq.divide(q2, java.math.MathContext.DECIMAL128).doubleValue(),
                org.assertj.core.data.Percentage.withPercentage(1e-9));
            assertThat((Double) r.value(i, 8))
                .isCloseTo(g.stream().mapToLong(TradeData.Row::quantity).average().orElseThrow(),
                org.assertj.core.data.Percentage.withPercentage(1e-9));
            assertThat(r.value(i, 9))
                .isEqualTo(g.stream().map(TradeData.Row::clientId).filter(Objects::nonNull).distinct().count());
        }
        assertThat(r.stats().rowsMatched()).isEqualTo(match.size());
        assertThat(r.stats().blocksSkipped()).isPositive();
    }

    @Test
    void shouldReturnCountZeroAndNullsForAGlobalAggregateOverNoRows() {
        final QueryResult r = engine
            .execute("{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"NOPE\"},"
            + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"s\",\"op\":\"sum\",\"col\":\"quantity\"},"
            + "{\"name\":\"m\",\"op\":\"max\",\"col\":\"ts\"}]}");
        assertThat(r.rowCount()).isEqualTo(1);
        assertThat(r.value(0, 0)).isEqualTo(0L);
        assertThat(r.value(0, 1)).isNull();
        assertThat(r.value(0, 2)).isNull();
        final QueryResult g = engine
            .execute("{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"NOPE\"},"
            + "\"groupBy\":[\"venue\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}");
        assertThat(g.rowCount()).isZero();
    }

    @Test
    void shouldAnswerGlobalAggregatesOverEverything() {
        final QueryResult r = engine.execute("{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
            + "{\"name\":\"q\",\"op\":\"sum\",\"col\":\"quantity\"},{\"name\":\"lo\",\"op\":\"min\",\"col\":\"ts\"},{"
            + "\"name\":\"hi\",\"op\":\"max\","
            + "\"col\":\"ts\"},{\"name\":\"nq\",\"op\":\"count\",\"col\":\"quantity\"}]}");
        assertThat(r.value(0, 0)).isEqualTo((long) data.rows.size());
        assertThat(r.value(0, 1)).isEqualTo(BigDecimal.valueOf(data.rows.stream().filter(x -> x.quantity() != null)
            .mapToLong(TradeData.Row::quantity).sum()));
        final long[] ts = data.rows.stream().map(TradeData.Row::ts).filter(Objects::nonNull).mapToLong(Long::longValue)
            .sorted().toArray();
        assertThat(r.value(0, 2)).isEqualTo(ts[0]);
        assertThat(r.value(0, 3)).isEqualTo(ts[ts.length - 1]);
        assertThat(r.value(0, 4)).isEqualTo(data.rows.stream().filter(x -> x.quantity() != null).count());
    }

    @Test
    void shouldBucketByMinuteWithOhlc() {
        final QueryResult r = engine
            .execute("{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM3\"},"
            + "\"groupBy\":[{\"bucket\":\"1m\",\"col\":\"ts\",\"as\":\"minute\"}],\"aggs\":[{\"name\":\"open\",\"op\":"
            + "\"first\",\"col\":\"price\"},"
            + "{\"name\":\"v\",\"op\":\"sum\",\"col\":\"quantity\"}]}");
        final Map<Long, List<TradeData.Row>> by = new TreeMap<>(Comparator.nullsLast(Comparator.naturalOrder()));
        for (final TradeData.Row x : rows(x -> "SYM3".equals(x.instrument()))) {
            by.computeIfAbsent(x.ts() == null ? null : Math.floorDiv(x.ts(), 60_000_000_000L) * 60_000_000_000L,
                k -> new ArrayList<>()).add(x);
        }
        assertThat(r.rowCount()).isEqualTo(by.size());
        int i = 0;
        for (final Map.Entry<Long, List<TradeData.Row>> e : by.entrySet()) {
            assertThat(r.value(i, 0)).isEqualTo(e.getKey());
            assertThat(r.value(i, 2)).isEqualTo(e.getValue().stream().anyMatch(x -> x.quantity() != null)
                ? BigDecimal.valueOf(e.getValue().stream().filter(x -> x.quantity() != null)
                .mapToLong(TradeData.Row::quantity).sum()) : null);
            i++;
        }
        assertThat(r.columns().get(0)).isEqualTo(new ResultColumn("minute", "timestamp"));
    }

    /** A top-N says when groups were left out, as a scan does for rows (before, a grouped answer always said false). */
    @Test
    void shouldSayWhenTheLimitLeftGroupsOut() {
        final long venues = rows(x -> true).stream().map(TradeData.Row::venue).distinct().count();
        final String grouped =
            "{\"table\":\"trades\",\"groupBy\":[\"venue\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]";
        for (final long limit : new long[] {0, 1, venues - 1, venues, venues + 1}) {
            final QueryResult r = engine.execute(grouped + ",\"limit\":" + limit + "}");
            assertThat(r.rowCount()).isEqualTo(Math.min(limit, venues));
            assertThat(r.truncated()).as("limit %d of %d groups", limit, venues).isEqualTo(limit < venues);
        }
        assertThat(engine.execute(grouped + "}").truncated()).isFalse();
        // having counts: groups it drops are not left out by the limit
        final QueryResult big = engine
            .execute(grouped + ",\"having\":{\"op\":\"range\",\"col\":\"n\",\"gte\":0},\"limit\":" + venues + "}");
        assertThat(big.truncated()).isFalse();
        final QueryResult none = engine
            .execute(grouped + ",\"having\":{\"op\":\"range\",\"col\":\"n\",\"lt\":0},\"limit\":1}");
        assertThat(none.rowCount()).isZero();
        assertThat(none.truncated()).isFalse();
        final QueryResult global = engine
            .execute("{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}],\"limit\":0}");
        assertThat(global.rowCount()).isZero();
        assertThat(global.truncated()).isTrue();
    }

    @Test
    void shouldScanTheLastTradesOfOneClient() {
        final QueryResult r = engine.execute("{\"table\":\"trades\",\"columns\":[\"trade_id\",\"ts\",\"price\"],"
            + "\"filter\":{\"op\":\"eq\",\"col\":\"client_id\",\"value\":3},\"orderBy\":[{\"col\":\"ts\",\"desc\":true"
            + "}],\"limit\":7}");
        final List<TradeData.Row> expected = rows(x -> Long.valueOf(3).equals(x.clientId()));
        expected.sort(Comparator.comparing(TradeData.Row::ts, Comparator.nullsFirst(Comparator.<Long>naturalOrder()))
            .reversed()
            .thenComparing(TradeData.Row::row));
        // nulls last in both directions
        final List<TradeData.Row> ordered =
            new ArrayList<>(expected.stream().filter(x -> x.ts() != null).collect(Collectors.toList()));
        ordered.addAll(expected.stream().filter(x -> x.ts() == null).sorted(Comparator.comparing(TradeData.Row::row))
            .collect(Collectors.toList()));
        assertThat(r.rowCount()).isEqualTo(7);
        assertThat(r.truncated()).isTrue();
        for (int i = 0; i < 7; i++) {
            assertThat(r.value(i, 0)).isEqualTo(ordered.get(i).tradeId());
            assertThat(r.value(i, 2)).isEqualTo(ordered.get(i).priceValue());
        }
        final QueryResult all = engine
            .execute("{\"table\":\"trades\",\"columns\":[\"trade_id\"],\"filter\":{\"op\":\"range\",\"col\":\"price\","
            + "\"gt\":\"500.9\"},\"limit\":100000}");
        assertThat(all.truncated()).isFalse();
        assertThat(all.rowCount()).isEqualTo(rows(x -> x.price() != null && x.price() > 500_900_000L).size());
        assertThat(all.value(0, 0))
            .isEqualTo(rows(x -> x.price() != null && x.price() > 500_900_000L).get(0).tradeId());
    }

    @Test
    void shouldApplyHavingAndOrderDeterministically() {
        final String q =
            "{\"table\":\"trades\",\"groupBy\":[\"venue\",\"side\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}],"
            + "\"having\":{\"op\":\"range\",\"col\":\"n\",\"gte\":100},"
            + "\"orderBy\":[{\"col\":\"venue\",\"desc\":true}]}";
        final QueryResult a = engine.execute(q);
        final QueryResult b = engine.execute(q);
        assertThat(a.rowCount()).isEqualTo(b.rowCount()).isPositive();
        for (int i = 0; i < a.rowCount(); i++) {
            assertThat((Long) a.value(i, 2)).isGreaterThanOrEqualTo(100);
            for (int c = 0; c < 3; c++) {
                assertThat(a.value(i, c)).isEqualTo(b.value(i, c));
            }
        }
        assertThat(a.value(0, 0)).isEqualTo("XPAR");
        assertThat(a.value(0, 1)).isEqualTo("B");
        assertThat(a.value(1, 1)).isEqualTo("S");
    }

    @Test
    void shouldStreamJsonWithExactDecimalsAndIsoTimestamps() throws Exception {
        final QueryResult r = engine
            .execute("{\"table\":\"trades\",\"columns\":[\"ts\",\"price\",\"venue\"],\"filter\":{\"op\":\"eq\","
            + "\"col\":\"trade_id\",\"value\":2},\"options\":{\"epochNanos\":false}}");
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        r.writeJson(out, false);
        final String json = out.toString(StandardCharsets.UTF_8);
        final TradeData.Row row = data.rows.get(1);
        assertThat(json).contains("\"columns\":[{\"name\":\"ts\",\"type\":\"timestamp\"}")
            .contains(io.tradestore.query.exec.Result.iso(row.ts()))
            .contains(row.priceValue().toPlainString()).contains("\"truncated\":false").contains("\"rowsScanned\"");
        final ByteArrayOutputStream nanos = new ByteArrayOutputStream();
        r.writeJson(nanos, true);
        assertThat(nanos.toString(StandardCharsets.UTF_8)).contains("[" + row.ts() + ",");
    }

    @Test
    void shouldReportPercentilesAsApproximate() {
        final QueryResult r = engine
            .execute(Query.builder("trades")
            .agg(Agg.percentile("p50", "quantity", 50), Agg.percentile("p99", "price", 99))
            .build());
        assertThat(r.columns().get(0).approximate()).isTrue();
        assertThat(r.columns().get(0).relativeError()).isEqualTo(0.001);
        final long[] q = data.rows.stream().filter(x -> x.quantity() != null).mapToLong(TradeData.Row::quantity)
            .sorted().toArray();
        final double exact = q[(int) Math.ceil(0.5 * q.length) - 1];
        assertThat((Double) r.value(0, 0)).isCloseTo(exact, org.assertj.core.data.Percentage.withPercentage(0.2));
    }

    // ------------------------------------------------ SQL: the same model and engine, answers shaped as SQL asks

    private static void assertSameAnswer(final String sql, final String json) {
        final QueryResult s = engine.executeSql(sql);
        final QueryResult j = engine.execute(json);
        assertThat(s.columns()).isEqualTo(j.columns());
        assertThat(QueryResults.rows(s)).isEqualTo(QueryResults.rows(j));
        assertThat(s.truncated()).isEqualTo(j.truncated());
    }

    @Test
    void shouldAnswerAsTheJsonTwinDoes() {
        assertSameAnswer("SELECT venue, count(*) AS n, sum(price*quantity) AS notional, max(price) AS hi FROM trades"
            + " WHERE side = 'B' AND quantity BETWEEN 10 AND 5000 GROUP BY venue ORDER BY notional DESC LIMIT 3",
            "{\"table\":\"trades\",\"filter\":{\"op\":\"and\",\"args\":["
            + "{\"op\":\"eq\",\"col\":\"side\",\"value\":\"B\"},"
            + "{\"op\":\"range\",\"col\":\"quantity\",\"gte\":10,\"lte\":5000}]},\"groupBy\":[\"venue\"],"
            + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
            + "{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*quantity\"},"
            + "{\"name\":\"hi\",\"op\":\"max\",\"col\":\"price\"}],\"orderBy\":[{\"col\":\"notional\",\"desc\":true}],"
            + "\"limit\":3}");
        assertSameAnswer("SELECT trade_id, ts, price FROM trades WHERE client_id IN (1, 2, 3) ORDER BY ts DESC LIMIT 7",
            "{\"table\":\"trades\",\"columns\":[\"trade_id\",\"ts\",\"price\"],\"filter\":{\"op\":\"in\","
            + "\"col\":\"client_id\",\"values\":[1,2,3]},\"orderBy\":[{\"col\":\"ts\",\"desc\":true}],\"limit\":7}");
        assertSameAnswer("SELECT ts AS minute, first(price) AS open, last(price) AS close FROM trades SAMPLE BY 1m",
            "{\"table\":\"trades\",\"groupBy\":[{\"bucket\":\"1m\",\"col\":\"ts\",\"as\":\"minute\"}],\"aggs\":["
            + "{\"name\":\"open\",\"op\":\"first\",\"col\":\"price\"},{\"name\":\"close\",\"op\":\"last\","
            + "\"col\":\"price\"}]}");
    }

    @Test
    void shouldComputeVwapExactlyFromItsTwoSumsWithNullsAsSqlCountsThem() {
        final QueryResult r = engine.executeSql("SELECT sum(price*quantity)/sum(quantity) AS vwap, "
            + "sum(quantity) - 1 AS q FROM trades");
        BigInteger pq = BigInteger.ZERO;
        long q = 0;
        for (final TradeData.Row row : data.rows) {
            if (row.price() != null && row.quantity() != null) {
                pq = pq.add(BigInteger.valueOf(row.price()).multiply(BigInteger.valueOf(row.quantity())));
            }
            if (row.quantity() != null) {
                // SQL's sum(quantity) counts rows whose price is null too; the JSON vwap does not
                q += row.quantity();
            }
        }
        assertThat(r.columns()).extracting(ResultColumn::type).containsExactly("f64", "decimal(0)");
        assertThat((Double) r.value(0, 0)).isEqualTo(new BigDecimal(pq, 6).divide(BigDecimal.valueOf(q),
            MathContext.DECIMAL128).doubleValue());
        // the engine sums integers exactly into decimal(0), as DuckDB into HUGEINT
        assertThat(r.value(0, 1)).isEqualTo(BigDecimal.valueOf(q - 1));
    }

    @Test
    void shouldReorderRenameAndOffsetTheAnswer() throws Exception {
        final QueryResult all = engine.executeSql("SELECT count(*) AS n, venue FROM trades GROUP BY venue "
            + "ORDER BY venue");
        final QueryResult page = engine.executeSql("SELECT count(*) AS n, venue FROM trades GROUP BY venue "
            + "ORDER BY venue LIMIT 2 OFFSET 1");
        assertThat(all.columns()).extracting(ResultColumn::name).containsExactly("n", "venue");
        assertThat(QueryResults.rows(page)).isEqualTo(QueryResults.rows(all).subList(1, 3));
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        page.writeJson(out, false);
        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("{\"columns\":[{\"name\":\"n\",\"type\":\"i64\"},"
            + "{\"name\":\"venue\",\"type\":\"symbol\"}],\"rows\":[[" + page.value(0, 0) + ",\"" + page.value(0, 1)
            + "\"]");
    }

    @Test
    void shouldKeepRowsWhoseValueIsPresentForIsNotNull() {
        long present = data.rows.stream().filter(r -> r.price() != null).count();
        assertThat(engine.executeSql("SELECT count(*) FROM trades WHERE price IS NOT NULL").value(0, 0))
            .isEqualTo(present);
        present = data.rows.stream().filter(r -> r.venue() != null).count();
        assertThat(engine.executeSql("SELECT count(*) FROM trades WHERE venue IS NOT NULL").value(0, 0))
            .isEqualTo(present);
    }

    @Test
    void shouldReportAPlanningFailureAtItsPlaceInTheSql() {
        assertThatThrownBy(() -> engine.executeSql("SELECT venue,\n  sum(instrument) AS s FROM trades GROUP BY venue"))
            .isInstanceOfSatisfying(SqlException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.INVALID_QUERY);
                assertThat(e.line()).isEqualTo(2);
                assertThat(e.column()).isEqualTo(7);
            });
        assertThatThrownBy(() -> engine.executeSql("SELECT count(*) FROM nope"))
            .isInstanceOfSatisfying(SqlException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_TABLE);
                assertThat(e.column()).isEqualTo(22);
            });
    }

    /** The same SQL text on tradestore and on DuckDB (the same rows; timestamps to the microsecond there). */
    @Test
    void shouldAnswerTheSameSqlTextAsDuckDb() throws Exception {
        final String[] queries = {
            "SELECT venue, count(*) AS n, sum(price * quantity) AS notional, min(price) AS lo, max(price) AS hi\n"
                + "FROM trades WHERE side = 'B' AND quantity BETWEEN 10 AND 5000 GROUP BY venue ORDER BY venue",
            "SELECT instrument, sum(price * quantity) / sum(quantity) AS vwap, sum(quantity) AS volume FROM trades\n"
                + "GROUP BY instrument ORDER BY volume DESC, instrument LIMIT 5 OFFSET 2",
            "SELECT count(*) AS n, count(price) AS np, count(DISTINCT client_id) AS clients, avg(quantity) AS aq\n"
                + "FROM trades WHERE venue NOT IN ('XLON') AND price IS NOT NULL AND NOT (side = 'S' OR quantity < 5)",
            "SELECT date_trunc('minute', ts) AS minute, count(*) AS n, max(price) - min(price) AS spread FROM trades\n"
                + "WHERE ts >= TIMESTAMP '2026-11-18 11:20:00' AND ts < '2026-11-18 11:40:00' GROUP BY 1 ORDER BY 1",
            "SELECT time_bucket(INTERVAL '5 minutes', ts) AS b, venue, count(*) AS n FROM trades GROUP BY b, venue\n"
                + "HAVING count(*) > 20 ORDER BY n DESC, b, venue",
            "SELECT trade_id, price, quantity FROM trades WHERE client_id IN (1, 2, 3, 4, 5) AND quantity > 100\n"
                + "ORDER BY trade_id DESC LIMIT 20",
            "select \"Side\" s, count(*) /* all */ as n from TRADES -- by side\ngroup by s order by s nulls last"};
        try (java.sql.Connection duck = java.sql.DriverManager.getConnection("jdbc:duckdb:");
             java.sql.Statement st = duck.createStatement()) {
            st.execute("CREATE TABLE staged (trade_id BIGINT, ts_us BIGINT, client_id BIGINT, venue VARCHAR, "
                + "instrument VARCHAR, side VARCHAR, price DECIMAL(18,6), quantity BIGINT)");
            try (org.duckdb.DuckDBAppender a = duck.unwrap(org.duckdb.DuckDBConnection.class)
                .createAppender(org.duckdb.DuckDBConnection.DEFAULT_SCHEMA, "staged")) {
                for (final TradeData.Row r : data.rows) {
                    a.beginRow();
                    final Object[] values = {r.tradeId(), r.ts() == null ? null : r.ts() / 1000, r.clientId(),
                        r.venue(), r.instrument(), r.side() == null ? null : r.side().toString(), r.priceValue(),
                        r.quantity()};
                    for (final Object v : values) {
                        if (v == null) {
                            a.appendNull();
                        } else if (v instanceof Long l) {
                            a.append((long) l);
                        } else if (v instanceof BigDecimal d) {
                            a.append(d);
                        } else {
                            a.append((String) v);
                        }
                    }
                    a.endRow();
                }
            }
            st.execute("CREATE TABLE trades AS SELECT trade_id, make_timestamp(ts_us) AS ts, client_id, venue, "
                + "instrument, side, price, quantity FROM staged");
            for (final String sql : queries) {
                final QueryResult ours = engine.executeSql(sql);
                final List<List<Object>> theirs = new ArrayList<>();
                try (java.sql.ResultSet rs = st.executeQuery(sql)) {
                    while (rs.next()) {
                        final List<Object> row = new ArrayList<>();
                        for (int c = 1; c <= rs.getMetaData().getColumnCount(); c++) {
                            row.add(rs.getObject(c));
                        }
                        theirs.add(row);
                    }
                }
                assertThat(ours.rowCount()).as(sql).isEqualTo(theirs.size()).isPositive();
                for (int r = 0; r < theirs.size(); r++) {
                    assertThat(theirs.get(r)).as(sql).hasSize(ours.columns().size());
                    for (int c = 0; c < ours.columns().size(); c++) {
                        assertSameValue(ours.value(r, c), theirs.get(r).get(c), sql + " row " + r + " column " + c);
                    }
                }
            }
        }
    }

    private static void assertSameValue(final Object ours, final Object theirs, final String where) {
        if (ours == null || theirs == null) {
            assertThat(ours).as(where).isEqualTo(theirs);
        } else if (theirs instanceof java.sql.Timestamp || theirs instanceof java.time.LocalDateTime) {
            final java.time.Instant i = theirs instanceof java.sql.Timestamp t ? t.toInstant()
                : ((java.time.LocalDateTime) theirs).toInstant(java.time.ZoneOffset.UTC);
            assertThat(ours).as(where).isEqualTo(i.getEpochSecond() * 1_000_000_000L + i.getNano());
        } else if (ours instanceof Double || theirs instanceof Double) {
            final double a = ((Number) ours).doubleValue();
            final double b = ((Number) theirs).doubleValue();
            assertThat(Math.abs(a - b)).as(where + ": " + a + " vs " + b).isLessThanOrEqualTo(1e-9 * Math.abs(b));
        } else if (ours instanceof Number) {
            assertThat(new BigDecimal(ours.toString())).as(where)
                .isEqualByComparingTo(new BigDecimal(theirs.toString()));
        } else {
            assertThat(ours.toString()).as(where).isEqualTo(theirs.toString());
        }
    }
}
