package io.tradestore.query.index;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToLongFunction;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;
import io.tradestore.query.spi.Deadline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Two queries asking for the same index or summary while it is built: the second waits for the first one's build under
 * its own deadline (it gives up at its own, not when the other build ends, and stops when interrupted), and builds it
 * itself when the first one's deadline stops that build. Deterministic: the first query's deadline holds its build at
 * its first check (inside the build: an open segment's index holds its chunk lock then) until the test lets it go, and
 * the second query's deadline decides when it gives up. A build here checks its deadline at most twice (one sealed
 * 1,024-row segment, or two chunks of an open segment's index), so a second query that reaches its fifth check is
 * waiting, not building beside the first.
 */
class SharedBuildTest {
    private static final int SEGMENT = 1024;
    private static final int INSTRUMENT = TradesSchema.SCHEMA.indexOf("instrument");
    private static final int QUANTITY = TradesSchema.SCHEMA.indexOf("quantity");
    /** Checks of its deadline that show a second query waiting (a build makes at most two). */
    private static final int WAITING_CHECKS = 5;
    /** Rows of table {@code open}: all in its open segment, two full chunks of its index and a few more. */
    private static final int OPEN_ROWS = 2 * OpenSegmentIndex.CHUNK_ROWS + 10;
    @TempDir
    static Path dir;
    static Store store;
    static TableSnapshot sealed;
    static TableSnapshot open;
    private final ExecutorService pool = Executors.newCachedThreadPool();

    /** What a query asks the indexes for, and the builds of it they made. */
    enum Build {
        BITMAP_INDEX(BitmapIndexes::builds),
        VALUE_SUMMARY(BitmapIndexes::summaryBuilds),
        BUCKET_SUMMARY(BitmapIndexes::bucketSummaryBuilds),
        /** An open segment's in-memory index: no counter; its builds are not counted. */
        OPEN_SEGMENT_INDEX(x -> 0);

        final ToLongFunction<BitmapIndexes> builds;

        Build(final ToLongFunction<BitmapIndexes> builds) {
            this.builds = builds;
        }

        /**
         * Asks for it under a deadline; the index a summary needs is built before (the deadline holds the summary's
         * build).
         */
        Object ask(final BitmapIndexes x, final Deadline deadline) {
            switch (this) {
                case BITMAP_INDEX:
                    return x.index(sealed, 0, INSTRUMENT, deadline);
                case VALUE_SUMMARY:
                    x.index(sealed, 0, INSTRUMENT, Deadline.NONE);
                    return x.summary(sealed, 0, INSTRUMENT, QUANTITY, -1, deadline);
                case BUCKET_SUMMARY:
                    x.index(sealed, 0, INSTRUMENT, Deadline.NONE);
                    return x.bucketSummary(sealed, 0, INSTRUMENT, QUANTITY, -1, deadline);
                default:
                    return x.openIndex(open, 0, INSTRUMENT, deadline);
            }
        }
    }

    @BeforeAll
    static void setUp() {
        store = Store.open(dir);
        sealed = write(TradesSchema.SCHEMA.with("trades", Layout.COLUMN, SEGMENT, 128), 3 * SEGMENT + 10);
        open = write(TradesSchema.SCHEMA.with("open", Layout.COLUMN, 1 << 20, 1024), OPEN_ROWS);
    }

    private static TableSnapshot write(final Schema schema, final int rows) {
        final SplittableRandom rnd = new SplittableRandom(5);
        try (TableWriter w = store.openOrCreate(schema).writer()) {
            final TradeFlyweight f = new TradeFlyweight();
            long ts = 1_795_392_000_000_000_000L;
            for (int r = 0; r < rows; r++) {
                ts += rnd.nextLong(2_000_000_000L);
                w.append(f).tradeId(r + 1).ts(ts).clientId(rnd.nextInt(40)).venue("XLON")
                    .instrument("SYM" + rnd.nextInt(8))
                    .side(rnd.nextBoolean() ? 'B' : 'S').price(1_000_000L + rnd.nextInt(1_000_000))
                    .quantity(1 + rnd.nextInt(1000));
            }
            w.commit();
        }
        final TableReader reader = store.table(schema.name()).reader(); // closed with the store
        return reader.snapshot();
    }

    @AfterEach
    void stopPool() throws InterruptedException {
        pool.shutdownNow();
        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    @AfterAll
    static void tearDown() {
        store.close();
        TestRows.assertNoNativeLeaks();
    }

    private static BitmapIndexes indexes() {
        final BitmapIndexes x = new BitmapIndexes(() -> 0L);
        x.minSegmentRows(1);
        x.bucketSummaryAfter(1);
        return x;
    }

    private static void deleteIndexFiles() throws Exception {
        try (var files = Files.walk(dir)) {
            for (final Path p : (Iterable<Path>) files
                .filter(f -> f.toString().endsWith(BitmapIndexDescriptor.SUFFIX))::iterator) {
                Files.delete(p);
            }
        }
    }

    /**
     * A deadline that, at its first check, tells {@code started} and holds the build until {@code release}, then throws
     * {@code then} if set.
     */
    private static Deadline holding(final CountDownLatch started, final CountDownLatch release,
        final RuntimeException then) {
        return () -> {
            started.countDown();
            try {
                release.await();
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (then != null) {
                throw then;
            }
        };
    }

    /**
     * A first query whose build is held at its first check until {@code release}; then it throws {@code then} if set.
     */
    private record Held(BitmapIndexes x, CountDownLatch release, Future<Object> first) {
    }

    /** @return a first query of {@code build} on fresh indexes (no index file), its build started and held. */
    private Held hold(final Build build, final RuntimeException then) throws Exception {
        deleteIndexFiles();
        final BitmapIndexes x = indexes();
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final Future<Object> first = pool.submit(() -> build.ask(x, holding(started, release, then)));
        if (!started.await(30, TimeUnit.SECONDS)) {
            release.countDown();
            throw new AssertionError("the first query's build did not start");
        }
        return new Held(x, release, first);
    }

    @ParameterizedTest
    @EnumSource(Build.class)
    void shouldGiveUpAtItsOwnDeadlineWhileAnotherQueryBuilds(final Build build) throws Exception {
        final Held held = hold(build, null);
        final BitmapIndexes x = held.x();
        try {
            final RuntimeException passed = new RuntimeException("the second query's deadline passed");
            final AtomicInteger checks = new AtomicInteger();
            // before: the second query waited inside ConcurrentHashMap.compute (or on a monitor) until the build ended
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThatThrownBy(() -> build.ask(x, () -> {
                if (checks.incrementAndGet() == WAITING_CHECKS) {
                    throw passed;
                }
            })).isSameAs(passed));
        } finally {
            held.release().countDown();
        }
        final Object built = held.first().get(30, TimeUnit.SECONDS);
        assertThat(built).as("the first query's answer").isNotNull();
        assertThat(build.builds.applyAsLong(x)).isEqualTo(build == Build.OPEN_SEGMENT_INDEX ? 0 : 1);
        if (build != Build.OPEN_SEGMENT_INDEX) {
            assertThat(build.ask(x, Deadline.NONE)).as("cached").isSameAs(built);
            assertThat(build.builds.applyAsLong(x)).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Build.class)
    void shouldBuildItWhenTheQueryBuildingItGaveUp(final Build build) throws Exception {
        final RuntimeException passed = new RuntimeException("the first query's deadline passed");
        final Held held = hold(build, passed);
        final BitmapIndexes x = held.x();
        final CountDownLatch waiting = new CountDownLatch(WAITING_CHECKS);
        final Future<Object> second = pool.submit(() -> build.ask(x, waiting::countDown));
        assertThat(waiting.await(30, TimeUnit.SECONDS)).as("the second query waits").isTrue();
        assertThat(second.isDone()).as("the second query built beside the first").isFalse();
        held.release().countDown();
        assertThatThrownBy(() -> held.first().get(30, TimeUnit.SECONDS)).hasCause(passed);
        final Object built = second.get(30, TimeUnit.SECONDS);
        assertThat(built).as("the second query built it").isNotNull();
        assertThat(build.builds.applyAsLong(x)).as("builds that ended")
            .isEqualTo(build == Build.OPEN_SEGMENT_INDEX ? 0 : 1);
        if (build == Build.BITMAP_INDEX) {
            assertThat(BitmapIndexes.file(sealed.segment(0), sealed.schema().column(INSTRUMENT))).exists();
        }
        if (build == Build.OPEN_SEGMENT_INDEX) {
            final ValueRows rows = (ValueRows) built;
            long total = rows.nulls().getLongCardinality();
            for (int code = 0; code < open.dictionarySize(INSTRUMENT); code++) {
                total += rows.rows(code).getLongCardinality();
            }
            assertThat(total).as("every row is indexed").isEqualTo(OPEN_ROWS);
        }
    }

    @ParameterizedTest
    @EnumSource(Build.class)
    void shouldStopWaitingWhenInterrupted(final Build build) throws Exception {
        final Held held = hold(build, null);
        final BitmapIndexes x = held.x();
        try {
            final CountDownLatch waiting = new CountDownLatch(WAITING_CHECKS);
            final Throwable[] thrown = new Throwable[1];
            final boolean[] flagSet = new boolean[1];
            final Thread second = new Thread(() -> {
                try {
                    build.ask(x, waiting::countDown);
                } catch (final RuntimeException e) {
                    thrown[0] = e;
                    flagSet[0] = Thread.currentThread().isInterrupted();
                }
            });
            second.start();
            assertThat(waiting.await(30, TimeUnit.SECONDS)).as("the second query waits").isTrue();
            second.interrupt();
            second.join(30_000);
            assertThat(second.isAlive()).as("still waiting after its interrupt").isFalse();
            assertThat(thrown[0]).isInstanceOf(QueryException.class).hasMessage("the query was interrupted");
            assertThat(((QueryException) thrown[0]).code()).isEqualTo(ErrorCode.TIMEOUT);
            assertThat(flagSet[0]).as("interrupt flag kept").isTrue();
        } finally {
            held.release().countDown();
        }
        assertThat(held.first().get(30, TimeUnit.SECONDS)).isNotNull();
    }

    /**
     * A build that ended with nothing (no room in the budget, timestamps out of order) answers the query waiting for it
     * with nothing: the waiter does not make the same wasted pass again.
     */
    @Test
    void shouldAnswerWaitersWithNothingWhenTheBuildFoundNothing() throws Exception {
        final SharedBuilds<String> builds = new SharedBuilds<>();
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger passes = new AtomicInteger();
        final Future<Object> first = pool.submit(() -> builds.get("k", Deadline.NONE, () -> null, () -> {
            passes.incrementAndGet();
            holding(started, release, null).check();
            return null;
        }));
        assertThat(started.await(30, TimeUnit.SECONDS)).as("the first build started").isTrue();
        final CountDownLatch waiting = new CountDownLatch(WAITING_CHECKS);
        final Future<Object> second = pool.submit(() -> builds.get("k", waiting::countDown, () -> null, () -> {
            passes.incrementAndGet();
            return "built again";
        }));
        try {
            assertThat(waiting.await(30, TimeUnit.SECONDS)).as("the second query waits").isTrue();
            assertThat(second.isDone()).isFalse();
        } finally {
            release.countDown();
        }
        assertThat(first.get(30, TimeUnit.SECONDS)).isNull();
        assertThat(second.get(30, TimeUnit.SECONDS)).as("the waiter's answer").isNull();
        assertThat(passes.get()).as("passes made").isEqualTo(1);
        // a later query, with no build running, makes its own pass
        assertThat(builds.get("k", Deadline.NONE, () -> null, () -> "later")).isEqualTo("later");
    }

    /**
     * A query needing fewer chunks of an open segment's index than another one is building goes on once they are
     * published.
     */
    @Test
    void shouldNotWaitForChunksItDoesNotNeed() throws Exception {
        final OpenSegmentIndex idx = new OpenSegmentIndex(open.segment(0), open.schema().column(INSTRUMENT));
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger checks = new AtomicInteger();
        // the first query's second check comes after chunk 0 is built, before chunk 1
        final Future<ValueRows> first = pool.submit(() -> idx.view(OPEN_ROWS, () -> {
            if (checks.incrementAndGet() == 2) {
                holding(started, release, null).check();
            }
        }));
        try {
            assertThat(started.await(30, TimeUnit.SECONDS)).as("the first query built chunk 0").isTrue();
            final int rows = OpenSegmentIndex.CHUNK_ROWS + 5;
            // before: the second query waited for the lock until the first one had built every chunk
            final ValueRows v =
                assertTimeoutPreemptively(Duration.ofSeconds(20), () -> idx.view(rows, Deadline.NONE));
            assertThat(first.isDone()).isFalse();
            long total = v.nulls().rangeCardinality(0, rows);
            for (int code = 0; code < open.dictionarySize(INSTRUMENT); code++) {
                total += v.rows(code).rangeCardinality(0, rows);
            }
            assertThat(total).as("every row of the view is indexed").isEqualTo(rows);
        } finally {
            release.countDown();
        }
        assertThat(first.get(30, TimeUnit.SECONDS)).isNotNull();
    }
}
