package io.tradestore.core.ingest;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

import io.tradestore.core.flyweight.TradesSchema;

/**
 * Profiling aid, not a test: parses a CSV file with one {@link ChunkParser} on one thread, repeatedly, and prints CPU
 * nanoseconds per row. {@code java -cp ... io.tradestore.core.ingest.ParseProbe FILE [REPEATS [BUFFERS [CHUNK_BYTES]]]}: chunks go
 * round-robin into BUFFERS buffers (the loader keeps {@code 2 * threads + 2} in flight, so its parsers write into
 * buffers that are not in cache).
 */
public final class ParseProbe {
    private ParseProbe() {
    }

    /**
     * Runs the probe.
     *
     * @param args file and repeat count.
     */
    public static void main(final String[] args) {
        final Path file = Path.of(args[0]);
        final int repeats = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final int bufferCount = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        final int chunkBytes = args.length > 3 ? Integer.parseInt(args[3]) : 4 << 20;
        final ChunkBuffer[] buffers = new ChunkBuffer[bufferCount];
        for (int i = 0; i < bufferCount; i++) {
            buffers[i] = new ChunkBuffer(TradesSchema.SCHEMA, chunkBytes / 48);
        }
        try (CsvSource src = CsvSource.open(file, file.toString(), chunkBytes, 1 << 20);
             ChunkParser parser = new ChunkParser(1 << 20)) {
            final CsvFormat format = CsvHeader.parse(src.first(), file.toString(), TradesSchema.SCHEMA, 1 << 20, 0);
            final java.util.List<CsvInput> chunks = new java.util.ArrayList<>();
            for (CsvInput in = src.next(format); in != null; in = src.next(format)) {
                chunks.add(in);
            }
            for (int r = 0; r < repeats; r++) {
                final long c0 = threads.getCurrentThreadCpuTime();
                long rows = 0;
                int next = 0;
                for (final CsvInput in : chunks) {
                    final ChunkBuffer buffer = buffers[next];
                    next = next + 1 == bufferCount ? 0 : next + 1;
                    parser.parse(in, in.startOffset, buffer, true);
                    rows += buffer.rows;
                }
                final long cpu = threads.getCurrentThreadCpuTime() - c0;
                System.out.printf("repeat %d: %d rows, %.1f ns/row cpu%n", r, rows, (double) cpu / rows);
            }
        }
        for (final ChunkBuffer b : buffers) {
            b.close();
        }
        if (!Files.exists(file)) {
            throw new IllegalStateException("no file");
        }
    }
}
