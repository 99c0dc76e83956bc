package io.tradestore.core.ingest.line;

import java.util.Arrays;

/**
 * A request's private symbol table for one column: byte strings to local codes in first-appearance order, by open
 * addressing. Lines are parsed into local codes without the table's writer; the codes are interned into the table's
 * dictionary, in order, when the request's rows are appended ({@link LineRows#appendTo}).
 */
final class RequestSymbols {
    private byte[] arena = new byte[256];
    private int arenaLength;
    private int[] offsets = new int[16];
    private int[] lengths = new int[16];
    private int[] hashes = new int[16];
    private int size;
    /** Code + 1 per slot, 0 when free; at most half full. */
    private int[] slots = new int[32];

    /** @return distinct strings so far. */
    int size() {
        return size;
    }

    /** @return the bytes of every string, back to back. */
    byte[] arena() {
        return arena;
    }

    /** @param code a local code. @return where its bytes start in {@link #arena()}. */
    int offset(final int code) {
        return offsets[code];
    }

    /** @param code a local code. @return how many bytes it has. */
    int length(final int code) {
        return lengths[code];
    }

    /**
     * Returns the local code of a byte string, adding it if new.
     *
     * @param b      the bytes.
     * @param start  first byte.
     * @param length byte count.
     * @return the local code.
     */
    int intern(final byte[] b, final int start, final int length) {
        int h = length;
        for (int i = start, end = start + length; i < end; i++) {
            h = 31 * h + b[i];
        }
        h ^= h >>> 16;
        final int mask = slots.length - 1;
        for (int slot = h & mask;; slot = (slot + 1) & mask) {
            final int entry = slots[slot];
            if (entry == 0) {
                return add(b, start, length, h, slot);
            }
            final int code = entry - 1;
            if (hashes[code] == h && Arrays.equals(arena, offsets[code], offsets[code] + lengths[code], b, start,
                start + length)) {
                return code;
            }
        }
    }

    private int add(final byte[] b, final int start, final int length, final int hash, final int slot) {
        final int code = size++;
        if (code == offsets.length) {
            offsets = Arrays.copyOf(offsets, code * 2);
            lengths = Arrays.copyOf(lengths, code * 2);
            hashes = Arrays.copyOf(hashes, code * 2);
        }
        if (arenaLength + length > arena.length) {
            arena = Arrays.copyOf(arena, Math.max(arena.length * 2, arenaLength + length));
        }
        System.arraycopy(b, start, arena, arenaLength, length);
        offsets[code] = arenaLength;
        lengths[code] = length;
        hashes[code] = hash;
        arenaLength += length;
        slots[slot] = code + 1;
        if (size * 2 > slots.length) {
            rehash();
        }
        return code;
    }

    private void rehash() {
        slots = new int[slots.length * 2];
        final int mask = slots.length - 1;
        for (int code = 0; code < size; code++) {
            int slot = hashes[code] & mask;
            while (slots[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            slots[slot] = code + 1;
        }
    }
}
