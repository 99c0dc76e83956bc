package io.tradestore.core.dict;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

import io.tradestore.core.Bounds;
import io.tradestore.core.StoreException;

/**
 * The dictionary of one symbol column: code to string by array, string to code through an open-addressing table
 * with linear probing. The writer appends new strings to the file; readers load committed entries as they refresh.
 * Lookups from many threads are safe against one thread appending: arrays are replaced, never resized in place, and
 * a code is only returned when it is below the caller's committed size.
 */
public final class SymbolDictionary implements AutoCloseable {
    private final Path path;
    private final FileChannel channel;
    private final boolean writable;
    private volatile String[] values = new String[16];
    private volatile byte[][] bytes = new byte[16][];
    private volatile int[] table = newTable(32);
    private volatile int size;
    private long byteLength = SymbolDictionaryDescriptor.HEADER_LENGTH;
    private final ByteBuffer header = ByteBuffer.allocate(SymbolDictionaryDescriptor.HEADER_LENGTH)
        .order(ByteOrder.LITTLE_ENDIAN);

    private SymbolDictionary(final Path path, final FileChannel channel, final boolean writable) {
        this.path = path;
        this.channel = channel;
        this.writable = writable;
    }

    /**
     * Creates an empty dictionary file.
     *
     * @param path the file.
     * @return the writable dictionary.
     */
    public static SymbolDictionary create(final Path path) {
        try {
            final FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
            final SymbolDictionary d = new SymbolDictionary(path, ch, true);
            d.header.putInt(SymbolDictionaryDescriptor.FORMAT_VERSION_OFFSET,
                SymbolDictionaryDescriptor.FORMAT_VERSION);
            ch.write(d.header, 0);
            return d;
        } catch (final IOException e) {
            throw new StoreException("cannot create dictionary " + path + ": " + StoreException.reason(e), e);
        }
    }

