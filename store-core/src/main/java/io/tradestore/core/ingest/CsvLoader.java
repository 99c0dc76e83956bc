package io.tradestore.core.ingest;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import io.tradestore.core.StoreException;
import io.tradestore.core.Table;
import io.tradestore.core.TableWriter;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.PartitionBy;
import io.tradestore.core.schema.Schema;

/**
 * The bulk loader: CSV files (plain, gzip, or a stream) into a table, parsed in parallel and appended in file order.
 *
 * <pre>
 *   loading thread                         parser threads (N)                     loading thread
 *   cut input into chunks at line starts -> parse chunk into ChunkBuffer columns -> in file order: check the chunk
 *   (mapping: offsets; gzip: buffers)       (local symbol codes, rejects)           started where the previous one
 *                                                                                   ended (else re-parse it), intern
 *                                                                                   local symbols, write columns into
 *                                                                                   the segments, rejects, commit
 * </pre>
 *
 * Columns reach the segments by write(2) ({@link TableWriter#columnWrites}: no pre-faulting of pages the load then
 * overwrites, and no TLB shootdowns when the kernel writes the load's dirty pages back while it runs) where the table
 * allows it (COLUMN layout on Linux), otherwise by memcpy into the mapped columns.
 *
 * A chunk's start is a guess (the first line start after the cut) that is wrong only when the cut falls inside a
 * quoted field holding a newline; the in-order check catches that and re-parses from the true record start. At
 * most {@code 2 * threads + 2} chunks are in flight, so memory stays bounded whatever the input size: about
 * {@code chunkBytes / 2} of native column buffers per chunk (plus the chunk itself for gzip input) and a small heap.
 * See {@link LoadOptions} for atomicity.
 */
public final class CsvLoader implements AutoCloseable {
    private static final int MAX_KEPT_REJECTS = 10;
    /** Prints where the time went (parse, wait, append, commit) to stderr; for profiling only. */
    private static final boolean STATS = Boolean.getBoolean("tradestore.loadStats");

    private final TableWriter writer;
    private final Schema schema;
    private final LoadOptions options;
    private final LoadProgress progress;
    private final boolean failFast;
    private final ExecutorService pool;
    private final ArrayBlockingQueue<ChunkParser> parsers;
    private final ArrayBlockingQueue<ChunkBuffer> buffers;
    private final List<ChunkParser> allParsers = new ArrayList<>();
    private final List<ChunkBuffer> allBuffers = new ArrayList<>();
    private final int window;
    private final int[][] symbolMaps;
    private final long[] destinations;
    /**
     * Whether chunks reach the segments by write(2) ({@link TableWriter#columnWrites}) instead of memcpy into the
     * mapping.
     */
    private boolean columnWrites;

    private final long startNanos = System.nanoTime();
    private long bytesTotal;
    private long bytesBefore;
    private long rowsRead;
    private long rowsLoaded;
    private long rowsRejected;
    private long bytesRead;
    private long sinceCommit;
    private long commits;
    private long committedByLoad;
    private final List<String> firstRejects = new ArrayList<>();
    private BufferedWriter rejectsOut;
    private long parseNanos;
    private long waitNanos;
    private long appendNanos;
    private long remapNanos;
    private long chunks;
    private long reparses;
    private boolean closed;

    private CsvLoader(final TableWriter writer, final LoadOptions options, final LoadProgress progress) {
        this.writer = writer;
        this.schema = writer.schema();
        this.options = options;
        this.progress = progress == null ? LoadProgress.NONE : progress;
        this.failFast = options.onError() == OnError.FAIL;
        this.window = 2 * options.threads() + 2;
        this.pool = Executors.newFixedThreadPool(options.threads(), r -> {
            final Thread t = new Thread(r, "tradestore-load");
            t.setDaemon(true);
            return t;
        });
        this.parsers = new ArrayBlockingQueue<>(options.threads() + 1);
        this.buffers = new ArrayBlockingQueue<>(window);
        this.symbolMaps = new int[schema.columnCount()][];
        this.destinations = new long[schema.columnCount()];
    }

