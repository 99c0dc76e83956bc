package io.tradestore.core;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Kill -9 at random moments: a child JVM appends rows whose content is a function of the row number and commits in a
 * loop; the test SIGKILLs it, reopens the table and checks that it holds exactly a committed prefix, row by row: the
 * last commit the child logged as returned, or the one it logged as begun after that (a kill inside the commit), never
 * a row count in between or beyond (rows appended and rolled back, or appended and not committed, look the same as
 * committed ones, so the count is what tells them apart). The next child appends from there, over the uncommitted tail.
 * {@code -Dtradestore.crashKills=N} sets the kills per configuration (default 6, four configurations).
 */
@ExtendWith(TestRows.NoLeaks.class)
class CrashTest {
    /** Layout, segment rows, largest commit, pause between commits (micros), row cap per table. */
    private static final Object[][] CONFIGS = {
        {Layout.ROW, 8, 12, 3_000, 12_000L},
        {Layout.COLUMN, 64, 40, 2_000, 40_000L},
        {Layout.COLUMN, 4096, 2_000, 0, 2_000_000L},
        {Layout.ROW, 1 << 16, 5_000, 0, 2_000_000L},
    };

    @TempDir
    Path dir;
    /** Kills that landed inside a commit: its rows were published, the commit had not returned. */
    private int insideCommit;

    @Test
    void shouldReopenAtLastCommitAfterKill() throws Exception {
        final int kills = Integer.getInteger("tradestore.crashKills", 6);
        final SplittableRandom random = new SplittableRandom(Long.getLong("tradestore.seed", 20261121L));
        final long[] committed = new long[CONFIGS.length];
        for (int run = 0; run < kills; run++) {
            for (int c = 0; c < CONFIGS.length; c++) {
                committed[c] = killOnce(c, committed[c], random.split());
            }
        }
        System.out.printf("CrashTest: %d of %d kills landed inside a commit that had published its rows%n",
            insideCommit, kills * CONFIGS.length);
        for (int c = 0; c < CONFIGS.length; c++) {
            checkWriterReopen(c, committed[c]);
            System.out.printf("CrashTest config %s/%s: %d kills, %d committed rows verified%n", CONFIGS[c][0],
                CONFIGS[c][1], kills,
                committed[c]);
        }
    }

    private Path tableDir(final int c) {
        return dir.resolve("config" + c);
    }

    private Schema schema(final int c) {
        return TestRows.allTypes((Layout) CONFIGS[c][0], (Integer) CONFIGS[c][1]);
    }

    private long killOnce(final int c, final long before, final SplittableRandom random) throws Exception {
        final Object[] cfg = CONFIGS[c];
        long reported = 0;
        final long ready;
        try (ChildJvm child =
            ChildJvm.start("crash", tableDir(c).toString(), cfg[0].toString(), cfg[1].toString(), cfg[2].toString(),
            cfg[3].toString(), cfg[4].toString(), Long.toString(random.nextLong()))) {
            ready = Long.parseLong(child.await("READY ", 60, TimeUnit.SECONDS).substring(6));
            child.await("COMMITTED ", 10, TimeUnit.SECONDS);
            assertThat(ready).as("the writer reopens at the last verified commit").isEqualTo(before);
            // a commit in the loop, unless the table is too near its row cap for one (many kills:
            // -Dtradestore.crashKills); then the child only appends and rolls back, and the kill lands in that
            final boolean canCommit = ready + (Integer) cfg[2] <= (Long) cfg[4];
            reported = canCommit ? Long.parseLong(child.await("COMMITTED ", 60, TimeUnit.SECONDS).substring(10))
                : ready;
            // a random moment in the append/commit loop: a bounded wait that ends early only if the child dies
            assertThat(child.waitFor(random.nextInt(1, 300))).as("child died on its own: %s", child.stderr()).isFalse();
            child.kill();
            for (final String line : child.drain()) {
                if (line.startsWith("COMMITTED ")) {
                    reported = Math.max(reported, Long.parseLong(line.substring(10)));
                }
            }
        }
        // the child's commit log, not its stdout, is the record of what it committed and what it was committing: a
        // killed child's last lines to its stdout pipe can be lost on the way to the reader (StoreChild)
        long logged = -1;
        long announced = -1;
        for (final String line : Files.readAllLines(StoreChild.commitLog(tableDir(c)))) {
            if (line.startsWith("COMMITTED ")) {
                logged = Math.max(logged, Long.parseLong(line.substring(10)));
            } else if (line.startsWith("COMMITTING ")) {
                announced = Math.max(announced, Long.parseLong(line.substring(11)));
            }
        }
        assertThat(logged).as("config %d: the commit log holds every commit reported on stdout", c)
            .isGreaterThanOrEqualTo(reported)
            .isGreaterThanOrEqualTo(before);
        final long last = logged;
        final long next = Math.max(announced, logged);
        try (Store store = Store.open(tableDir(c)); TableReader reader = store.table("all_types").reader()) {
            final TableSnapshot snap = reader.snapshot();
            assertThat(snap.rowCount())
                .as("config %d: rows after kill: the last commit that returned (%d) or the one begun after it (%d)",
                c, last, next).isIn(last, next);
            if (snap.rowCount() != last) {
                insideCommit++;
            }
            TestRows.verifyRows(snap, 0, snap.rowCount());
            TestRows.assertZonesContainRows(snap, 0);
            return snap.rowCount();
        }
    }

    private void checkWriterReopen(final int c, final long committed) {
        final Schema schema = schema(c);
        try (Store store = Store.open(tableDir(c)); TableWriter w = store.table("all_types").writer()) {
            assertThat(w.committedRows()).isEqualTo(committed);
            // the uncommitted tail of the last segment was overwritten with nulls
            if (committed % schema.segmentRows() != 0) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                w.append(f);
                assertThat(f.l()).isEqualTo(Long.MIN_VALUE);
                assertThat(f.ts()).isEqualTo(Long.MIN_VALUE);
                assertThat(f.sym()).isEqualTo(-1);
                w.rollback();
            }
            try (TableReader reader = store.table("all_types").reader()) {
                TestRows.assertZonesExact(reader.snapshot());
            }
        }
    }
}
