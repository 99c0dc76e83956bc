package io.tradestore.core.ingest;

import java.util.Arrays;

import io.tradestore.core.memory.NativeMemory;

/**
 * A chunk's private symbol table for one column: byte strings to local codes in first-appearance order, by open
 * addressing with linear probing. The appender later interns the local codes in order into the table's dictionary,
 * so global codes follow first appearance in the file whatever thread parsed the chunk.
 */
final class LocalSymbols {
    private byte[] arena = new byte[1024];
    private int arenaLength;
    private int[] offsets = new int[64];
    private int[] lengths = new int[64];
    private long[] heads = new long[64];
    private int size;
    private int[] table = newTable(256);

    void clear() {
        if (size > 0) {
            Arrays.fill(table, -1);
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
        if (length > 8) {
            for (int i = 8; i < length; i++) {
                x = (x + NativeMemory.getByte(address + i)) * 0xBF58476D1CE4E5B9L;
            }
        }
        final int[] t = table;
        final int mask = t.length - 1;
        int i = mix(x, length) & mask;
        while (true) {
            final int code = t[i];
            if (code < 0) {
                break;
            }
            if (heads[code] == head && lengths[code] == length && (length <= 8 || tailEquals(code, address, length))) {
                return code;
            }
            i = (i + 1) & mask;
        }
        return add(address, length, head, i);
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
        table[slot] = code;
        if (size * 2 > table.length) {
            rehash(table.length * 2);
        }
        return code;
    }

    private void rehash(final int capacity) {
        final int[] t = newTable(capacity);
        final int mask = capacity - 1;
        for (int code = 0; code < size; code++) {
            long x = heads[code];
            for (int i = 8; i < lengths[code]; i++) {
                x = (x + arena[offsets[code] + i]) * 0xBF58476D1CE4E5B9L;
            }
            int i = mix(x, lengths[code]) & mask;
            while (t[i] >= 0) {
                i = (i + 1) & mask;
            }
            t[i] = code;
        }
        table = t;
    }

    /** Mixes every input bit into the low bits (a plain multiply would leave the last bytes of short keys out). */
    private static int mix(final long key, final int length) {
        long h = (key + length) * 0x9E3779B97F4A7C15L;
        h ^= h >>> 32;
        h *= 0xBF58476D1CE4E5B9L;
        return (int) (h ^ (h >>> 29));
    }

    private static int[] newTable(final int capacity) {
        final int[] t = new int[capacity];
        Arrays.fill(t, -1);
        return t;
    }
}