    /**
     * Loads files (a directory stands for its regular, non-hidden files in name order) into a table, creating no
     * table: open it with {@code Store.openOrCreate} first. Opens the table's writer and closes it before returning.
     *
     * @param table    the table.
     * @param inputs   files or directories, loaded in order.
     * @param options  error handling, threads, commits.
     * @param progress progress callback, or null.
     * @return what was loaded.
     * @throws LoadException on bad input (the table is at its last commit).
     */
    public static LoadResult load(final Table table, final List<Path> inputs, final LoadOptions options,
        final LoadProgress progress) {
        try (TableWriter w = table.writer(options.durability())) {
            return load(w, inputs, options, progress);
        }
    }

    /**
     * Loads files through an open writer; the writer's earlier uncommitted rows are committed with the load's.
     *
     * @param writer   the table's writer.
     * @param inputs   files or directories, loaded in order.
     * @param options  error handling, threads, commits.
     * @param progress progress callback, or null.
     * @return what was loaded.
     * @throws LoadException on bad input (the writer is rolled back to its last commit, and the segments that hold no
     *     committed row are deleted: see {@link TableWriter#rollbackAndDeleteSegments()}).
     */
    public static LoadResult load(final TableWriter writer, final List<Path> inputs, final LoadOptions options,
                                  final LoadProgress progress) {
        final List<Path> files = expand(inputs);
        try (CsvLoader loader = new CsvLoader(writer, options, progress)) {
            for (final Path f : files) {
                try {
                    // a pipe has no size: the total is then unknown, as for standard input
                    loader.bytesTotal = loader.bytesTotal < 0 || !Files.isRegularFile(f) ? -1 : loader.bytesTotal
                        + Files.size(f);
                } catch (final IOException e) {
                    throw new LoadException(f + ": cannot read: " + StoreException.reason(e), f.toString(), 0, 0, 0);
                }
            }
            return loader.run(files, null, null);
        }
    }

    /**
     * Loads one stream (standard input, for example; gzip is detected by its magic bytes).
     *
     * @param writer   the table's writer.
     * @param name     the stream's name in messages.
     * @param in       the bytes; closed when done.
     * @param options  error handling, threads, commits.
     * @param progress progress callback, or null.
     * @return what was loaded.
     */
    public static LoadResult load(final TableWriter writer, final String name, final InputStream in,
        final LoadOptions options,
                                  final LoadProgress progress) {
        try (CsvLoader loader = new CsvLoader(writer, options, progress)) {
            loader.bytesTotal = -1;
            return loader.run(List.of(), name, in);
        }
    }

