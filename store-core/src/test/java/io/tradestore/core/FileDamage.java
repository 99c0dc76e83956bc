package io.tradestore.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.ZoneMapDescriptor;

/**
 * Damages files the way fault tests need (bytes flipped or overwritten, files cut short or rewritten), and copies and
 * deletes store directories. Numbers are written little-endian, as every tradestore file holds them.
 */
public final class FileDamage {
    private FileDamage() {
    }

    /** @param file a file. @param offset a byte in it. @param bits the bits to flip there. */
    public static void xor(final Path file, final long offset, final int bits) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(offset);
            final int b = f.read();
            f.seek(offset);
            f.write(b ^ bits);
        }
    }

    /** @param file a file. @param offset a byte in it whose bits 1, 3, 4 and 6 are flipped (0x5A). */
    public static void flip(final Path file, final long offset) throws IOException {
        xor(file, offset, 0x5A);
    }

    /** @param file a file. @param offset where to write. @param bytes what to write there. */
    public static void write(final Path file, final long offset, final byte... bytes) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(offset);
            f.write(bytes);
        }
    }

    /** @param file a file. @param offset where to write. @param value an int written there, little-endian. */
    public static void putInt(final Path file, final long offset, final int value) throws IOException {
        write(file, offset, ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).putInt(0, value).array());
    }

    /** @param file a file. @param offset where to write. @param value a long written there, little-endian. */
    public static void putLong(final Path file, final long offset, final long value) throws IOException {
        write(file, offset, ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(0, value).array());
    }

    /** @param file a file. @param offset where to read. @return the little-endian long there. */
    public static long getLong(final Path file, final long offset) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            f.seek(offset);
            return Long.reverseBytes(f.readLong());
        }
    }

    /**
     * Rewrites every checksum of a zone map from its entries as they are, as a writer would have: the entries then pass
     * their checksums however wrong they are, which is how tests reach the checks behind them (an entry that does not
     * cover its data).
     *
     * @param zone a zone map file of format 2 or later.
     */
    public static void resealZoneMap(final Path zone) throws IOException {
        try (MappedFile f = MappedFile.open(zone, Files.size(zone), true)) {
            final long a = f.address();
            assertThat(NativeMemory.getInt(a + ZoneMapDescriptor.FORMAT_VERSION_OFFSET))
                .isGreaterThanOrEqualTo(ZoneMapDescriptor.CHECKSUM_VERSION);
            final int columns = NativeMemory.getInt(a + ZoneMapDescriptor.COLUMN_COUNT_OFFSET);
            final int blocks = NativeMemory.getInt(a + ZoneMapDescriptor.BLOCK_COUNT_OFFSET);
            for (int block = -1; block < blocks; block++) {
                NativeMemory.putLong(a + ZoneMapDescriptor.checksumOffset(columns, blocks, block),
                    ZoneMapDescriptor.checksum(a, columns, block));
            }
        }
    }

    /** @param file a file. @param length the length it is cut to. */
    public static void truncate(final Path file, final long length) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(length);
        }
    }

    /**
     * @param file a UTF-8 text file, which must hold {@code from}. @param from text in it. @param to what replaces it.
     */
    public static void replace(final Path file, final String from, final String to) throws IOException {
        final String s = Files.readString(file, StandardCharsets.UTF_8);
        assertThat(s).contains(from);
        Files.writeString(file, s.replace(from, to), StandardCharsets.UTF_8);
    }

    /** @param from a directory. @param to where a copy of it and all it holds is made (not there yet). */
    public static void copyTree(final Path from, final Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (final Path p : (Iterable<Path>) s::iterator) {
                final Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
    }

    /** @param root a file or a directory, deleted with all it holds; an error names the first path that did not go. */
    public static void deleteTree(final Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            for (final Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