    /**
     * Opens a dictionary and loads its committed entries; a writer also cuts off any uncommitted tail.
     *
     * @param path           the file.
     * @param committedCount committed entries per the transaction file.
     * @param committedBytes committed file length per the transaction file.
     * @param writable       whether this is the writer's dictionary.
     * @return the dictionary.
     */
    public static SymbolDictionary open(final Path path, final long committedCount, final long committedBytes,
                                        final boolean writable) {
        if (!Files.exists(path)) {
            throw new StoreException("missing dictionary file " + path);
        }
        final FileChannel ch;
        try {
            ch = writable
                ? FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)
                : FileChannel.open(path, StandardOpenOption.READ);
        } catch (final IOException e) {
            throw new StoreException("cannot open dictionary " + path + ": " + StoreException.reason(e), e);
        }
        final SymbolDictionary d = new SymbolDictionary(path, ch, writable);
        try {
            d.header.clear();
            if (ch.read(d.header, 0) < SymbolDictionaryDescriptor.HEADER_LENGTH) {
                throw new StoreException("truncated dictionary file " + path + ": no header");
            }
            final int version = d.header.getInt(SymbolDictionaryDescriptor.FORMAT_VERSION_OFFSET);
            if (version > SymbolDictionaryDescriptor.FORMAT_VERSION) {
                throw new StoreException("dictionary file " + path + " has format version " + version
                    + ", newer than this tradestore supports; upgrade tradestore");
            }
            if (version < 1) {
                throw new StoreException("corrupted dictionary file " + path + ": formatVersion=" + version);
            }
            d.refresh(committedCount, committedBytes);
            if (writable) {
                ch.truncate(committedBytes);
            }
            return d;
        } catch (final IOException e) {
            d.close();
            throw new StoreException("cannot read dictionary " + path + ": " + StoreException.reason(e), e);
        } catch (final RuntimeException e) {
            d.close();
            throw e;
        }
    }

    /**
     * Loads entries up to a newly committed count (readers call this on refresh).
     *
     * @param committedCount committed entries.
     * @param committedBytes committed file bytes.
     */
    public synchronized void refresh(final long committedCount, final long committedBytes) {
        if (committedCount <= size) {
            return;
        }
        if (committedCount > Integer.MAX_VALUE) {
            throw new StoreException("corrupted dictionary " + path + ": committedCount=" + committedCount);
        }
        final long need = committedBytes - byteLength;
        try {
            if (channel.size() < committedBytes || need < 0 || need > Integer.MAX_VALUE) {
                throw new StoreException("truncated dictionary file " + path + ": size=" + channel.size()
                    + " committedBytes="
                    + committedBytes);
            }
            final ByteBuffer buf = ByteBuffer.allocate((int) need).order(ByteOrder.LITTLE_ENDIAN);
            while (buf.hasRemaining()) {
                if (channel.read(buf, byteLength + buf.position()) < 0) {
                    throw new StoreException("truncated dictionary file " + path);
                }
            }
            buf.flip();
            while (size < committedCount) {
                if (buf.remaining() < SymbolDictionaryDescriptor.ENTRY_LENGTH_PREFIX) {
                    throw new StoreException("corrupted dictionary " + path + ": entry " + size + " is cut off");
                }
                final int len = buf.getInt();
                if (len < 0 || len > SymbolDictionaryDescriptor.MAX_SYMBOL_LENGTH || len > buf.remaining()) {
                    throw new StoreException("corrupted dictionary " + path + ": entry " + size + " has length " + len);
                }
                final byte[] b = new byte[len];
                buf.get(b);
                add(b, new String(b, StandardCharsets.UTF_8));
            }
            byteLength = committedBytes;
        } catch (final IOException e) {
            throw new StoreException("cannot read dictionary " + path + ": " + StoreException.reason(e), e);
        }
    }

    /** @return entries loaded or added so far. */
    public int size() {
        return size;
    }

    /** @return file bytes written so far (committed plus pending). */
    public long byteLength() {
        return byteLength;
    }

    /**
     * Returns the string of a code.
     *
     * @param code a code below {@link #size()}.
     * @return the string.
     */
    public String value(final int code) {
        final String[] v = values;
        if (Bounds.SHOULD_BOUNDS_CHECK && (code < 0 || code >= size)) {
            throw new IndexOutOfBoundsException("code=" + code + " dictionarySize=" + size + " file=" + path
                .getFileName());
        }
        return v[code];
    }

    /**
     * Looks a string up without adding it.
     *
     * @param s the string.
     * @return its code, or -1 when absent.
     */
    public int find(final CharSequence s) {
        final int[] t = table;
        final String[] v = values;
        final int mask = t.length - 1;
        int i = hash(s) & mask;
        while (true) {
            final int code = t[i];
            if (code < 0) {
                return -1;
            }
            if (code < v.length && v[code] != null && v[code].contentEquals(s)) {
                return code;
            }
            i = (i + 1) & mask;
        }
    }

    /**
     * Looks up ASCII or UTF-8 bytes without allocating when present.
     *
     * @param buf    bytes.
     * @param offset first byte.
     * @param length byte count.
     * @return its code, or -1 when absent.
     */
    public int find(final byte[] buf, final int offset, final int length) {
        final int[] t = table;
        final byte[][] b = bytes;
        final int mask = t.length - 1;
        int i = hashBytes(buf, offset, length) & mask;
        while (true) {
            final int code = t[i];
            if (code < 0) {
                return -1;
            }
            if (code < b.length && b[code] != null
                && Arrays.equals(b[code], 0, b[code].length, buf, offset, offset + length)) {
                return code;
            }
            i = (i + 1) & mask;
        }
    }

    /**
     * Returns the code of a string, appending it to the file if new (writer only; visible to readers at commit).
     *
     * @param s the string.
     * @return its code.
     */
    public int intern(final CharSequence s) {
        final int code = find(s);
        if (code >= 0) {
            return code;
        }
        final String str = s.toString();
        return append(str.getBytes(StandardCharsets.UTF_8), str);
    }

    /**
     * Returns the code of a UTF-8 byte string, appending it if new (writer only).
     *
     * @param buf    bytes.
     * @param offset first byte.
     * @param length byte count.
     * @return its code.
     */
    public int intern(final byte[] buf, final int offset, final int length) {
        final int code = find(buf, offset, length);
        if (code >= 0) {
            return code;
        }
        final byte[] b = Arrays.copyOfRange(buf, offset, offset + length);
        return append(b, new String(b, StandardCharsets.UTF_8));
    }

    private synchronized int append(final byte[] b, final String s) {
        if (!writable) {
            throw new StoreException("symbol '" + s + "' is not in dictionary " + path.getFileName()
                + " and this view is read-only");
        }
        if (b.length > SymbolDictionaryDescriptor.MAX_SYMBOL_LENGTH) {
            throw new StoreException("symbol of " + b.length + " bytes is longer than the limit of "
                + SymbolDictionaryDescriptor.MAX_SYMBOL_LENGTH);
        }
        final ByteBuffer entry = ByteBuffer.allocate(SymbolDictionaryDescriptor.ENTRY_LENGTH_PREFIX + b.length)
            .order(ByteOrder.LITTLE_ENDIAN);
        entry.putInt(b.length).put(b).flip();
        try {
            while (entry.hasRemaining()) {
                channel.write(entry, byteLength + entry.position());
            }
        } catch (final IOException e) {
            throw new StoreException("cannot append to dictionary " + path + ": " + StoreException.reason(e), e);
        }
        byteLength += entry.limit();
        return add(b, s);
    }

    /**
     * Drops entries added after a commit (writer rollback).
     *
     * @param committedCount entries to keep.
     * @param committedBytes file bytes to keep.
     */
    public synchronized void truncate(final long committedCount, final long committedBytes) {
        if (committedCount >= size) {
            return;
        }
        final int keep = (int) committedCount;
        final String[] v = Arrays.copyOf(values, values.length);
        final byte[][] b = Arrays.copyOf(bytes, bytes.length);
        Arrays.fill(v, keep, v.length, null);
        Arrays.fill(b, keep, b.length, null);
        final int[] t = newTable(table.length);
        for (int code = 0; code < keep; code++) {
            insert(t, v[code], code);
        }
        bytes = b;
        values = v;
        table = t;
        size = keep;
        byteLength = committedBytes;
        try {
            channel.truncate(committedBytes);
        } catch (final IOException e) {
            throw new StoreException("cannot truncate dictionary " + path + ": " + StoreException.reason(e), e);
        }
    }

    /** Forces written entries to disk. */
    public void sync() {
        try {
            channel.force(false);
        } catch (final IOException e) {
            throw new StoreException("cannot sync dictionary " + path + ": " + StoreException.reason(e), e);
        }
    }

    private int add(final byte[] b, final String s) {
        final int code = size;
        if (code == values.length) {
            bytes = Arrays.copyOf(bytes, code * 2);
            values = Arrays.copyOf(values, code * 2);
        }
        bytes[code] = b;
        values[code] = s;
        int[] t = table;
        if ((code + 1) * 2 > t.length) {
            t = newTable(t.length * 2);
            for (int c = 0; c < code; c++) {
                insert(t, values[c], c);
            }
        }
        insert(t, s, code);
        table = t;
        size = code + 1;
        return code;
    }

    private static void insert(final int[] t, final String s, final int code) {
        final int mask = t.length - 1;
        int i = hash(s) & mask;
        while (t[i] >= 0) {
            i = (i + 1) & mask;
        }
        t[i] = code;
    }

    private static int[] newTable(final int capacity) {
        final int[] t = new int[capacity];
        Arrays.fill(t, -1);
        return t;
    }

    private static int hash(final CharSequence s) {
        int h = 0;
        for (int i = 0; i < s.length(); i++) {
            h = 31 * h + s.charAt(i);
        }
        return spread(h);
    }

    private static int hashBytes(final byte[] buf, final int offset, final int length) {
        int h = 0;
        for (int i = 0; i < length; i++) {
            final int c = buf[offset + i];
            if (c < 0) {
                return hash(new String(buf, offset, length, StandardCharsets.UTF_8));
            }
            h = 31 * h + c;
        }
        return spread(h);
    }

    private static int spread(final int h) {
        final int x = h * 0x9E3779B9;
        return x ^ (x >>> 16);
    }

    /** @return the file. */
    public Path path() {
        return path;
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (final IOException e) {
            throw new StoreException("cannot close dictionary " + path + ": " + StoreException.reason(e), e);
        }
    }
}
