package io.tradestore.query.index;

import java.io.IOException;
import java.lang.ref.SoftReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32;

import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.RoaringBitmapWriter;

import io.tradestore.core.StoreException;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.spi.Deadline;

/**
 * The bitmap index files of sealed segments ({@link BitmapIndexDescriptor}): built with a counting sort of a column's
 * rows by value, written beside the segment (temp file, atomic rename; a torn file fails its checksum), and mapped or
 * read back with their checks.
 */
final class BitmapIndexFiles {
    /** An integer column is indexed in a segment when it has at most rows / this many distinct values. */
    private static final int MIN_ROWS_PER_VALUE = 8;
    /** Largest value range (max - min) of an indexed integer column within a segment. */
    private static final long MAX_INTEGER_RANGE = 1 << 22;

    private BitmapIndexFiles() {
    }

    /** @param s segment. @param c column. @return the index file of the column in the segment. */
    static Path file(final Segment s, final Column c) {
        return s.directory().resolve(c.name() + BitmapIndexDescriptor.SUFFIX);
    }

    /** @return the mapped index, NONE for a marker, or null when the file is missing or fails its checks. */
    static SegmentIndex load(final Path path, final int rows) {
        if (!Files.isRegularFile(path)) {
            return null;
        }
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            final long size = ch.size();
            if (size < BitmapIndexDescriptor.OFFSETS_OFFSET || size > Integer.MAX_VALUE) {
                return null;
            }
            final MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_ONLY, 0, size);
            return read(map, size, rows);
        } catch (final IOException e) {
            return null;
        }
    }

    /**
     * @return the index an image (mapped or on the heap) holds, NONE for a marker, or null when it fails its checks.
     */
    static SegmentIndex read(final ByteBuffer image, final long size, final int rows) {
        final ByteBuffer b = image.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt(BitmapIndexDescriptor.FORMAT_VERSION_OFFSET) != BitmapIndexDescriptor.FORMAT_VERSION
            || b.getInt(BitmapIndexDescriptor.ROW_COUNT_OFFSET) != rows) {
            return null;
        }
        final int kind = b.getInt(BitmapIndexDescriptor.KIND_OFFSET);
        final int slots = b.getInt(BitmapIndexDescriptor.SLOT_COUNT_OFFSET);
        if (BitmapIndexDescriptor.checksum(b) != b.getLong(BitmapIndexDescriptor.CHECKSUM_OFFSET)) {
            return null;
        }
        if (kind == BitmapIndexDescriptor.KIND_NOT_INDEXED) {
            return SegmentIndex.NONE;
        }
        if (kind != BitmapIndexDescriptor.KIND_INDEXED || slots < 1 || BitmapIndexDescriptor.dataOffset(slots) > size
            || BitmapIndexDescriptor.dataOffset(slots) + b.getLong(BitmapIndexDescriptor.OFFSETS_OFFSET + slots * 8)
               != size) {
            return null;
        }
        return new SegmentIndex(b, rows, slots, b.getLong(BitmapIndexDescriptor.MIN_OFFSET));
    }

    /**
     * Builds the index of one column of a sealed segment and writes it (not when the deadline passes first).
     *
     * @throws StoreException when the file cannot be written.
     */
    static void buildFile(final Segment s, final Column c, final int rows, final Path path,
                          final Deadline deadline) {
        writeStreamed(path, bitmaps(s, c, rows, deadline));
    }

    /**
     * Builds the index of one column of a sealed segment with a counting sort of its rows by value.
     *
     * @return the index file's bytes, on the heap.
     */
    static ByteBuffer build(final Segment s, final Column c, final int rows, final Path path,
                            final Deadline deadline) {
        return image(path, bitmaps(s, c, rows, deadline));
    }

    /** An index before it is laid out: its kind, rows, slots (value - min + 1; slot 0 is null) and their bitmaps. */
    private record Built(int kind, int rows, int slots, long min, RoaringBitmap[] bitmaps) {
    }

    private static Built bitmaps(final Segment s, final Column c, final int rows, final Deadline deadline) {
        final long zmin = s.zoneMin(-1, c.index());
        final long zmax = s.zoneMax(-1, c.index());
        final long min = zmin > zmax ? 0 : zmin;
        final long range = zmin > zmax ? 0 : zmax - zmin + 1;
        if (range < 0 || range > MAX_INTEGER_RANGE && c.type() != ColumnType.SYMBOL) {
            return new Built(BitmapIndexDescriptor.KIND_NOT_INDEXED, rows, 0, min, null);
        }
        final int slots = (int) range + 1;
        final Scratch scratch = Scratch.mine();
        final int[] counts = scratch.counts(slots + 1);
        final long base = s.columnBase(c.index());
        final long stride = s.columnStride(c.index());
        final long nul = c.type().nullBits();
        for (int from = 0; from < rows; from += Deadline.CHECK_ROWS) {
            deadline.check();
            final int to = Math.min(rows, from + Deadline.CHECK_ROWS);
            for (int r = from; r < to; r++) {
                final long v = NativeMemory.getSigned(base + r * stride, c.width());
                counts[(v == nul ? 0 : (int) (v - min) + 1) + 1]++;
            }
        }
        int distinct = 0;
        for (int i = 2; i <= slots; i++) {
            distinct += counts[i] > 0 ? 1 : 0;
        }
        if (c.type() != ColumnType.SYMBOL && (long) distinct * MIN_ROWS_PER_VALUE > rows) {
            return new Built(BitmapIndexDescriptor.KIND_NOT_INDEXED, rows, 0, min, null);
        }
        for (int i = 1; i <= slots; i++) {
            counts[i] += counts[i - 1];
        }
        deadline.check(); // the sort and the bitmaps follow: a second stretch of work after the counting pass
        final int[] starts = scratch.starts(counts, slots + 1);
        // the column is read again rather than each row's slot kept: a segment-sized array less to allocate
        final int[] sorted = scratch.sorted(rows);
        for (int r = 0; r < rows; r++) {
            final long v = NativeMemory.getSigned(base + r * stride, c.width());
            sorted[starts[v == nul ? 0 : (int) (v - min) + 1]++] = r;
        }
        final RoaringBitmap[] bitmaps = new RoaringBitmap[slots];
        // a writer fills one container's bits at a time and then makes it an array, bitmap or run container of the
        // right size, where adding rows one at a time to a bitmap grows its array containers step by step
        final RoaringBitmapWriter<RoaringBitmap> writer = scratch.writer;
        for (int k = 0; k < slots; k++) {
            final int from = counts[k];
            final int to = counts[k + 1];
            if (to > from) {
                for (int i = from; i < to; i++) {
                    writer.add(sorted[i]);
                }
                bitmaps[k] = writer.get();
                writer.reset();
            }
        }
        return new Built(BitmapIndexDescriptor.KIND_INDEXED, rows, slots, min, bitmaps);
    }

    /**
     * A building thread's arrays, reused by its next build: a seal indexes several columns of a segment of millions of
     * rows, and an array of that many ints is a humongous allocation for G1, which may start a concurrent cycle
     * (figures in the bodies of commits 1254bcc and e0b3a69). Held through a soft reference, so a thread that built
     * once holds nothing the heap needs.
     */
    private static final class Scratch {
        private static final ThreadLocal<SoftReference<Scratch>> HELD = new ThreadLocal<>();
        private int[] sorted = new int[0];
        private int[] counts = new int[0];
        private int[] starts = new int[0];
        private ByteBuffer serialized = ByteBuffer.allocate(0);
        final RoaringBitmapWriter<RoaringBitmap> writer = RoaringBitmapWriter.writer().constantMemory()
            .runCompress(true).get();

        static Scratch mine() {
            final SoftReference<Scratch> held = HELD.get();
            Scratch s = held == null ? null : held.get();
            if (s == null) {
                s = new Scratch();
                HELD.set(new SoftReference<>(s));
            }
            return s;
        }

        /** @return at least {@code n} ints (their values are to be overwritten). */
        int[] sorted(final int n) {
            if (sorted.length < n) {
                sorted = new int[n];
            }
            return sorted;
        }

        /** @return at least {@code n} ints, the first n zero. */
        int[] counts(final int n) {
            if (counts.length < n) {
                counts = new int[n];
            } else {
                Arrays.fill(counts, 0, n, 0);
            }
            return counts;
        }

        /** @return an empty little-endian buffer of at least {@code n} bytes, limited to n. */
        ByteBuffer serialized(final int n) {
            if (serialized.capacity() < n) {
                serialized = ByteBuffer.allocate(n);
            }
            return serialized.clear().limit(n).order(ByteOrder.LITTLE_ENDIAN);
        }

        /** @return the first {@code n} of {@code from}, copied. */
        int[] starts(final int[] from, final int n) {
            if (starts.length < n) {
                starts = new int[n];
            }
            System.arraycopy(from, 0, starts, 0, n);
            return starts;
        }
    }

    /**
     * @return the index's header: the descriptor's fields and, for an indexed column, each slot's bitmap offset from
     *     the data's start and the data's length (checksum 0).
     * @throws StoreException when the file would not fit one mapping (path names it).
     */
    private static ByteBuffer header(final Path path, final Built x) {
        final boolean indexed = x.kind() == BitmapIndexDescriptor.KIND_INDEXED;
        final long dataStart = indexed ? BitmapIndexDescriptor.dataOffset(x.slots())
            : BitmapIndexDescriptor.OFFSETS_OFFSET;
        final ByteBuffer b = ByteBuffer.allocate((int) dataStart).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(BitmapIndexDescriptor.FORMAT_VERSION_OFFSET, BitmapIndexDescriptor.FORMAT_VERSION);
        b.putInt(BitmapIndexDescriptor.KIND_OFFSET, x.kind());
        b.putInt(BitmapIndexDescriptor.ROW_COUNT_OFFSET, x.rows());
        b.putInt(BitmapIndexDescriptor.SLOT_COUNT_OFFSET, x.slots());
        b.putLong(BitmapIndexDescriptor.MIN_OFFSET, x.min());
        long dataLength = 0;
        for (int k = 0; indexed && k <= x.slots(); k++) {
            b.putLong(BitmapIndexDescriptor.OFFSETS_OFFSET + k * 8, dataLength);
            dataLength += k == x.slots() || x.bitmaps()[k] == null ? 0 : x.bitmaps()[k].serializedSizeInBytes();
        }
        if (dataStart + dataLength > Integer.MAX_VALUE) {
            throw new StoreException("bitmap index " + path + " would be " + (dataStart + dataLength)
                + " bytes; more than one mapping holds");
        }
        return b;
    }

    /** @return the bytes of an index file (path: named when it would not fit one mapping). */
    private static ByteBuffer image(final Path path, final Built x) {
        final ByteBuffer header = header(path, x);
        // an indexed column's header ends with the data's length
        final long data = x.kind() == BitmapIndexDescriptor.KIND_INDEXED
            ? header.getLong(BitmapIndexDescriptor.OFFSETS_OFFSET + x.slots() * 8) : 0;
        final ByteBuffer b = ByteBuffer.allocate((int) (header.capacity() + data)).order(ByteOrder.LITTLE_ENDIAN);
        b.put(header.duplicate().position(0));
        for (int k = 0; x.bitmaps() != null && k < x.slots(); k++) {
            if (x.bitmaps()[k] != null) {
                x.bitmaps()[k].serialize(b);
            }
        }
        b.putLong(BitmapIndexDescriptor.CHECKSUM_OFFSET, BitmapIndexDescriptor.checksum(b));
        return b;
    }

    /**
     * Writes an index file as {@link #write} does, a bitmap at a time through this thread's buffer, so that a seal's
     * builds allocate no buffer the size of the file (several MB for a symbol of a 4M-row segment: humongous for G1);
     * the checksum is taken over the same bytes as it goes and written last.
     */
    private static void writeStreamed(final Path path, final Built x) {
        final ByteBuffer header = header(path, x);
        final CRC32 crc = new CRC32();
        crc.update(header.duplicate().position(0).limit(BitmapIndexDescriptor.CHECKSUM_OFFSET));
        crc.update(header.duplicate().position(BitmapIndexDescriptor.OFFSETS_OFFSET));
        viaTemp(path, ch -> {
            writeFully(ch, header.duplicate().position(0));
            final Scratch scratch = Scratch.mine();
            for (int k = 0; x.bitmaps() != null && k < x.slots(); k++) {
                final RoaringBitmap bm = x.bitmaps()[k];
                if (bm != null) {
                    final ByteBuffer b = scratch.serialized(bm.serializedSizeInBytes());
                    bm.serialize(b);
                    b.flip();
                    crc.update(b.duplicate());
                    writeFully(ch, b);
                }
            }
            final ByteBuffer sum = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            sum.putLong(0, crc.getValue());
            while (sum.hasRemaining()) {
                ch.write(sum, BitmapIndexDescriptor.CHECKSUM_OFFSET + sum.position());
            }
        });
    }

    private static void writeFully(final FileChannel ch, final ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    /** Writes a file through a channel. */
    private interface FileWrite {
        void to(FileChannel ch) throws IOException;
    }

    /** Writes an index file's bytes: a temp file renamed over it. @throws StoreException when it cannot be written. */
    static void write(final Path path, final ByteBuffer image) {
        viaTemp(path, ch -> writeFully(ch, image.duplicate().position(0)));
    }

    /** Writes a file's bytes to a temp file and renames it over the file. @throws StoreException when it cannot. */
    private static void viaTemp(final Path path, final FileWrite write) {
        final Path tmp = path.resolveSibling(path.getFileName() + ".tmp-" + ProcessHandle.current().pid() + "-"
            + Thread.currentThread().getId());
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
                write.to(ch);
                // no fsync: a torn file after a crash fails its checksum and is rebuilt
            }
            try {
                Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (final AtomicMoveNotSupportedException e) {
                Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (final IOException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (final IOException ignored) {
                // nothing more to clean
            }
            throw new StoreException("cannot write bitmap index " + path + ": " + StoreException.reason(e), e);
        }
    }
}
