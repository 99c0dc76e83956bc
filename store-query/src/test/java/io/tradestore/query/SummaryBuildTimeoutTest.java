package io.tradestore.query;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TestRows;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;
import io.tradestore.query.index.BitmapIndexes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A query's {@code timeoutMs} stops the index and summary builds it starts, as it stops its row loops: the build gives
 * up at its next check with the scan's TIMEOUT, caches nothing (no summary, no bytes counted, no index file), and the
 * next query builds it and answers as an engine without indexes does. Deterministic: the engine's clock jumps an hour
 * when a build reads it a second time (after its first {@code Deadline.CHECK_ROWS} rows, or an open segment's
 * first chunk of its index), not on a race with the wall clock.
 */
class SummaryBuildTimeoutTest {
    /** Four checks per build of a sealed segment. */
    private static final int SEGMENT = 1 << 16;
    private static final int ROWS = 3 * SEGMENT + 10_000;
    /** Rows of table {@code open}: all in its open segment, three full chunks of its index and a tail. */
    private static final int OPEN_ROWS = 3 * (1 << 16) + 100;
    private static final String TIMEOUT = "\"options\":{\"timeoutMs\":60000}";
    private static final String COUNT_AND_VOLUME =
        "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"v\",\"op\":\"sum\",\"col\":\"quantity\"}]";
    @TempDir
    static Path dir;
    static Store store;
    static QueryEngine scanning;

    /** A build a query makes on the calling thread, and a query that makes it. */
    enum Build {
        /** Per-minute cells of one instrument (query 6's shape). */
        BUCKET_SUMMARY("BucketSummary.build",
            "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM3\"},"
            + "\"groupBy\":[{\"bucket\":\"1m\",\"col\":\"ts\",\"as\":\"m\"}]," + COUNT_AND_VOLUME
            + ",\"orderBy\":[{\"col\":\"m\"}]," + TIMEOUT + "}"),
        /** Parts of one instrument's rows (a global aggregate of an eq selection). */
        VALUE_SUMMARY("ValueSummary.build",
            "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM2\"},"
            + COUNT_AND_VOLUME + "," + TIMEOUT + "}"),
        /** Parts of all rows (a global aggregate over a time range: query 8's shape). */
        ALL_ROWS_SUMMARY("ValueSummary.build",
            "{\"table\":\"trades\",\"time\":{\"from\":" + (TradeData.T0 + 1_000_000_000_000L) + ",\"to\":"
            + (TradeData.T0 + 150_000_000_000_000L) + "}," + COUNT_AND_VOLUME + "," + TIMEOUT + "}"),
        /** A segment's bitmap index of a column no other case filters on. */
        BITMAP_INDEX("BitmapIndexFiles.build",
            "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"venue\",\"value\":\"XETR\"},"
            + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]," + TIMEOUT + "}"),
        /**
         * The in-memory index of an open segment's committed rows, chunk by chunk (the chunks built before are kept).
         */
        OPEN_SEGMENT_INDEX("OpenSegmentIndex.extend",
            "{\"table\":\"open\",\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM3\"},"
            + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]," + TIMEOUT + "}");

        /** The class (in io.tradestore.query.index) and method of the build. */
        final String builder;
        final String query;

        Build(final String builder, final String query) {
            this.builder = builder;
            this.query = query;
        }

        /**
         * @return builds of this kind the indexes made (of an open segment's index, whether its count summary is
         * built).
         */
        long builds(final BitmapIndexes x) {
            return this == BUCKET_SUMMARY ? x.bucketSummaryBuilds() : this == BITMAP_INDEX ? x.builds() : x
                .summaryBuilds();
        }
    }

    @BeforeAll
    static void setUp() {
        store = Store.open(dir);
        new TradeData().write(store, TradeData.schema(Layout.COLUMN, SEGMENT, 1024), ROWS, 11, false);
        new TradeData()
            .write(store, TradesSchema.SCHEMA.with("open", Layout.COLUMN, 1 << 20, 1024), OPEN_ROWS, 12, false);
        scanning = new QueryEngine(store, 2);
        scanning.useIndexes(false);
    }

    @AfterAll
    static void tearDown() {
        scanning.close();
        store.close();
        TestRows.assertNoNativeLeaks();
    }

    /**
     * A clock that stands still, except that the second time a build ({@code Class.method}) reads it while {@code
     * armed}, it jumps an hour (past any deadline of the query) and disarms.
     */
    private static LongSupplier jumpingInBuild(final String builder, final AtomicBoolean armed) {
        final AtomicLong now = new AtomicLong(TimeUnit.DAYS.toNanos(1));
        final AtomicInteger readsInBuild = new AtomicInteger();
        final StackWalker walker = StackWalker.getInstance();
        return () -> {
            if (armed.get() && walker
                .walk(frames -> frames.anyMatch(f -> (f.getClassName() + "." + f.getMethodName()).equals(
                "io.tradestore.query.index." + builder))) && readsInBuild.incrementAndGet() == 2) {
                armed.set(false);
                now.addAndGet(TimeUnit.HOURS.toNanos(1));
            }
            return now.get();
        };
    }

    @ParameterizedTest
    @EnumSource(Build.class)
    void shouldStopABuildAtTheQuerysDeadlineCacheNothingAndBuildItForTheNextQuery(final Build build) throws Exception {
        try (QueryEngine engine = new QueryEngine(store, 2)) {
            final BitmapIndexes x = engine.indexes();
            x.bucketSummaryAfter(1);
            final AtomicBoolean armed = new AtomicBoolean(true);
            engine.clock(jumpingInBuild(build.builder, armed));
            final TableSnapshot snap = engine.snapshot("trades");
            final Path venueIndex =
                BitmapIndexes.file(snap.segment(0), snap.schema().column(snap.schema().indexOf("venue")));
            final QueryException e = catchThrowableOfType(QueryException.class, () -> engine.execute(build.query));
            assertThat(armed).as("the build read the clock a second time").isFalse();
            assertThat(e).as("the query ran on past its deadline").isNotNull();
            assertThat(e.code()).isEqualTo(ErrorCode.TIMEOUT);
            assertThat(e.path()).isEqualTo("/options/timeoutMs");
            assertThat(e.getMessage())
                .isEqualTo("the query ran longer than options.timeoutMs=60000; narrow the time range or filter");
            // nothing half-built is kept (an open segment's index keeps its complete chunks: they never change)
            assertThat(build.builds(x)).isZero();
            assertThat(x.summaryBytes()).isZero();
            if (build == Build.BITMAP_INDEX) {
                assertThat(Files.exists(venueIndex)).as("index file written").isFalse();
            }
            // the next query builds it, answers from it, and answers right
            final QueryResult r = engine.execute(build.query);
            TradeData.assertSameResults(r, scanning.execute(build.query), build.query);
            assertThat(r.rowCount()).isPositive();
            assertThat(build.builds(x)).isPositive();
            if (build == Build.BITMAP_INDEX) {
                assertThat(r.stats().indexedSegments()).isPositive();
                assertThat(Files.exists(venueIndex)).isTrue();
            } else if (build == Build.OPEN_SEGMENT_INDEX) {
                assertThat(r.stats().indexedSegments()).isPositive();
            } else {
                assertThat(r.stats().rowsSummarized()).isPositive();
                assertThat(x.summaryBytes()).isPositive();
            }
        }
    }
}
