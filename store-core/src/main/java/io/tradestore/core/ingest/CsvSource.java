package io.tradestore.core.ingest;

import java.io.BufferedInputStream;
import java.io.FileInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

import io.tradestore.core.StoreException;
import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.memory.NativeMemory;

/**
 * Where one input's bytes come from: a plain file is mapped whole and cut into chunks at line starts (records may
 * run past a cut: the parser reads on into the mapping); gzip and standard input are read into native buffers that
 * end at a line end, carrying the rest to the next buffer.
 */
abstract class CsvSource implements AutoCloseable {
    final String name;

    CsvSource(final String name) {
        this.name = name;
    }

    /** @return total input bytes (compressed for gzip), or -1 when unknown. */
    abstract long totalBytes();

    /** @param validatedOffset offset up to which chunks are appended. @return input bytes consumed, for progress. */
    abstract long bytesConsumed(long validatedOffset);

    /**
     * @return the first bytes (a format-less input), enough to hold the header unless it is overlong; null when empty.
     */
    abstract CsvInput first();

    /** @param format the header mapping. @return the next chunk, or null at the end. */
    abstract CsvInput next(CsvFormat format);

    @Override
    public abstract void close();

    static CsvSource open(final Path path, final String name, final int chunkBytes, final int maxLineLength) {
        try {
            final long size = Files.size(path);
            if (size >= 2) {
                try (InputStream in = Files.newInputStream(path)) {
                    if (in.read() == 0x1F && in.read() == 0x8B) {
                        return stream(name, Files.newInputStream(path), size, chunkBytes, maxLineLength);
                    }
                }
            }
            if (!Files.isRegularFile(path)) {
                // a pipe (mkfifo, or the /dev/fd/N of a shell's <(...)): no size, no seek, no mapping.
                // Files.newInputStream's available() asks the channel for size minus position, which fails on a pipe
                // with "Illegal seek" once BufferedInputStream calls it; FileInputStream asks the kernel how many bytes
                // are waiting instead
                return stream(name, new FileInputStream(path.toFile()), -1, chunkBytes, maxLineLength);
            }
            return new Mapped(path, name, size, chunkBytes);
        } catch (final IOException e) {
            throw new LoadException(name + ": cannot read: " + StoreException.reason(e), name, 0, 0, 0);
        }
    }

    static CsvSource stream(final String name, final InputStream raw, final long size, final int chunkBytes,
        final int maxLineLength) {
        try {
            final Counting counting = new Counting(raw);
            final BufferedInputStream buffered = new BufferedInputStream(counting, 1 << 16);
            buffered.mark(2);
            final boolean gzip = buffered.read() == 0x1F && buffered.read() == 0x8B;
            buffered.reset();
            final InputStream in = gzip ? new GZIPInputStream(buffered, 1 << 16) : buffered;
            return new Streamed(name, in, counting, size, Math.max(chunkBytes, 2 * maxLineLength + 2));
        } catch (final IOException e) {
            throw new LoadException(name + ": cannot read: " + StoreException.reason(e), name, 0, 0, 0);
        }
    }

    /** A plain file, mapped once; chunks share the mapping. */
    static final class Mapped extends CsvSource {
        private final long size;
        private final int chunkBytes;
        private final MappedFile map;
        private long position;
        private boolean started;

        Mapped(final Path path, final String name, final long size, final int chunkBytes) {
            super(name);
            this.size = size;
            this.chunkBytes = chunkBytes;
            this.map = size == 0 ? null : MappedFile.open(path, size, false);
        }

        @Override
        long totalBytes() {
            return size;
        }

        @Override
        long bytesConsumed(final long validatedOffset) {
            return validatedOffset;
        }

        @Override
        CsvInput first() {
            return map == null ? null : new CsvInput(null, map.address(), 0, 0, size, size, true, 0);
        }

        @Override
        CsvInput next(final CsvFormat format) {
            if (!started) {
                position = format.dataOffset;
                started = true;
            }
            if (position >= size) {
                return null;
            }
            final long start = position;
            long stop = start + chunkBytes;
            if (stop >= size) {
                stop = size;
            } else {
                // the chunk ends at the first line start at or after the nominal cut
                final long base = map.address();
                while (stop < size && NativeMemory.getByte(base + stop - 1) != '\n') {
                    stop++;
                }
            }
            position = stop;
            return new CsvInput(format, map.address(), 0, start, stop, size, true, 0);
        }

        @Override
        public void close() {
            if (map != null) {
                map.close();
            }
        }
    }

