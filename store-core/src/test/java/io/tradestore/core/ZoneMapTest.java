package io.tradestore.core;

import java.nio.file.Path;
import java.util.SplittableRandom;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Zone maps against the data: after any sequence of appends, commits, rollbacks and reopens, with the writer idle,
 * every block and segment entry is exactly the min/max of its committed non-null values (blocks without any: the
 * empty range), as ZoneMapDescriptor documents.
 */
@ExtendWith(TestRows.NoLeaks.class)
class ZoneMapTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"COLUMN,8,4,1", "ROW,8,2,2", "COLUMN,64,16,3", "ROW,64,64,4", "COLUMN,16,1,5"})
    void shouldKeepZoneMapsExactThroughCommitsRollbacksAndReopens(final Layout layout, final int segmentRows,
        final int blockRows,
                                                                  final long seed) {
        final Schema schema = TestRows.ALL_TYPES.with("all_types", layout, segmentRows, blockRows);
        final SplittableRandom random = new SplittableRandom(seed);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            TableWriter w = table.writer();
            try (TableReader reader = table.reader()) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                for (int step = 0; step < 60; step++) {
                    final int n = random.nextInt(0, segmentRows * 2);
                    for (int i = 0; i < n; i++) {
                        TestRows.write(w.append(f), w.pendingRows() - 1);
                    }
                    final int op = random.nextInt(10);
                    if (op < 6) {
                        w.commit();
                    } else if (op < 9) {
                        w.rollback();
                    } else {
                        w.close();
                        w = table.writer();
                    }
                    final TableSnapshot snap = reader.snapshot();
                    assertThat(snap.rowCount()).isEqualTo(w.committedRows());
                    TestRows.assertZonesExact(snap);
                }
                TestRows.verifyRows(reader.snapshot(), 0, w.committedRows());
            } finally {
                w.close();
            }
        }
    }

    /**
     * Eight-byte values at the ends of their range beside nulls (the min loop folds the null sentinel Long.MIN_VALUE
     * into Long.MAX_VALUE by subtracting 1): blocks holding Long.MAX_VALUE, Long.MIN_VALUE + 1, both, only nulls, and
     * ranges of odd and even lengths between commits.
     */
    @ParameterizedTest
    @CsvSource({"COLUMN,1", "ROW,2", "COLUMN,3"})
    void shouldBoundEightByteExtremesBesideNulls(final Layout layout, final long seed) {
        final Schema schema = TestRows.ALL_TYPES.with("all_types", layout, 64, 8);
        final long[] values =
            {Long.MAX_VALUE, Long.MIN_VALUE + 1, Long.MIN_VALUE, 0, -1, 1, Long.MAX_VALUE - 1, Long.MIN_VALUE + 2};
        final SplittableRandom random = new SplittableRandom(seed);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = table.writer(); TableReader reader = table.reader()) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                for (int step = 0; step < 40; step++) {
                    final int n = random.nextInt(1, 12);
                    // a run of only nulls now and then, so that some blocks hold no value at all
                    final boolean nullsOnly = random.nextInt(4) == 0;
                    for (int i = 0; i < n; i++) {
                        w.append(f).ts(w.pendingRows());
                        final long v = nullsOnly ? Long.MIN_VALUE : values[random.nextInt(values.length)];
                        if (v != Long.MIN_VALUE) {
                            f.l(v).px(v);
                        }
                    }
                    w.commit();
                    TestRows.assertZonesExact(reader.snapshot());
                }
            }
        }
    }
}
