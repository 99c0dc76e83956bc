package io.tradestore.query.index;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.roaringbitmap.BatchIterator;

/**
 * Reads a Roaring bitmap in its portable serialized form, as mapped from an index file, in batches without creating
 * any object per container. {@code ImmutableRoaringBitmap}'s iterator makes a container object and two buffer views
 * for each container it visits; a client's rows touch ~64 containers per segment, so a selective query made ~2,000
 * short-lived objects, which at thousands of queries a second turned into frequent young collections.
 *
 * <pre>
 * cookie (int32): 12346, then size (int32)            | 12347 | (size - 1) << 16, then a run-flag bit per container
 * size x (key uint16, cardinality - 1 uint16)
 * offsets (size x int32): always without runs; with runs only when size >= 4  (not needed: containers are read in
 * order) containers in key order: array (cardinality x uint16) | bitmap (1024 x uint64) | run (count uint16, count x
 * (start, length - 1))
 * </pre>
 */
final class PortableBitmapIterator implements BatchIterator {
    private static final int SERIAL_COOKIE_NO_RUNCONTAINER = 12346;
    private static final int SERIAL_COOKIE = 12347;
    private static final int NO_OFFSET_THRESHOLD = 4;
    private static final int ARRAY_MAX = 4096;
    private static final int BITMAP_LENGTH = 8192;
    private static final int ARRAY = 0;
    private static final int BITMAP = 1;
    private static final int RUN = 2;

    private final ByteBuffer b;
    private final int size;
    /** Byte offset of the run flags, or -1 when the bitmap has no run containers. */
    private final int runFlags;
    private final int headers;
    /** The current container: index, key (high 16 bits), kind, cardinality, byte offset of its data. */
    private int container;
    private int high;
    private int kind;
    private int cardinality;
    private int data;
    /** Position inside the container: array index, bitmap word index, or run index. */
    private int at;
    /** Bitmap: bits of the current word not yet returned. Run: next value of the current run and its last value. */
    private long word;
    private int runNext;
    private int runLast;

    /** @param serialized the bitmap's bytes from position 0 (little-endian portable format). */
    PortableBitmapIterator(final ByteBuffer serialized) {
        this.b = serialized.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        final int cookie = b.getInt(0);
        final int offsetsBytes;
        if ((cookie & 0xFFFF) == SERIAL_COOKIE) {
            size = (cookie >>> 16) + 1;
            runFlags = 4;
            headers = runFlags + (size + 7) / 8;
            offsetsBytes = size >= NO_OFFSET_THRESHOLD ? 4 * size : 0;
        } else if (cookie == SERIAL_COOKIE_NO_RUNCONTAINER) {
            size = b.getInt(4);
            runFlags = -1;
            headers = 8;
            offsetsBytes = 4 * size;
        } else {
            throw new IllegalStateException("not a portable Roaring bitmap: cookie=" + cookie);
        }
        container = -1;
        data = headers + 4 * size + offsetsBytes;
        cardinality = 0;
        kind = ARRAY;
        nextContainer();
    }

    private PortableBitmapIterator(final PortableBitmapIterator o) {
        b = o.b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        size = o.size;
        runFlags = o.runFlags;
        headers = o.headers;
        container = o.container;
        high = o.high;
        kind = o.kind;
        cardinality = o.cardinality;
        data = o.data;
        at = o.at;
        word = o.word;
        runNext = o.runNext;
        runLast = o.runLast;
    }

    /** @return the byte length of the current container's data. */
    private int dataLength() {
        switch (kind) {
            case ARRAY:
                return 2 * cardinality;
            case BITMAP:
                return BITMAP_LENGTH;
            default:
                return 2 + 4 * b.getChar(data);
        }
    }

    /** Moves to the next container (or past the last) and to its first value. */
    private void nextContainer() {
        if (container >= 0) {
            data += dataLength();
        }
        container++;
        if (container >= size) {
            return;
        }
        high = b.getChar(headers + 4 * container) << 16;
        cardinality = b.getChar(headers + 4 * container + 2) + 1;
        final boolean run = runFlags >= 0 && (b.get(runFlags + container / 8) & 1 << (container % 8)) != 0;
        kind = run ? RUN : cardinality > ARRAY_MAX ? BITMAP : ARRAY;
        at = 0;
        if (kind == BITMAP) {
            word = b.getLong(data);
        } else if (kind == RUN) {
            runNext = b.getChar(data + 2);
            runLast = runNext + b.getChar(data + 4);
        }
    }

    @Override
    public boolean hasNext() {
        return container < size;
    }

    @Override
    public int nextBatch(final int[] buffer) {
        int n = 0;
        while (n < buffer.length && container < size) {
            switch (kind) {
                case ARRAY:
                    while (n < buffer.length && at < cardinality) {
                        buffer[n++] = high | b.getChar(data + 2 * at++);
                    }
                    if (at == cardinality) {
                        nextContainer();
                    }
                    break;
                case BITMAP:
                    while (n < buffer.length) {
                        if (word == 0) {
                            if (++at == BITMAP_LENGTH / 8) {
                                break;
                            }
                            word = b.getLong(data + 8 * at);
                            continue;
                        }
                        buffer[n++] = high | at << 6 | Long.numberOfTrailingZeros(word);
                        word &= word - 1;
                    }
                    if (at == BITMAP_LENGTH / 8) {
                        nextContainer();
                    }
                    break;
                default:
                    final int runs = b.getChar(data);
                    while (n < buffer.length && at < runs) {
                        buffer[n++] = high | runNext;
                        if (runNext++ == runLast && ++at < runs) {
                            runNext = b.getChar(data + 2 + 4 * at);
                            runLast = runNext + b.getChar(data + 4 + 4 * at);
                        }
                    }
                    if (at == runs) {
                        nextContainer();
                    }
                    break;
            }
        }
        return n;
    }

    @Override
    public void advanceIfNeeded(final int target) {
        final int key = target >>> 16;
        while (container < size && high >>> 16 < key) {
            nextContainer();
        }
        if (container >= size || high >>> 16 > key) {
            return;
        }
        final int low = target & 0xFFFF;
        switch (kind) {
            case ARRAY:
                while (at < cardinality && b.getChar(data + 2 * at) < low) {
                    at++;
                }
                if (at == cardinality) {
                    nextContainer();
                }
                break;
            case BITMAP:
                final int w = low >>> 6;
                if (w > at) {
                    at = w;
                    word = b.getLong(data + 8 * at);
                }
                if (w == at) {
                    word &= -1L << (low & 63);
                }
                while (word == 0 && ++at < BITMAP_LENGTH / 8) {
                    word = b.getLong(data + 8 * at);
                }
                if (at == BITMAP_LENGTH / 8) {
                    nextContainer();
                }
                break;
            default:
                final int runs = b.getChar(data);
                while (at < runs && runLast < low) {
                    if (++at < runs) {
                        runNext = b.getChar(data + 2 + 4 * at);
                        runLast = runNext + b.getChar(data + 4 + 4 * at);
                    }
                }
                if (at == runs) {
                    nextContainer();
                } else if (runNext < low) {
                    runNext = low;
                }
                break;
        }
    }

    @Override
    public BatchIterator clone() {
        return new PortableBitmapIterator(this);
    }
}
