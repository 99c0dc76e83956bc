package io.tradestore.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.memory.FileAllocator;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static io.tradestore.core.TestRows.BIG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The writer thread interrupted while it waits for a segment created ahead by the background thread: the append fails
 * with a StoreException that says so, the thread stays interrupted, nothing was appended, flyweights still reach their
 * rows, and the segment created ahead is either used by the next append or closed and deleted by close(): no mapping
 * leaks and no segment directory is left beyond the ones holding rows.
 */
@ExtendWith(TestRows.NoLeaks.class)
class SegmentAheadInterruptTest {
    private static final int SEGMENT_ROWS = 1 << 16;
    @TempDir
    Path dir;

    /** Holds the creation of one segment's files until opened (the real allocator does the rest). */
    static final class Gate implements FileAllocator {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch open = new CountDownLatch(1);
        private final String segmentDirectory;

        Gate(final String segmentDirectory) {
            this.segmentDirectory = segmentDirectory;
        }

        @Override
        public void allocate(final Path path, final long length) throws IOException {
            if (path.getParent().getFileName().toString().equals(segmentDirectory)) {
                entered.countDown();
                try {
                    if (!open.await(30, TimeUnit.SECONDS)) {
                        throw new IOException("gate never opened");
                    }
                } catch (final InterruptedException e) {
                    throw new IOException("interrupted at the gate", e);
                }
            }
            FileAllocator.platform().allocate(path, length);
        }

        @Override
        public String describe() {
            return "gate on " + segmentDirectory;
        }
    }

    @ParameterizedTest
    @CsvSource({"staged-thread,true", "staged-thread,false", "staging-off,true", "staging-off,false"})
    void shouldKeepOrReleaseTheSegmentCreatedAheadWhenInterruptedWaitingForIt(final String how,
        final boolean carryOn) throws Exception {
        final Gate gate = new Gate("seg-000001");
        final Schema schema = TestRows.ALL_TYPES.with("all_types", Layout.COLUMN, SEGMENT_ROWS, 4096);
        final int l = schema.indexOf("l");
        final long committed = SEGMENT_ROWS - 10;
        try (Store store = Store.open(dir, gate)) {
            final Table table = store.createTable(schema);
            final AllTypesFlyweight f = new AllTypesFlyweight();
            final TableWriter w = TestRows.appendingWriter(table, how, f);
            try {
                TestRows.append(w, f, 0, committed);
                w.commit();
                TestRows.append(w, f, committed, SEGMENT_ROWS);
                assertThat(gate.entered.await(10, TimeUnit.SECONDS)).as("segment 1 is being created ahead").isTrue();
                final Thread interrupter = interruptAtTheWait(Thread.currentThread(), gate);
                assertThatThrownBy(() -> w.append(f)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("interrupted").hasMessageContaining("segment 1");
                assertThat(Thread.interrupted()).as("the writer thread is still interrupted").isTrue();
                interrupter.join(TimeUnit.SECONDS.toMillis(20));
                assertThat(w.pendingRows()).as("nothing appended").isEqualTo(SEGMENT_ROWS);
                // the appender, left on the last row, still writes that row (not a staging window handed on)
                assertThat(f.row()).isEqualTo(SEGMENT_ROWS - 1);
                f.l(BIG);
                gate.open.countDown();
                if (carryOn) {
                    TestRows.append(w, f, SEGMENT_ROWS, SEGMENT_ROWS + 100);
                    w.commit();
                }
            } finally {
                gate.open.countDown();
                w.close();
            }
            final long rows = carryOn ? SEGMENT_ROWS + 100 : committed;
            assertThat(segmentDirectories(table.directory())).as("segment directories after close")
                .isEqualTo(carryOn ? List.of("seg-000000", "seg-000001") : List.of("seg-000000"));
            try (TableReader reader = table.reader()) {
                final TableSnapshot snap = reader.snapshot();
                assertThat(snap.rowCount()).isEqualTo(rows);
                TestRows.verifyRows(snap, 0, Math.min(rows, SEGMENT_ROWS - 1));
                if (carryOn) {
                    assertThat(new AllTypesFlyweight().bind(snap).wrap(SEGMENT_ROWS - 1).l()).isEqualTo(BIG);
                    assertThat(snap.segment(0).zoneMax(-1, l)).isEqualTo(BIG);
                    TestRows.verifyRows(snap, SEGMENT_ROWS, rows);
                }
            }
        }
        try (Store store = Store.open(dir); TableWriter w = store.table(schema.name()).writer()) {
            assertThat(w.committedRows()).isEqualTo(carryOn ? SEGMENT_ROWS + 100 : committed);
        }
        assertThat(segmentDirectories(dir.resolve(schema.name()))).as("segment directories after reopen")
            .isEqualTo(carryOn ? List.of("seg-000000", "seg-000001") : List.of("seg-000000"));
    }

    /** Whether a frame is the writer's wait for the segment created ahead ({@code WriterSegments.next}). */
    private static boolean waitsForSegment(final StackTraceElement e) {
        return e.getClassName().equals(WriterSegments.class.getName()) && e.getMethodName().equals("next");
    }

    /**
     * Interrupts {@code writer} once it waits for a segment to be created (parked in WriterSegments.next); opens the
     * gate after 10 s if it never gets there, so that a failing test does not hang.
     */
    private static Thread interruptAtTheWait(final Thread writer, final Gate gate) {
        final Thread t = new Thread(() -> {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < deadline) {
                if (writer.getState() == Thread.State.WAITING
                    && Arrays.stream(writer.getStackTrace()).anyMatch(SegmentAheadInterruptTest::waitsForSegment)) {
                    writer.interrupt();
                    return;
                }
                try {
                    Thread.sleep(1);
                } catch (final InterruptedException e) {
                    return;
                }
            }
            gate.open.countDown();
        }, "interrupter");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static List<String> segmentDirectories(final Path table) throws IOException {
        try (Stream<Path> s = Files.list(table)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("seg-")).sorted()
                .collect(Collectors.toList());
        }
    }
}
