package io.tradestore.query;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Sums of products past 2^127, where the 128-bit accumulators wrap: exact against BigInteger (DuckDB's DECIMAL(38)
 * stops below them). Before, three rows of the largest values summed to a negative number. Every
 * path: the fused dense kernel, the per-row exact loops, merges of two workers' partials, and an indexed engine whose
 * value summaries must step aside for such data.
 */
@ExtendWith(TestRows.NoLeaks.class)
class BeyondInt128SumTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"COLUMN,8,1", "COLUMN,8,2", "ROW,64,2", "COLUMN,4096,2"})
    void shouldSumProductsPastTwoToThe127Exactly(final Layout layout, final int segmentRows, final int threads) {
        final SplittableRandom random = new SplittableRandom(20_261_122L + segmentRows);
        final List<long[]> rows = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            // mostly near the largest magnitudes, a fifth negative, so the running sums wrap both ways
            final long p = Long.MAX_VALUE - random.nextLong(1_000_000);
            final long q = Long.MAX_VALUE - random.nextLong(1_000_000);
            rows.add(new long[] {i % 2 == 0 ? 'B' : 'S', random.nextInt(5) == 0 ? -p : p, q});
        }
        try (Store store = Store.open(dir)) {
            write(store, layout, segmentRows, rows);
            for (final boolean indexed : new boolean[] {false, true}) {
                try (QueryEngine engine = new QueryEngine(store, threads)) {
                    engine.useIndexes(indexed);
                    engine.smallQueryRows(0); // two workers when threads=2, however few the rows
                    check(engine, rows, "", x -> true);
                    check(engine, rows, ",\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM1\"}",
                        x -> rows.indexOf(x) / 2 % 2 == 1);
                }
            }
        }
    }

    /**
     * A sum brought near 2^127 by one segment's rows (exact per-row adds) and carried across it by a later segment's
     * flushed 64-bit partial (a path once left uncounted), up and down.
     */
    @ParameterizedTest
    @CsvSource({"1,1", "1,2", "-1,1", "-1,2"})
    void shouldCountAWrapMadeByAFlushedPartial(final int sign, final int threads) {
        final long big = Long.MAX_VALUE;
        final List<long[]> rows = new ArrayList<>();
        BigInteger pq = BigInteger.ZERO;
        for (final long[] x : new long[][] {{big, big}, {big, big}, {8, (1L << 62) - 125}, {0, 0}, {1, 1000}}) {
            rows.add(new long[] {'B', sign * x[0], x[1]});
            pq = pq.add(BigInteger.valueOf(sign * x[0]).multiply(BigInteger.valueOf(x[1])));
        }
        try (Store store = Store.open(dir)) {
            write(store, Layout.COLUMN, 4, rows);
            assertThat(pq.abs()).as("past 2^127").isGreaterThan(BigInteger.ONE.shiftLeft(127));
            for (final boolean indexed : new boolean[] {false, true}) {
                try (QueryEngine engine = new QueryEngine(store, threads)) {
                    engine.useIndexes(indexed);
                    engine.smallQueryRows(0); // two workers when threads=2, however few the rows
                    for (final String q
                    : new String[] {"{\"table\":\"trades\",\"aggs\":[{\"name\":\"pq\",\"op\":\"sum\",\"col\":\"price*q"
                    + "uantity\"}]}",
                        "{\"table\":\"trades\",\"groupBy\":[\"side\"],\"aggs\":[{\"name\":\"pq\",\"op\":\"sum\",\"col"
                        + "\":\"price*quantity\"}]}"}) {
                        final QueryResult r = engine.execute(q);
                        assertThat(r.value(0, r.columns().size() - 1)).as(q).isEqualTo(new BigDecimal(pq, 6));
                    }
                }
            }
        }
    }

    /** Writes rows {side, price, quantity}; instruments SYM0 and SYM1 alternate every two rows. */
    private static void write(final Store store, final Layout layout, final int segmentRows, final List<long[]> rows) {
        try (TableWriter w = store
            .createTable(TradesSchema.SCHEMA.with("trades", layout, segmentRows, Math.min(segmentRows, 1024)))
            .writer()) {
            final TradeFlyweight f = new TradeFlyweight();
            for (int i = 0; i < rows.size(); i++) {
                final long[] x = rows.get(i);
                w.append(f).tradeId(i + 1).ts(1_795_000_000_000_000_000L + i * 1_000L).clientId(1 + i % 3).venue("XLON")
                    .instrument("SYM" + i / 2 % 2).side((char) x[0]).price(x[1]).quantity(x[2]);
            }
            w.commit();
        }
    }

    private static void check(final QueryEngine engine, final List<long[]> rows, final String filter,
        final java.util.function.Predicate<long[]> keep) {
        final QueryResult r = engine.execute("{\"table\":\"trades\"" + filter + ",\"groupBy\":[\"side\"],\"aggs\":["
            + "{\"name\":\"pq\",\"op\":\"sum\",\"col\":\"price*quantity\"},{\"name\":\"avg\",\"op\":\"avg\",\"col\":\""
            + "price*quantity\"},"
            + "{\"name\":\"vwap\",\"op\":\"vwap\"}],\"orderBy\":[\"side\"]}");
        assertThat(r.rowCount()).isEqualTo(2);
        // no group key: what value summaries answer (queries 3, 7 and 8), unless the data is out of their range
        final QueryResult all = engine
            .execute("{\"table\":\"trades\"" + filter
            + ",\"aggs\":[{\"name\":\"pq\",\"op\":\"sum\",\"col\":\"price*quantity\"}]}");
        BigInteger total = BigInteger.ZERO;
        for (final long[] x : rows) {
            total = keep.test(x) ? total.add(BigInteger.valueOf(x[1]).multiply(BigInteger.valueOf(x[2]))) : total;
        }
        assertThat(all.value(0, 0)).as("sum%s", filter).isEqualTo(new BigDecimal(total, 6));
        for (int g = 0; g < 2; g++) {
            final char side = g == 0 ? 'B' : 'S';
            BigInteger pq = BigInteger.ZERO;
            BigInteger q = BigInteger.ZERO;
            long n = 0;
            for (final long[] x : rows) {
                if (x[0] == side && keep.test(x)) {
                    pq = pq.add(BigInteger.valueOf(x[1]).multiply(BigInteger.valueOf(x[2])));
                    q = q.add(BigInteger.valueOf(x[2]));
                    n++;
                }
            }
            assertThat(pq.abs().bitLength()).as("the test's sums pass 2^127").isGreaterThan(127);
            assertThat(r.value(g, 1)).as("sum, side %s%s", side, filter).isEqualTo(new BigDecimal(pq, 6));
            assertThat((Double) r.value(g, 2))
                .isCloseTo(new BigDecimal(pq, 6).divide(BigDecimal.valueOf(n), MathContext.DECIMAL128).doubleValue(),
                within(Math.abs(new BigDecimal(pq, 6).doubleValue() / n) * 1e-12));
            final double vwap = new BigDecimal(pq, 6).divide(new BigDecimal(q), MathContext.DECIMAL128).doubleValue();
            assertThat((Double) r.value(g, 3)).isCloseTo(vwap, within(Math.abs(vwap) * 1e-12));
        }
    }
}
