package io.tradestore.query;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TestRows;
import io.tradestore.core.schema.Layout;
import io.tradestore.query.exec.filter.IntRangeFilter;
import io.tradestore.query.plan.Binder;
import io.tradestore.query.plan.Plan;

/**
 * A range filter on the designated timestamp (what SQL's {@code ts >= a AND ts < b} translates to) sizes time-bucket
 * keys to the range, as {@code time} does, instead of to the whole table's span, and its two bounds are one range;
 * the answers stay the same.
 */
class TimeRangeFilterPlanTest {
    @TempDir
    Path dir;

    @Test
    void shouldSizeTimestampBucketsToARangeFilterAsToTheTimeRange() {
        // one row a second over 5,000 s (83 one-minute buckets); the queries ask for 10 minutes of them
        final long from = TradeData.T0 + 600_000_000_000L;
        final long to = from + 600_000_000_000L;
        final String aggs = "\"groupBy\":[{\"col\":\"ts\",\"bucket\":\"1m\",\"as\":\"minute\"}],"
            + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"open\",\"op\":\"first\",\"col\":\"price\"}],"
            + "\"orderBy\":[{\"col\":\"minute\"}]";
        final String byTime = "{\"table\":\"trades\",\"time\":{\"from\":" + from + ",\"to\":" + to + "}," + aggs + "}";
        final String byFilter = "{\"table\":\"trades\",\"filter\":{\"op\":\"and\",\"args\":["
            + "{\"op\":\"eq\",\"col\":\"side\",\"value\":\"B\"},"
            + "{\"op\":\"range\",\"col\":\"ts\",\"gte\":" + from + ",\"lt\":" + to + "}]}," + aggs + "}";
        final String byTimeBuys = byTime.replace("\"time\"", "\"filter\":{\"op\":\"eq\",\"col\":\"side\","
            + "\"value\":\"B\"},\"time\"");
        final String unbounded = byFilter.replace(",\"lt\":" + to, "");
        try (Store store = Store.open(dir)) {
            new TradeData().write(store, TradeData.schema(Layout.COLUMN, 1024, 128), 5_000, 3, false);
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                final TableSnapshot snap = engine.snapshot("trades");
                final Plan time = Binder.bind(QueryEngine.parse(byTime), snap, System.nanoTime());
                final Plan filter = Binder.bind(QueryEngine.parse(byFilter), snap, System.nanoTime());
                final Plan open = Binder.bind(QueryEngine.parse(unbounded), snap, System.nanoTime());
                assertThat(time.denseSize).isBetween(10L, 13L);
                assertThat(filter.denseSize).isEqualTo(time.denseSize);
                // the two bounds on ts are one range, tested once a row, as time's is
                final int ts = snap.schema().timestampIndex();
                assertThat(filter.conjuncts).hasSize(2)
                    .filteredOn(f -> f instanceof IntRangeFilter r && r.col == ts).singleElement().satisfies(f -> {
                        assertThat(((IntRangeFilter) f).lo).isEqualTo(from);
                        assertThat(((IntRangeFilter) f).hi).isEqualTo(to - 1);
                    });
                // bounded below only: from the range's start to the table's last bucket
                assertThat(open.denseSize).isBetween(70L, 75L);
                final QueryResult a = engine.execute(byFilter);
                final QueryResult b = engine.execute(byTimeBuys);
                assertThat(a.rowCount()).isBetween(10, 11);
                assertThat(QueryResults.rows(a)).isEqualTo(QueryResults.rows(b));
            }
        }
        TestRows.assertNoNativeLeaks();
    }
}
