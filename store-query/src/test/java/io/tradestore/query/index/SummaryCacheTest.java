package io.tradestore.query.index;

import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;
import io.tradestore.query.spi.Deadline;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link BitmapIndexes} keeps of value and bucket summaries under its budget: facts that belong to a segment are
 * learnt once for it, and eviction of idle summaries makes the room a build needs. Idle time runs on a clock the tests
 * move ({@link #clock}), not on the wall clock.
 */
class SummaryCacheTest {
    private static final int SEGMENT = 1024;
    /** Sealed segments (this one out of time order), then an open one. */
    private static final int SEALED = 6;
    private static final int SHUFFLED = 1;
    private static final int VENUE = TradesSchema.SCHEMA.indexOf("venue");
    private static final int INSTRUMENT = TradesSchema.SCHEMA.indexOf("instrument");
    private static final int PRICE = TradesSchema.SCHEMA.indexOf("price");
    private static final int QUANTITY = TradesSchema.SCHEMA.indexOf("quantity");
    private static final int TRADE_ID = TradesSchema.SCHEMA.indexOf("trade_id");
    @TempDir
    static Path dir;
    static Store store;
    static TableSnapshot snap;
    private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);
    private static final long HOUR = TimeUnit.HOURS.toNanos(1);
    /** The indexes' clock: moves only when a test moves it. */
    private final AtomicLong clock = new AtomicLong(1_000_000_000_000L);

    @BeforeAll
    static void setUp() {
        store = Store.open(dir);
        final SplittableRandom rnd = new SplittableRandom(3);
        try (TableWriter w = store.openOrCreate(TradesSchema.SCHEMA.with("trades", Layout.COLUMN, SEGMENT, 128))
            .writer()) {
            final TradeFlyweight f = new TradeFlyweight();
            long ts = 1_795_392_000_000_000_000L;
            for (int r = 0; r < SEALED * SEGMENT + 100; r++) {
                ts += rnd.nextLong(2_000_000_000L); // ~1 s apart: ~17 minutes a segment
                final long t = r / SEGMENT == SHUFFLED && r % 100 == 7 ? ts - 300_000_000_000L : ts;
                w.append(f).tradeId(r + 1).ts(t).clientId(rnd.nextInt(40)).venue(rnd.nextBoolean() ? "XLON" : "XPAR")
                    .instrument("SYM" + rnd.nextInt(8)).side(rnd.nextBoolean() ? 'B' : 'S')
                    .price(1_000_000L + rnd.nextInt(1_000_000))
                    .quantity(1 + rnd.nextInt(1000));
            }
            w.commit();
        }
        snap = store.table("trades").reader().snapshot();
        assertThat(snap.segmentCount()).isEqualTo(SEALED + 1);
    }

    @AfterAll
    static void tearDown() {
        store.close();
    }

    private BitmapIndexes indexes() {
        final BitmapIndexes x = new BitmapIndexes(clock::get);
        x.minSegmentRows(1);
        x.bucketSummaryAfter(1);
        return x;
    }

    private static BucketSummary bucketSummary(final BitmapIndexes x, final int segment, final int key, final int colA,
        final int colB) {
        return x.bucketSummary(snap, segment, key, colA, colB, Deadline.NONE);
    }

    /**
     * Fills the budget with value summaries of the in-order segments, built (and last used) {@code step} apart from now
     * on, segment 0 first.
     */
    private long fillWithValueSummaries(final BitmapIndexes x, final long step) {
        for (int s = 0; s < SEALED; s++) {
            assertThat(x.summary(snap, s, INSTRUMENT, TRADE_ID, -1, Deadline.NONE)).isNotNull();
            clock.addAndGet(step);
        }
        x.summaryBudget(x.summaryBytes());
        return x.summaryBytes();
    }

    /** Fills the budget with value summaries of the in-order segments, all idle at once: room only by eviction. */
    private long fillWithIdleValueSummaries(final BitmapIndexes x) {
        final long full = fillWithValueSummaries(x, 0);
        x.summaryIdleMillis(0);
        return full;
    }

    @Test
    void shouldLearnOnceForTheSegmentThatItsTimestampsAreOutOfOrder() {
        final BitmapIndexes x = indexes();
        assertThat(bucketSummary(x, SHUFFLED, INSTRUMENT, PRICE, -1)).isNull();
        assertThat(bucketSummary(x, 0, INSTRUMENT, PRICE, -1)).isNotNull();
        final long bytes = fillWithIdleValueSummaries(x);
        // another measure, another key, row counts: the segment has no cells, so nothing is evicted to make room for
        // them
        for (final int[] km
            : new int[][] {{INSTRUMENT, QUANTITY, -1}, {VENUE, PRICE, -1}, {INSTRUMENT, -1, -1},
            {VENUE, PRICE, QUANTITY}}) {
            assertThat(bucketSummary(x, SHUFFLED, km[0], km[1], km[2])).isNull();
            assertThat(x.summaryEvictions()).as("evictions for key %d measure %d*%d", km[0], km[1], km[2]).isZero();
            assertThat(x.summaryBytes()).isEqualTo(bytes);
        }
        // where cells can be built, the same state evicts idle summaries to make room for them
        bucketSummary(x, 2, INSTRUMENT, QUANTITY, -1);
        assertThat(x.summaryEvictions()).isPositive();
    }

    /**
     * Cells needing more than the quarter of the budget that eviction frees by default: the first build finds out how
     * many there are, and the next evicts what they need from idle summaries (never from busy ones, and nothing when
     * even every idle one would not make room).
     */
    @Test
    void shouldEvictWhatABuildOfCellsNeedsWhenIdleSummariesCanGiveIt() {
        final long cells = bucketSummary(indexes(), 2, INSTRUMENT, QUANTITY, -1).bytes();
        final BitmapIndexes x = indexes();
        final long full = fillWithIdleValueSummaries(x);
        assertThat(cells).as("cells need more than a quarter of the budget, and less than it").isGreaterThan(full / 4)
            .isLessThan(full / 2 + full / 4);
        // busy summaries make no room (the clock does not move: none is idle for an hour)
        x.summaryIdleMillis(TimeUnit.HOURS.toMillis(1));
        for (int ask = 0; ask < 3; ask++) {
            assertThat(bucketSummary(x, 2, INSTRUMENT, QUANTITY, -1)).isNull();
        }
        assertThat(x.summaryEvictions()).isZero();
        // idle: the first build learns how many cells there are, the second has room for them
        x.summaryIdleMillis(0);
        assertThat(bucketSummary(x, 2, INSTRUMENT, QUANTITY, -1)).isNull();
        final BucketSummary built = bucketSummary(x, 2, INSTRUMENT, QUANTITY, -1);
        assertThat(built).isNotNull();
        assertThat(built.bytes()).isEqualTo(cells);
        assertThat(x.bucketSummaryBuilds()).isEqualTo(1);
        // within the budget, and value summaries are left: eviction freed what the cells needed, not everything idle
        assertThat(x.summaryBytes()).isLessThanOrEqualTo(full).isGreaterThan(cells);
        assertThat(bucketSummary(x, 2, INSTRUMENT, QUANTITY, -1)).isSameAs(built);
    }

    /**
     * Idle summaries that cannot make the cells' room with the free room are kept; the scan that finds so is not
     * repeated by the next ask before the oldest busy summary turns idle (until then, an ask costs a clock read).
     */
    @Test
    void shouldEvictNothingNorScanAgainForCellsThatIdleSummariesCannotMakeRoomFor() {
        final long cells = bucketSummary(indexes(), 2, INSTRUMENT, QUANTITY, -1).bytes();
        final BitmapIndexes x = indexes();
        // segment s's value summary is last used at t0 + s minutes, so idle (for an hour) from t0 + s minutes + 1 hour
        final long t0 = clock.get();
        final long full = fillWithValueSummaries(x, MINUTE);
        final long one = full / SEALED;
        x.summaryIdleMillis(TimeUnit.HOURS.toMillis(1));
        // the first build cannot know its need: the one idle summary makes what room it can, and the build fails
        clock.set(t0 + HOUR);
        assertThat(bucketSummary(x, 2, INSTRUMENT, QUANTITY, -1)).isNull();
        assertThat(x.summaryEvictions()).isEqualTo(1);
        // idle summaries that would not make the cells' room with the free one stay: nothing is evicted for them
        final int more = (int) ((cells + one - 1) / one) - 1;
        assertThat(more).as("value summaries the cells need beyond the first").isBetween(2, SEALED - 2);
        for (int s = 1; s < more; s++) {
            clock.set(t0 + s * MINUTE + HOUR);
            final long scans = x.idleScans();
            assertThat(bucketSummary(x, 2, INSTRUMENT, QUANTITY, -1)).isNull();
            assertThat(x.idleScans()).isEqualTo(scans + 1);
            // asked again at once, and up to the moment the next one turns idle: no scan
            for (final long t : new long[] {t0 + s * MINUTE + HOUR, t0 + (s + 1) * MINUTE + HOUR - 1}) {
                clock.set(t);
                assertThat(bucketSummary(x, 2, INSTRUMENT, QUANTITY, -1)).isNull();
                assertThat(x.idleScans()).as("scans at %d ns", t - t0).isEqualTo(scans + 1);
            }
            assertThat(x.summaryEvictions()).isEqualTo(1);
        }
        assertThat(x.summaryBytes()).isEqualTo(full - one);
        // one more idle, and they would: they make the room, and the cells are built
        clock.set(t0 + more * MINUTE + HOUR);
        assertThat(bucketSummary(x, 2, INSTRUMENT, QUANTITY, -1)).isNotNull();
        assertThat(x.summaryEvictions()).isEqualTo(1 + more);
        assertThat(x.summaryBytes()).isEqualTo(full - (1 + more) * one + cells);
    }
}