    /** Gzip or a pipe: buffers of whole lines, each owned by its chunk until appended. */
    static final class Streamed extends CsvSource {
        private final InputStream in;
        private final Counting counting;
        private final long size;
        private final int capacity;
        private final byte[] staging = new byte[1 << 16];
        private byte[] carry = new byte[0];
        private int carryLength;
        private long offset;
        private boolean eof;
        private CsvInput pendingFirst;
        private boolean closed;

        Streamed(final String name, final InputStream in, final Counting counting, final long size,
            final int capacity) {
            super(name);
            this.in = in;
            this.counting = counting;
            this.size = size;
            this.capacity = capacity;
        }

        @Override
        long totalBytes() {
            return size;
        }

        @Override
        long bytesConsumed(final long validatedOffset) {
            return counting.count;
        }

        @Override
        CsvInput first() {
            pendingFirst = read(null);
            return pendingFirst;
        }

        @Override
        CsvInput next(final CsvFormat format) {
            if (pendingFirst != null) {
                final CsvInput in0 = pendingFirst;
                pendingFirst = null;
                if (format.dataOffset >= in0.limitOffset && !in0.eofAtLimit) {
                    in0.release();
                    return read(format);
                }
                return in0.withFormat(format, Math.min(format.dataOffset, in0.limitOffset));
            }
            return read(format);
        }

        private CsvInput read(final CsvFormat format) {
            if (eof && carryLength == 0) {
                return null;
            }
            final long address = NativeMemory.allocate(capacity);
            boolean owned = true;
            try {
                NativeMemory.copy(carry, 0, address, carryLength);
                int length = carryLength;
                carryLength = 0;
                while (!eof && length < capacity) {
                    final int n = in.read(staging, 0, Math.min(staging.length, capacity - length));
                    if (n < 0) {
                        eof = true;
                        break;
                    }
                    NativeMemory.copy(staging, 0, address + length, n);
                    length += n;
                }
                if (length == 0) {
                    return null;
                }
                final long base = offset;
                int cut = length;
                if (!eof) {
                    while (cut > 0 && NativeMemory.getByte(address + cut - 1) != '\n') {
                        cut--;
                    }
                    if (cut == 0) {
                        // the line starts at base; the loader knows its number once the chunks before it are appended
                        throw new OverlongLine(base, capacity);
                    }
                    carryLength = length - cut;
                    if (carry.length < carryLength) {
                        carry = new byte[Math.max(carryLength, carry.length * 2)];
                    }
                    for (int i = 0; i < carryLength; i++) {
                        carry[i] = NativeMemory.getByte(address + cut + i);
                    }
                }
                offset += cut;
                owned = false;
                return new CsvInput(format, address, base, base, base + cut, base + cut, eof && carryLength == 0,
                    capacity);
            } catch (final IOException e) {
                throw new LoadException(name + ": cannot read: " + StoreException.reason(e), name, 0, 0, 0);
            } finally {
                if (owned) {
                    NativeMemory.free(address, capacity);
                }
            }
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            if (pendingFirst != null) {
                pendingFirst.release();
                pendingFirst = null;
            }
            try {
                in.close();
            } catch (final IOException e) {
                // nothing to release
            }
        }
    }

    /**
     * A line that does not fit a stream buffer (gzip, pipes): it cannot be skipped, so the load fails. The source does
     * not count lines (that would be a pass over every buffer); the loader turns this into a {@link LoadException}
     * naming the line, which it knows once every chunk before the line is appended.
     */
    static final class OverlongLine extends RuntimeException {
        private static final long serialVersionUID = 1L;
        /** Input offset of the line's first byte. */
        final long offset;
        /** The buffer size the line does not fit in. */
        final int capacity;

        OverlongLine(final long offset, final int capacity) {
            super("a line at byte " + offset + " is longer than " + capacity + " bytes", null, false, false);
            this.offset = offset;
            this.capacity = capacity;
        }

        /**
         * @param file          the input's name.
         * @param line          the line's 1-based number.
         * @param maxLineLength the loader's line limit.
         * @param rowsCommitted rows of this load already committed.
         * @return the failure to report.
         */
        LoadException toLoadException(final String file, final long line, final int maxLineLength,
            final long rowsCommitted) {
            final long column = maxLineLength + 1L;
            return new LoadException(file + ":" + line + ":" + column + ": line is longer than the limit of "
                + maxLineLength
                + " bytes (and than the " + capacity
                + "-byte buffer of compressed or piped input, where such a line cannot be skipped)", file, line,
                column, rowsCommitted);
        }
    }

    /** Counts bytes read from the underlying (compressed) stream. */
    static final class Counting extends FilterInputStream {
        volatile long count;

        Counting(final InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            final int b = super.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(final byte[] b, final int off, final int len) throws IOException {
            final int n = super.read(b, off, len);
            if (n > 0) {
                count += n;
            }
            return n;
        }
    }
}
