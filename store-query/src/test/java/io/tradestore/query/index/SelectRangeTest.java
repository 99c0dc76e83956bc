package io.tradestore.query.index;

import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;
import io.tradestore.query.spi.Deadline;
import io.tradestore.query.spi.IndexLeaf;
import io.tradestore.query.spi.Selection;
import org.roaringbitmap.BatchIterator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A selection over the rows a query may read ({@code [from, to)}, a time range's blocks): inside them it holds exactly
 * the rows whose values pass its leaves (in-lists, a negated one, two leaves intersected), its cardinality counts those
 * rows, and it is refused as too dense by its share of those rows, not of the segment's.
 */
class SelectRangeTest {
    /** A sealed segment of four Roaring containers: ranges cut containers and leave whole ones out. */
    private static final int ROWS = 1 << 18;
    private static final int CLIENT = TradesSchema.SCHEMA.indexOf("client_id");
    private static final int QUANTITY = TradesSchema.SCHEMA.indexOf("quantity");
    @TempDir
    static Path dir;
    static Store store;
    static TableSnapshot snap;
    static long[] clients = new long[ROWS];
    static long[] quantities = new long[ROWS];

    @BeforeAll
    static void setUp() {
        store = Store.open(dir);
        final SplittableRandom rnd = new SplittableRandom(3);
        try (TableWriter w = store.openOrCreate(TradesSchema.SCHEMA.with("trades", Layout.COLUMN, ROWS, 1024))
            .writer()) {
            final TradeFlyweight f = new TradeFlyweight();
            for (int r = 0; r < ROWS + 10; r++) { // ten rows into the next segment: the first is sealed
                // client 0 is common in the first half only: dense there, sparse in the second
                final long client = r < ROWS / 2 && rnd.nextInt(2) == 0 ? 0 : 1 + rnd.nextInt(40);
                final long quantity = 1 + rnd.nextInt(4);
                if (r < ROWS) {
                    clients[r] = client;
                    quantities[r] = quantity;
                }
                w.append(f).tradeId(r + 1).ts(1_795_392_000_000_000_000L + r).clientId(client).venue("XLON")
                    .instrument("SYM1").side('B').price(1_000_000L).quantity(quantity);
            }
            w.commit();
        }
        snap = store.table("trades").reader().snapshot();
    }

    @AfterAll
    static void tearDown() {
        store.close();
    }

    @ParameterizedTest
    @CsvSource({
        "0, 262144, 0;1;2, false, 0", "200000, 210000, 0;1;2, false, 0", "200000, 210000, 0;5, true, 0",
        "1000, 70000, 3;4;5, false, 0", "120000, 140000, 0;7;9, false, 2", "65536, 196608, 0;1, true, 3",
        "10000, 20000, 0, false, 0", "250000, 262144, 1;2;3;4;5;6;7;8, false, 0", "0, 262144, 0, false, 0"})
    void shouldSelectExactlyTheMatchingRowsOfTheRange(final int from, final int to, final String values,
                                                      final boolean negated, final long quantity) {
        final long[] vs = java.util.Arrays.stream(values.split(";")).mapToLong(Long::parseLong).toArray();
        final IndexLeaf clientLeaf = new IndexLeaf(CLIENT, vs, negated, "clients");
        final List<IndexLeaf> leaves = quantity == 0 ? List.of(clientLeaf)
            : List.of(clientLeaf, new IndexLeaf(QUANTITY, new long[] {quantity}, false, "quantity"));
        final BitmapIndexes indexes = new BitmapIndexes(() -> 0L);
        indexes.minSegmentRows(1);
        final Selection sel = indexes.select(snap, 0, leaves, from, to, Deadline.NONE);
        final boolean[] want = new boolean[ROWS];
        long count = 0;
        for (int r = from; r < to; r++) {
            boolean in = false;
            for (final long v : vs) {
                in |= clients[r] == v;
            }
            want[r] = in != negated && (quantity == 0 || quantities[r] == quantity);
            count += want[r] ? 1 : 0;
        }
        if (sel == null) {
            assertThat(count).as("refused: most of the range's rows pass").isGreaterThan((to - from) / 4);
            return;
        }
        assertThat(sel.cardinality()).isEqualTo(count);
        final boolean[] got = new boolean[ROWS];
        final BatchIterator it = sel.iterator(from);
        final int[] buf = new int[256];
        while (it.hasNext()) {
            final int n = it.nextBatch(buf);
            for (int i = 0; i < n && buf[i] < to; i++) {
                got[buf[i]] = true;
            }
            if (n == 0 || buf[n - 1] >= to) {
                break;
            }
        }
        for (int r = from; r < to; r++) {
            assertThat(got[r]).as("row %d", r).isEqualTo(want[r]);
        }
    }
}
