package io.tradestore.core.ingest;

import java.util.Arrays;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;

/**
 * A chunk's private symbol table for one column: byte strings to local codes in first-appearance order, by open
 * addressing with linear probing. The appender later interns the local codes in order into the table's dictionary,
 * so global codes follow first appearance in the file whatever thread parsed the chunk.
 */
final class LocalSymbols {
    /** Slots per entry: the first 8 bytes, then {@code code << 32 | length}; an unused slot's second long is -1. */
    private static final int SLOT_LONGS = 2;
    private static final long EMPTY = -1;
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private byte[] arena = new byte[1024];
    private int arenaLength;
    private int[] offsets = new int[64];
    private int[] lengths = new int[64];
    private long[] heads = new long[64];
    private int size;
    // open addressing, linear probing, at most 1/4 full: the key's head and its code and length side by side, so a hit
    // costs one cache line and no dependent load
    private long[] slots = newSlots(1024);
    private int shift = 64 - 10;

    /** @param schema a table's schema. @return a table per symbol column, null for the other columns. */
    static LocalSymbols[] perColumn(final Schema schema) {
        final LocalSymbols[] tables = new LocalSymbols[schema.columnCount()];
        for (final Column c : schema.columns()) {
            if (c.type() == ColumnType.SYMBOL) {
                tables[c.index()] = new LocalSymbols();
            }
        }
        return tables;
    }

    void clear() {
        if (size > 0) {
            Arrays.fill(slots, EMPTY);
        }
        size = 0;
        arenaLength = 0;
    }

    int size() {
        return size;
    }

    byte[] arena() {
        return arena;
    }

    int offset(final int code) {
        return offsets[code];
    }

    int length(final int code) {
        return lengths[code];
    }

    /**
     * Returns the local code of the bytes at {@code address}, adding them if new.
     *
     * @param address  first byte.
     * @param length   byte count.
     * @param readable how many bytes from {@code address} may be read (at least {@code length}).
     * @return the local code.
     */
    int intern(final long address, final int length, final long readable) {
        final long head;
        if (readable >= 8) {
            final long word = NativeMemory.getLong(address);
            head = length >= 8 ? word : word & ((1L << (length << 3)) - 1);
        } else {
            long w = 0;
            for (int i = Math.min(length, 8) - 1; i >= 0; i--) {
                w = (w << 8) | (NativeMemory.getByte(address + i) & 0xFF);
            }
            head = w;
        }
        long x = head;
        for (int i = 8; i < length; i++) {
            x = (x + NativeMemory.getByte(address + i)) * 0xBF58476D1CE4E5B9L;
        }
        return intern(x, head, length, address);
    }

    /**
     * Returns the local code of a symbol, adding it if new; called directly by the parser's fast path (symbols of 1
     * to 7 bytes, whose hash key is their head) and kept small so that C2 inlines it there.
     *
     * @param key     the hash key: the head, mixed with the bytes after the 8th for longer symbols.
     * @param head    the first 8 bytes as a little-endian long, zero above a shorter symbol.
     * @param length  byte count.
     * @param address where the bytes are (read only when the symbol is new or longer than 8 bytes).
     * @return the local code.
     */
    int intern(final long key, final long head, final int length, final long address) {
        final long[] t = slots;
        final int mask = (t.length / SLOT_LONGS) - 1;
        int i = slot(key, length, shift);
        while (true) {
            final long meta = t[i * SLOT_LONGS + 1];
            if (meta == EMPTY) {
                return add(address, length, head, i);
            }
            if (t[i * SLOT_LONGS] == head && (int) meta == length
                && (length <= 8 || tailEquals((int) (meta >>> 32), address, length))) {
                return (int) (meta >>> 32);
            }
            i = (i + 1) & mask;
        }
    }

    private boolean tailEquals(final int code, final long address, final int length) {
        final byte[] a = arena;
        final int off = offsets[code];
        for (int i = 8; i < length; i++) {
            if (a[off + i] != NativeMemory.getByte(address + i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Adds a new symbol at a free slot, growing the table when it gets a quarter full. One method on purpose: it is
     * rare (once per distinct symbol per chunk) and, at over 325 bytecodes, too big for C2 to inline into the lookups,
     * which then stay small enough to be inlined into the parser's loop themselves.
     */
    private int add(final long address, final int length, final long head, final int slot) {
        final int code = size;
        if (code == offsets.length) {
            offsets = Arrays.copyOf(offsets, code * 2);
            lengths = Arrays.copyOf(lengths, code * 2);
            heads = Arrays.copyOf(heads, code * 2);
        }
        if (arenaLength + length > arena.length) {
            arena = Arrays.copyOf(arena, Math.max(arena.length * 2, arenaLength + length));
        }
        for (int i = 0; i < length; i++) {
            arena[arenaLength + i] = NativeMemory.getByte(address + i);
        }
        offsets[code] = arenaLength;
        lengths[code] = length;
        heads[code] = head;
        arenaLength += length;
        size = code + 1;
        slots[slot * SLOT_LONGS] = head;
        slots[slot * SLOT_LONGS + 1] = ((long) code << 32) | length;
        if (size * 4 > slots.length / SLOT_LONGS) {
            // rehash into twice the slots
            final int capacity = slots.length / SLOT_LONGS * 2;
            final long[] t = newSlots(capacity);
            final int newShift = 64 - Integer.numberOfTrailingZeros(capacity);
            final int mask = capacity - 1;
            for (int c = 0; c < size; c++) {
                long x = heads[c];
                for (int i = 8; i < lengths[c]; i++) {
                    x = (x + arena[offsets[c] + i]) * 0xBF58476D1CE4E5B9L;
                }
                int i = slot(x, lengths[c], newShift);
                while (t[i * SLOT_LONGS + 1] != EMPTY) {
                    i = (i + 1) & mask;
                }
                t[i * SLOT_LONGS] = heads[c];
                t[i * SLOT_LONGS + 1] = ((long) c << 32) | lengths[c];
            }
            slots = t;
            shift = newShift;
        }
        return code;
    }

    /** Fibonacci hashing: the top bits of the product depend on every input bit (the low bits miss the last bytes). */
    private static int slot(final long key, final int length, final int shift) {
        return (int) (((key + length) * GOLDEN) >>> shift);
    }

    private static long[] newSlots(final int capacity) {
        final long[] t = new long[capacity * SLOT_LONGS];
        Arrays.fill(t, EMPTY);
        return t;
    }
}
