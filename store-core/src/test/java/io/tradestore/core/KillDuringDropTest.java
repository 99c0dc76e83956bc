package io.tradestore.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

/**
 * SIGKILL of a process in the middle of a table drop or a retention drop, at random points of it: the store reopens
 * with the table whole or gone (never part of it), or with the old or the new first segment (never a hole), and what a
 * crash left behind is deleted when the store or the writer opens.
 */
class KillDuringDropTest {
    private static final int SEGMENT = 64;
    /** Sealed segments of 11 files each, and an open one: a deletion long enough to be killed in. */
    private static final int SEALED = 80;
    private static final long ROWS = (long) SEALED * SEGMENT + 5;
    private static final int KILLS = 5;
    private static final Schema SCHEMA = TestRows.allTypes(Layout.COLUMN, SEGMENT);

    @TempDir
    Path dir;

    /** A filled store, copied for each run (filling creates every segment file: seconds; a copy takes a moment). */
    private Path filled;

    private Path fresh(final String name) throws IOException {
        if (filled == null) {
            filled = dir.resolve("filled");
            TestRows.fill(filled, SCHEMA, ROWS);
        }
        final Path copy = dir.resolve(name);
        try (Stream<Path> s = Files.walk(filled)) {
            for (final Path p : (Iterable<Path>) s::iterator) {
                Files.copy(p, copy.resolve(filled.relativize(p).toString()));
            }
        }
        return copy;
    }

    /** @return how long, in microseconds, the child took for the work after its line {@code ready}. */
    private static long undisturbed(final Path store, final String mode, final String ready, final String done)
        throws IOException, InterruptedException {
        try (ChildJvm child = ChildJvm.start(mode, store.toString(), "COLUMN", Integer.toString(SEGMENT))) {
            child.await(ready, 60, TimeUnit.SECONDS);
            final String[] words = child.await(done, 60, TimeUnit.SECONDS).split(" ");
            return Long.parseLong(words[words.length - 1]);
        }
    }

    private static boolean hasEntry(final Path d, final String suffix) throws IOException {
        try (Stream<Path> s = Files.list(d)) {
            return s.anyMatch(p -> p.getFileName().toString().endsWith(suffix));
        }
    }

    /**
     * The first kill comes at once (before or at the atomic step), the others at random inside the span an undisturbed
     * run took, which the deletion of the files fills nearly all of.
     */
    private static long delay(final SplittableRandom random, final int i, final long took) {
        return i == 0 ? 0 : took / 10 + random.nextLong(took * 8 / 10 + 1);
    }

    private static void killAfter(final Path store, final String mode, final String ready, final long micros)
        throws IOException, InterruptedException {
        try (ChildJvm child = ChildJvm.start(mode, store.toString(), "COLUMN", Integer.toString(SEGMENT))) {
            child.await(ready, 60, TimeUnit.SECONDS);
            LockSupport.parkNanos(micros * 1000);
            child.kill();
        }
    }

    @Test
    void shouldLeaveTheTableWholeOrGoneWhenKilledDuringADrop() throws Exception {
        final long took = undisturbed(fresh("timing"), "drop", "DROPPING", "DROPPED");
        final SplittableRandom random = new SplittableRandom(20261129);
        int whole = 0;
        int midway = 0;
        for (int i = 0; i < KILLS; i++) {
            final Path store = fresh("s" + i);
            killAfter(store, "drop", "DROPPING", delay(random, i, took));
            final boolean tombstone = hasEntry(store, TableFiles.DROPPED_SUFFIX);
            try (Store s = Store.open(store)) {
                assertThat(hasEntry(store, TableFiles.DROPPED_SUFFIX)).as("a dropped table's files outlive the open")
                    .isFalse();
                if (s.hasTable(SCHEMA.name())) {
                    whole++;
                    assertThat(tombstone).isFalse();
                    try (TableReader r = s.table(SCHEMA.name()).reader()) {
                        final TableSnapshot snap = r.snapshot();
                        assertThat(snap.rowCount()).isEqualTo(ROWS);
                        TestRows.verifyRows(snap, 0, ROWS);
                        assertThat(new TableCheck(SCHEMA.name(), 10).all(snap).problems()).isEmpty();
                    }
                } else {
                    assertThat(Files.exists(store.resolve(SCHEMA.name()))).isFalse();
                    midway += tombstone ? 1 : 0;
                }
            }
        }
        // the kills landed inside the deletion at least once (it takes most of the drop's time), so the open that
        // finishes a drop was exercised, not only the two ends
        assertThat(midway).as("kills inside the deletion; %d of %d left the table whole; drop took %d us", whole,
            KILLS, took).isPositive();
    }

    @Test
    void shouldKeepTheOldOrTheNewFirstSegmentWhenKilledDuringARetentionDrop() throws Exception {
        final long took = undisturbed(fresh("timing"), "retain", "RETAINING", "RETAINED");
        final SplittableRandom random = new SplittableRandom(11);
        int dropped = 0;
        int leftovers = 0;
        for (int i = 0; i < KILLS; i++) {
            final Path store = fresh("r" + i);
            killAfter(store, "retain", "RETAINING", delay(random, i, took));
            try (Store s = Store.open(store)) {
                final Table t = s.table(SCHEMA.name());
                final long first;
                try (TableReader r = t.reader()) {
                    final TableSnapshot snap = r.snapshot();
                    first = snap.firstRow();
                    assertThat(first).isIn(0L, (long) SEALED * SEGMENT);
                    assertThat(snap.rowCount()).isEqualTo(ROWS);
                    TestRows.verifyRows(snap, first, ROWS);
                    assertThat(new TableCheck(SCHEMA.name(), 10).all(snap).problems()).isEmpty();
                }
                final int expected = (int) ((ROWS - first + SEGMENT - 1) / SEGMENT);
                if (first > 0) {
                    dropped++;
                    leftovers += SegmentDeletionTest.segmentDirectories(t.directory()).size() > expected ? 1 : 0;
                }
                try (TableWriter w = t.writer()) {
                    // the writer finishes a deletion the kill interrupted
                    assertThat(SegmentDeletionTest.segmentDirectories(t.directory())).hasSize(expected);
                    assertThat(w.firstRow()).isEqualTo(first);
                }
            }
        }
        assertThat(dropped).as("kills after the drop's commit").isPositive();
        assertThat(leftovers).as("kills after the commit, inside the deletion; drop took %d us", took).isPositive();
    }
}
