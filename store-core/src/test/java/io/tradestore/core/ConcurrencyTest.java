package io.tradestore.core;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Readers against a live writer in the same process: reader threads take snapshots and verify every row while the
 * writer appends, commits and rolls back. Every observed row is complete and correct, zone maps always contain the
 * committed values, a reader's row count only grows, and it is always a count some commit published: rows appended
 * and not yet committed, or rolled back, have the same content as committed ones would, so the count is what tells a
 * committed prefix from one that shows them.
 */
@ExtendWith(TestRows.NoLeaks.class)
class ConcurrencyTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"COLUMN,64,4000", "ROW,16,4000", "COLUMN,1024,40000"})
    void shouldShowOnlyCompleteCommittedRowsToConcurrentReaders(final Layout layout, final int segmentRows,
        final long rows)
        throws Exception {
        final Schema schema = TestRows.allTypes(layout, segmentRows);
        final ExecutorService pool = Executors.newFixedThreadPool(4);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            final AtomicBoolean done = new AtomicBoolean();
            final AtomicLong committed = new AtomicLong();
            // every row count a commit may publish, added before the commit starts
            final Set<Long> boundaries = new ConcurrentSkipListSet<>(List.of(0L));
            final TableReader shared = table.reader();
            final List<Future<Long>> readers = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                final boolean own = t > 0;
                readers.add(pool
                    .submit(() -> readLoop(own ? table.reader() : shared, own, done, committed, boundaries)));
            }
            final Future<Long> writer = pool.submit(() -> {
                try (TableWriter w = table.writer()) {
                    final SplittableRandom random = new SplittableRandom(layout.ordinal() * 31L + segmentRows);
                    final AllTypesFlyweight f = new AllTypesFlyweight();
                    while (w.committedRows() < rows) {
                        final int n = 1 + random.nextInt(segmentRows * 3);
                        for (int i = 0; i < n; i++) {
                            TestRows.write(w.append(f), w.pendingRows() - 1);
                        }
                        if (random.nextInt(8) == 0) {
                            w.rollback();
                        } else {
                            boundaries.add(w.pendingRows());
                            w.commit();
                            committed.set(w.committedRows());
                        }
                    }
                    return w.committedRows();
                } finally {
                    done.set(true);
                }
            });
            final long written = writer.get(120, TimeUnit.SECONDS);
            long snapshots = 0;
            for (final Future<Long> r : readers) {
                snapshots += r.get(120, TimeUnit.SECONDS);
            }
            assertThat(snapshots).as("snapshots taken by the readers").isGreaterThan(3);
            final TableSnapshot last = shared.snapshot();
            assertThat(last.rowCount()).isEqualTo(written);
            TestRows.verifyRows(last, 0, written);
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static long readLoop(final TableReader reader, final boolean own, final AtomicBoolean done,
        final AtomicLong committed,
                                 final Set<Long> boundaries) {
        long previous = 0;
        long snapshots = 0;
        final SplittableRandom random = new SplittableRandom(Thread.currentThread().getId());
        try {
            boolean last = false;
            while (!last) {
                last = done.get();
                final long atLeast = committed.get();
                final TableSnapshot snap = reader.snapshot();
                assertThat(snap.rowCount()).as("row count only grows").isGreaterThanOrEqualTo(previous)
                    .as("a snapshot shows every commit published before it").isGreaterThanOrEqualTo(atLeast);
                assertThat(boundaries).as("a snapshot's row count is one a commit published").contains(snap.rowCount());
                // rows seen before never change: check the new ones in full, and a random window of the old ones again
                TestRows.verifyRows(snap, previous, snap.rowCount());
                TestRows.assertZonesContainRows(snap, previous);
                final long from = random.nextLong(previous + 1);
                TestRows.verifyRows(snap, from, Math.min(previous, from + 256));
                previous = snap.rowCount();
                snapshots++;
            }
            return snapshots;
        } finally {
            if (own) {
                reader.close();
            }
        }
    }
}
