package io.tradestore.core;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

/**
 * The child JVM of the multi-process tests. Modes:
 * <pre>
 * crash DIR LAYOUT SEGMENT_ROWS MAX_COMMIT PAUSE_MICROS MAX_ROWS SEED  append and commit until killed
 * append DIR LAYOUT SEGMENT_ROWS ROWS COMMIT_ROWS                      append ROWS rows in commits, then exit
 * hold DIR LAYOUT SEGMENT_ROWS                                         hold the writer until stdin closes
 * try-writer DIR LAYOUT SEGMENT_ROWS                                   try to open the writer, say what happened
 * </pre>
 * Every row's content is a pure function of its number ({@link TestRows#write}); each commit is reported as
 * {@code COMMITTED n} on stdout after it returned. In crash mode each commit is also written to {@link #commitLog}, as
 * {@code COMMITTING n} before it starts and {@code COMMITTED n} after it returned, each line with its own write(2):
 * what a SIGKILLed child wrote to its stdout pipe just before dying may never reach the parent's reader (seen: the last
 * lines lost), while a write(2) to a file is in the page cache once it returns.
 */
public final class StoreChild {
    private StoreChild() {
    }

    /**
     * Runs one mode.
     *
     * @param args the mode and its arguments.
     * @throws IOException when stdin fails.
     */
    public static void main(final String[] args) throws IOException {
        final PrintStream out = System.out;
        final Path dir = Path.of(args[1]);
        final Schema schema = TestRows.allTypes(Layout.valueOf(args[2]), Integer.parseInt(args[3]));
        switch (args[0]) {
            case "crash":
                crash(out, dir, schema, Integer.parseInt(args[4]), Integer.parseInt(args[5]), Long.parseLong(args[6]),
                    Long.parseLong(args[7]));
                break;
            case "append":
                append(out, dir, schema, Long.parseLong(args[4]), Integer.parseInt(args[5]));
                break;
            case "hold":
                try (Store store = Store.open(dir); TableWriter w = store.openOrCreate(schema).writer()) {
                    out.println("LOCKED " + w.committedRows());
                    out.flush();
                    while (System.in.read() >= 0) {
                        // wait for the parent to close our stdin
                    }
                }
                out.println("RELEASED");
                break;
            case "try-writer":
                try (Store store = Store.open(dir); TableWriter w = store.openOrCreate(schema).writer()) {
                    out.println("ACQUIRED " + w.committedRows());
                } catch (final StoreException e) {
                    out.println("REFUSED " + e.getMessage());
                }
                break;
            case "drop":
                try (Store store = Store.open(dir)) {
                    out.println("DROPPING");
                    out.flush();
                    final long start = System.nanoTime();
                    store.dropTable(schema.name());
                    out.println("DROPPED " + (System.nanoTime() - start) / 1000);
                }
                break;
            case "retain":
                try (Store store = Store.open(dir); TableWriter w = store.table(schema.name()).writer()) {
                    out.println("RETAINING");
                    out.flush();
                    final long start = System.nanoTime();
                    final Retention r = w.dropOlderThan(Long.MAX_VALUE);
                    out.println("RETAINED " + r.segments() + " " + (System.nanoTime() - start) / 1000);
                }
                break;
            default:
                throw new IllegalArgumentException("unknown mode " + args[0]);
        }
        out.flush();
    }

    /**
     * @param dir a crash-mode child's store directory.
     * @return the file its commits are logged to, emptied when a child starts.
     */
    static Path commitLog(final Path dir) {
        return Path.of(dir + ".commits");
    }

    private static void crash(final PrintStream out, final Path dir, final Schema schema, final int maxCommit,
        final int pauseMicros,
                              final long maxRows, final long seed) throws IOException {
        final SplittableRandom random = new SplittableRandom(seed);
        try (Store store = Store.open(dir); TableWriter w = store.openOrCreate(schema).writer();
             FileChannel log = FileChannel.open(commitLog(dir), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                 StandardOpenOption.TRUNCATE_EXISTING)) {
            log(log, "COMMITTED " + w.committedRows());
            out.println("READY " + w.committedRows());
            // at the row cap the loop only appends and rolls back: report the state once so the parent never waits
            out.println("COMMITTED " + w.committedRows());
            out.flush();
            final AllTypesFlyweight f = new AllTypesFlyweight();
            while (true) {
                final int n = 1 + random.nextInt(maxCommit);
                for (int i = 0; i < n; i++) {
                    TestRows.write(w.append(f), w.pendingRows() - 1);
                }
                if (w.pendingRows() > maxRows || random.nextInt(10) == 0) {
                    w.rollback();
                } else {
                    log(log, "COMMITTING " + w.pendingRows());
                    w.commit();
                    log(log, "COMMITTED " + w.committedRows());
                    out.println("COMMITTED " + w.committedRows());
                    out.flush();
                }
                if (pauseMicros > 0) {
                    LockSupport.parkNanos(1000L * random.nextInt(pauseMicros + 1));
                }
            }
        }
    }

    private static void log(final FileChannel log, final String line) throws IOException {
        final ByteBuffer b = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.US_ASCII));
        while (b.hasRemaining()) {
            log.write(b);
        }
    }

    private static void append(final PrintStream out, final Path dir, final Schema schema, final long rows,
        final int commitRows) {
        try (Store store = Store.open(dir); TableWriter w = store.openOrCreate(schema).writer()) {
            final AllTypesFlyweight f = new AllTypesFlyweight();
            while (w.pendingRows() < rows) {
                TestRows.write(w.append(f), w.pendingRows() - 1);
                if (w.pendingRows() % commitRows == 0 || w.pendingRows() == rows) {
                    w.commit();
                    out.println("COMMITTED " + w.committedRows());
                    out.flush();
                }
            }
        }
        out.println("DONE");
    }
}
