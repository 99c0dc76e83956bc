package io.tradestore.core;

import java.util.Map;
import java.util.WeakHashMap;

import io.tradestore.core.memory.NativeMemory;

/**
 * The flyweights bound to a writer, re-pointed ({@link Flyweight#refresh()}) whenever rows they may point at move
 * between the staging area and the files; weakly held, so a dropped flyweight is forgotten. Also the scratch row where
 * a flyweight left on a row of a deleted segment points until it moves.
 */
final class AttachedFlyweights {
    private final RecordAccess owner;
    private final int columns;
    private final Map<Flyweight, Boolean> attached = new WeakHashMap<>();
    /** The scratch row (a long per column), or 0 before the first is needed. */
    private long detachedRow;

    AttachedFlyweights(final RecordAccess owner, final int columns) {
        this.owner = owner;
        this.columns = columns;
    }

    /** Binds a flyweight (weakly). */
    void add(final Flyweight flyweight) {
        attached.put(flyweight, Boolean.TRUE);
    }

    /**
     * Re-points every flyweight still bound to the owner.
     *
     * @param except a flyweight that is about to be positioned anyway (the appender), or null.
     */
    void refresh(final Flyweight except) {
        if (attached.isEmpty()) {
            return;
        }
        for (final Flyweight f : attached.keySet()) {
            if (f != except && f.access() == owner) {
                f.refresh();
            }
        }
    }

    /** @return the address of a column's value in the scratch row, allocated the first time a flyweight needs it. */
    long detachedAddress(final int column) {
        if (detachedRow == 0) {
            detachedRow = NativeMemory.allocate((long) columns * Long.BYTES);
        }
        return detachedRow + (long) column * Long.BYTES;
    }

    /** Re-points the flyweights a last time (they see the owner closed), forgets them and frees the scratch row. */
    void close() {
        try {
            refresh(null);
        } finally {
            attached.clear();
            if (detachedRow != 0) {
                NativeMemory.free(detachedRow, (long) columns * Long.BYTES);
                detachedRow = 0;
            }
        }
    }
}