    /**
     * Expands directories into their regular, non-hidden files in name order.
     *
     * @param inputs files and directories.
     * @return the files.
     */
    public static List<Path> expand(final List<Path> inputs) {
        final List<Path> files = new ArrayList<>();
        for (final Path p : inputs) {
            if (Files.isDirectory(p)) {
                try (Stream<Path> s = Files.list(p)) {
                    s.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().startsWith("."))
                        .sorted().forEach(files::add);
                } catch (final IOException e) {
                    throw new LoadException(p + ": cannot list directory: " + StoreException.reason(e), p.toString(), 0,
                        0, 0);
                }
            } else if (Files.exists(p)) {
                files.add(p);
            } else {
                throw new LoadException(p + ": no such file", p.toString(), 0, 0, 0);
            }
        }
        if (files.isEmpty()) {
            throw new LoadException("no input files" + (inputs.isEmpty() ? "" : " in " + inputs), null, 0, 0, 0);
        }
        return files;
    }

    /**
     * @param e why the rejects file could not be opened or written. @return the load's failure, saying why in words.
     */
    private LoadException rejectsFailed(final IOException e) {
        return new LoadException("cannot write rejects file " + options.rejects() + ": " + StoreException.reason(e),
            null, 0, 0, committedByLoad);
    }

    private LoadResult run(final List<Path> files, final String streamName, final InputStream stream) {
        boolean ok = false;
        final long cpuBefore = STATS ? ChunkParser.threadCpuNanos() : 0;
        final long segmentWaitBefore = writer.segmentWaitNanos();
        columnWrites = options.columnWrites() && writer.columnWrites(true);
        try {
            if (options.rejects() != null) {
                rejectsOut = Files.newBufferedWriter(options.rejects(), StandardCharsets.UTF_8);
            }
            for (int i = 0; i < options.threads() + 1; i++) {
                final ChunkParser p = new ChunkParser(options.maxLineLength());
                allParsers.add(p);
                parsers.add(p);
            }
            final int initialRows = Math.max(1024, options.chunkBytes() / 48);
            for (int i = 0; i < window; i++) {
                final ChunkBuffer b = new ChunkBuffer(schema, initialRows);
                allBuffers.add(b);
                buffers.add(b);
            }
            if (stream != null) {
                try (CsvSource src =
                    CsvSource.stream(streamName, stream, -1, options.chunkBytes(), options.maxLineLength())) {
                    loadSource(src);
                }
            }
            for (final Path f : files) {
                try (CsvSource src = CsvSource.open(f, f.toString(), options.chunkBytes(), options.maxLineLength())) {
                    loadSource(src);
                }
            }
            final long c0 = System.nanoTime();
            writer.commit();
            commits++;
            if (STATS) {
                System.err.printf(java.util.Locale.ROOT,
                    "load stats: chunks=%d reparses=%d parse cpu=%.3fs (all threads) wait=%.3fs"
                    + " append=%.3fs (of which waiting for segments %.3fs, symbol remap %.3fs) loading thread "
                    + "cpu=%.3fs commit=%.3fs wall=%.3fs%n", chunks,
                    reparses, parseNanos / 1e9, waitNanos / 1e9, appendNanos / 1e9,
                    (writer.segmentWaitNanos() - segmentWaitBefore) / 1e9,
                    remapNanos / 1e9,
                    (ChunkParser.threadCpuNanos() - cpuBefore) / 1e9, (System.nanoTime() - c0) / 1e9,
                    (System.nanoTime() - startNanos) / 1e9);
            }
            if (rejectsOut != null) {
                rejectsOut.flush();
            }
            ok = true;
            return new LoadResult(Math.max(files.size(), stream == null ? 0 : 1), rowsRead, rowsLoaded, rowsRejected,
                bytesRead,
                System.nanoTime() - startNanos, commits, List.copyOf(firstRejects));
        } catch (final IOException e) {
            throw rejectsFailed(e);
        } finally {
            if (!ok) {
                // and the segments created for this load's rows go: created at full size, they would fill a small disk
                writer.rollbackAndDeleteSegments();
            }
            if (columnWrites) {
                writer.columnWrites(false);
            }
        }
    }

    /** One input: header, then chunks through the parser pool, appended in order. */
    private void loadSource(final CsvSource src) {
        final CsvFormat format = readHeader(src);
        final ArrayDeque<Future<ChunkBuffer>> inFlight = new ArrayDeque<>();
        long expected = format.dataOffset;
        long line = 1 + format.headerLines;
        final long rowsBefore = rowsRead;
        byte[] carry = null;
        long carryOffset = 0;
        // a stream line too long for a buffer: reported, with its line number, after the chunks before it (whose own
        // first error, if any, comes first)
        CsvSource.OverlongLine overlong = null;
        try {
            boolean more = true;
            while (more || !inFlight.isEmpty()) {
                while (more && inFlight.size() < window) {
                    final CsvInput in;
                    try {
                        in = src.next(format);
                    } catch (final CsvSource.OverlongLine e) {
                        overlong = e;
                        more = false;
                        break;
                    }
                    if (in == null) {
                        more = false;
                        break;
                    }
                    final ChunkBuffer buffer = buffers.remove();
                    inFlight.add(pool.submit(() -> parseChunk(in, in.startOffset, buffer)));
                }
                if (inFlight.isEmpty()) {
                    break;
                }
                final long w0 = System.nanoTime();
                final ChunkBuffer b = await(inFlight.remove());
                final long w1 = System.nanoTime();
                waitNanos += w1 - w0;
                parseNanos += b.parseNanos;
                chunks++;
                try {
                    CsvInput in = b.input;
                    if (b.startOffset != expected) {
                        // the guessed start was wrong (a quoted newline at the cut) or a record ran past it
                        if (expected >= in.baseOffset) {
                            if (expected >= in.stopOffset) {
                                continue;
                            }
                        } else {
                            in = join(carry, carryOffset, expected, in);
                        }
                        reparse(in, expected, b);
                        reparses++;
                    }
                    carry = null;
                    while (true) {
                        bytesRead += b.endOffset - b.startOffset;
                        append(b, line);
                        line += b.linesConsumed;
                        expected = b.endOffset;
                        if (!b.truncated) {
                            break;
                        }
                        // many rejects: the chunk stopped early to keep the heap small; go on where it stopped
                        reparse(in, expected, b);
                    }
                    appendNanos += System.nanoTime() - w1;
                    if (b.incomplete) {
                        carryOffset = b.endOffset;
                        carry = tail(in, carryOffset);
                    }
                } finally {
                    recycle(b);
                }
                progress.progress(rowsLoaded, rowsRejected, bytesBefore + src.bytesConsumed(expected), bytesTotal,
                    System.nanoTime() - startNanos);
            }
            if (overlong != null) {
                writer.rollback();
                throw overlong.toLoadException(src.name, line, options.maxLineLength(), committedByLoad);
            }
            if (carry != null) {
                throw new IllegalStateException("input ended inside a record at offset " + carryOffset);
            }
            if (rowsRead == rowsBefore) {
                throw CsvHeader.error(src.name, 1 + format.headerLines, 1, "header only, no data rows",
                    committedByLoad);
            }
            bytesBefore += src.bytesConsumed(expected);
        } finally {
            drain(inFlight);
        }
    }

    /** Reads an input's header row into the mapping of its fields onto the table's columns. */
    private CsvFormat readHeader(final CsvSource src) {
        final CsvInput head;
        try {
            head = src.first();
        } catch (final CsvSource.OverlongLine e) {
            // the first line is the header row: reported as one, as parse reports a header over the limit
            throw CsvHeader.tooLong(src.name, options.maxLineLength(), e.capacity, committedByLoad);
        }
        return CsvHeader.parse(head, src.name, schema, options.maxLineLength(), committedByLoad);
    }

    /**
     * Copies a chunk's bytes from {@code from} to its limit onto the heap: the start of a record the next chunk ends,
     * kept because this chunk's input is released before that one arrives.
     */
    private static byte[] tail(final CsvInput in, final long from) {
        final byte[] carry = new byte[(int) (in.limitOffset - from)];
        final long a = in.address(from);
        for (int i = 0; i < carry.length; i++) {
            carry[i] = NativeMemory.getByte(a + i);
        }
        return carry;
    }

    /** Releases a chunk's input and returns its buffer to the pool. */
    private void recycle(final ChunkBuffer b) {
        if (b.input != null) {
            b.input.release();
            b.input = null;
        }
        buffers.add(b);
    }

    /**
     * Waits for the chunks still in flight when an input stops early and returns their buffers: never free or unmap
     * what a parser thread may still be reading.
     */
    private void drain(final ArrayDeque<Future<ChunkBuffer>> inFlight) {
        while (!inFlight.isEmpty()) {
            final Future<ChunkBuffer> f = inFlight.remove();
            try {
                recycle(f.get());
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (final ExecutionException e) {
                // its buffer is returned by parseChunk's own cleanup
            }
        }
    }

    private ChunkBuffer parseChunk(final CsvInput in, final long start, final ChunkBuffer buffer) {
        final ChunkParser parser = parsers.remove();
        try {
            parser.parse(in, start, buffer, failFast);
            return buffer;
        } catch (final RuntimeException | Error e) {
            in.release();
            buffer.input = null;
            buffers.add(buffer);
            throw e;
        } finally {
            parsers.add(parser);
        }
    }

    private void reparse(final CsvInput in, final long start, final ChunkBuffer b) {
        final ChunkParser parser = parsers.remove();
        try {
            parser.parse(in, start, b, failFast);
        } finally {
            parsers.add(parser);
        }
    }

    /**
     * A stream chunk joined behind the carried tail of the previous one, so a record cut by the buffer end parses
     * whole.
     */
    private static CsvInput join(final byte[] carry, final long carryOffset, final long expected, final CsvInput in) {
        if (carry == null || carryOffset != expected || expected + carry.length != in.baseOffset) {
            throw new IllegalStateException("chunk order broken: expected=" + expected + " chunkBase=" + in.baseOffset);
        }
        final long length = carry.length + (in.limitOffset - in.baseOffset);
        final long address = NativeMemory.allocate(length);
        NativeMemory.copy(carry, 0, address, carry.length);
        NativeMemory.copy(in.base, address + carry.length, in.limitOffset - in.baseOffset);
        final CsvInput joined =
            new CsvInput(in.format, address, expected, expected, in.stopOffset, in.limitOffset, in.eofAtLimit,
            length);
        in.release();
        return joined;
    }

    private static ChunkBuffer await(final Future<ChunkBuffer> f) {
        try {
            return f.get();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("load interrupted", e);
        } catch (final ExecutionException e) {
            final Throwable c = e.getCause();
            if (c instanceof RuntimeException) {
                throw (RuntimeException) c;
            }
            if (c instanceof Error) {
                throw (Error) c;
            }
            throw new StoreException("load failed: " + c, c);
        }
    }

    /** Appends a checked chunk: symbols, rows (with batch commits), rejects, then its error if any. */
    private void append(final ChunkBuffer b, final long firstLine) {
        final String file = b.input.format.fileName;
        internSymbols(b);
        appendRows(b);
        rowsRead += b.rows + b.rejects.size() + (b.error == null ? 0 : 1);
        for (final ChunkBuffer.Reject r : b.rejects) {
            final String message = file + ":" + (firstLine + r.relativeLine()) + ":" + r.column() + ": " + r.message();
            rowsRejected++;
            if (firstRejects.size() < MAX_KEPT_REJECTS) {
                firstRejects.add(message);
            }
            if (rejectsOut != null) {
                try {
                    rejectsOut.write(message);
                    rejectsOut.newLine();
                } catch (final IOException e) {
                    throw rejectsFailed(e);
                }
            }
            if (rowsRejected > options.maxErrors()) {
                writer.rollback();
                throw new LoadException("too many rejected rows: more than --max-errors " + options.maxErrors()
                    + " (last: " + message
                    + ")", file, firstLine + r.relativeLine(), r.column(), committedByLoad);
            }
        }
        if (b.error != null) {
            final long line = firstLine + b.error.relativeLine();
            writer.rollback();
            throw new LoadException(file + ":" + line + ":" + b.error.column() + ": " + b.error.message(), file, line,
                b.error.column(), committedByLoad);
        }
    }

    /**
     * Prepares each symbol column's local-to-global code map for a chunk. Entries start unset (-2) and are interned
     * when a copied row first uses them; local codes are in first-appearance order, so global codes are too, and a
     * commit (commit-every) publishes exactly the dictionary entries its rows use.
     */
    private void internSymbols(final ChunkBuffer b) {
        for (final Column c : schema.columns()) {
            if (c.type() != ColumnType.SYMBOL) {
                continue;
            }
            final int size = b.symbols[c.index()].size();
            int[] map = symbolMaps[c.index()];
            if (map == null || map.length < size) {
                map = new int[Math.max(64, Integer.highestOneBit(Math.max(1, size)) * 2)];
                symbolMaps[c.index()] = map;
            }
            java.util.Arrays.fill(map, 0, size, -2);
        }
    }

    private int internLocal(final ChunkBuffer b, final int column, final int local) {
        final LocalSymbols symbols = b.symbols[column];
        final int code = writer.dictionary(column)
            .intern(symbols.arena(), symbols.offset(local), symbols.length(local));
        symbolMaps[column][local] = code;
        return code;
    }

    private void appendRows(final ChunkBuffer b) {
        int from = 0;
        final long commitEvery = options.commitEvery();
        while (from < b.rows) {
            int n = b.rows - from;
            if (commitEvery > 0) {
                n = (int) Math.min(n, commitEvery - sinceCommit);
            }
            copyRows(b, from, n);
            from += n;
            rowsLoaded += n;
            sinceCommit += n;
            if (commitEvery > 0 && sinceCommit == commitEvery) {
                writer.commit();
                commits++;
                committedByLoad = rowsLoaded;
                sinceCommit = 0;
            }
        }
    }

    /** Copies rows {@code [from, from + count)} of a chunk into reserved rows of the table, segment by segment. */
    private void copyRows(final ChunkBuffer b, final int from, final int count) {
        final int shift = schema.segmentShift();
        final long mask = schema.segmentRows() - 1L;
        int done = 0;
        while (done < count) {
            final int want = schema.partitionBy() == PartitionBy.NONE ? count - done : NativeColumns.periodRun(writer,
                b.columns[schema.timestampIndex()] + (long) (from + done) * Long.BYTES, count - done);
            final long first = writer.pendingRows();
            final int n = writer.reserve(want);
            final int segment = (int) (first >>> shift);
            final long rowInSegment = first & mask;
            if (!columnWrites) {
                // with column writes no mapped address is asked for: a segment whose addresses are out gets its zone
                // maps at commit from the files (TableWriter.columnAddress), where writeColumn widens them from the
                // values
                for (int c = 0; c < destinations.length; c++) {
                    destinations[c] = writer.columnAddress(segment, c);
                }
            }
            final int src = from + done;
            for (final Column c : schema.columns()) {
                final int i = c.index();
                final int width = b.widths[i];
                final int stride = writer.columnStride(i);
                final long srcAddress = b.columns[i] + (long) src * width;
                // no mapped address under column writes
                final long dst = columnWrites ? 0 : destinations[i] + rowInSegment * stride;
                if (c.type() == ColumnType.SYMBOL) {
                    final long r0 = STATS ? System.nanoTime() : 0;
                    // with column writes the global codes replace the local ones in the chunk, which is then written
                    remap(b, i, srcAddress, columnWrites ? srcAddress : dst, columnWrites ? width : stride, n);
                    if (STATS) {
                        remapNanos += System.nanoTime() - r0;
                    }
                    if (columnWrites) {
                        writer.writeColumn(segment, i, (int) rowInSegment, srcAddress, n);
                    }
                } else if (columnWrites) {
                    writer.writeColumn(segment, i, (int) rowInSegment, srcAddress, n);
                } else {
                    NativeColumns.copy(srcAddress, dst, width, stride, n);
                }
            }
            done += n;
            if (!columnWrites && ((first + n) & mask) == 0) {
                // the segment is full and every store into it made: its zone maps are widened when the next one opens
                writer.releaseColumnAddresses(segment);
            }
        }
    }

    private void remap(final ChunkBuffer b, final int column, final long src, final long dst, final int stride,
        final int n) {
        final int[] map = symbolMaps[column];
        for (int r = 0; r < n; r++) {
            final int local = NativeMemory.getInt(src + ((long) r << 2));
            int code = -1;
            if (local >= 0) {
                code = map[local];
                if (code == -2) {
                    code = internLocal(b, column, local);
                }
            }
            NativeMemory.putInt(dst + (long) r * stride, code);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        pool.shutdownNow();
        for (final ChunkParser p : allParsers) {
            p.close();
        }
        for (final ChunkBuffer b : allBuffers) {
            b.close();
        }
        if (rejectsOut != null) {
            try {
                rejectsOut.close();
            } catch (final IOException e) {
                // the load's own outcome matters more
            }
        }
    }
}
