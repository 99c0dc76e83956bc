package io.tradestore.core.memory;

import java.util.concurrent.atomic.AtomicLong;

import net.openhft.chronicle.core.Memory;
import net.openhft.chronicle.core.OS;
import net.openhft.chronicle.core.UnsafeMemory;

/**
 * All raw memory access of tradestore goes through this class, so that a move to the FFM API touches one file.
 * Nothing here checks bounds: callers check at their public entry points. Allocations are accounted so that tests can
 * assert that closing a store leaves nothing behind.
 */
public final class NativeMemory {
    private static final Memory MEMORY = OS.memory();
    private static final UnsafeMemory UNSAFE = UnsafeMemory.INSTANCE;
    private static final AtomicLong ALLOCATED_BYTES = new AtomicLong();
    private static final AtomicLong ALLOCATION_COUNT = new AtomicLong();
    /**
     * 64 zero bytes, never freed and not accounted: where an unpositioned flyweight points, so that a getter called
     * before {@code wrap} reads zero instead of faulting.
     */
    public static final long SCRATCH_ADDRESS = scratch();

    private NativeMemory() {
    }

    private static long scratch() {
        final long a = MEMORY.allocate(64);
        MEMORY.setMemory(a, 64, (byte) 0);
        return a;
    }

    /**
     * Allocates zeroed native memory.
     *
     * @param length the number of bytes.
     * @return the address of the first byte.
     */
    public static long allocate(final long length) {
        if (length <= 0) {
            throw new IllegalArgumentException("length=" + length + " must be positive");
        }
        final long address = MEMORY.allocate(length);
        MEMORY.setMemory(address, length, (byte) 0);
        ALLOCATED_BYTES.addAndGet(length);
        ALLOCATION_COUNT.incrementAndGet();
        return address;
    }

    /**
     * Frees memory from {@link #allocate(long)}.
     *
     * @param address the address returned by allocate.
     * @param length  the length that was allocated.
     */
    public static void free(final long address, final long length) {
        MEMORY.freeMemory(address, length);
        ALLOCATED_BYTES.addAndGet(-length);
        ALLOCATION_COUNT.decrementAndGet();
    }

    /** @return bytes currently allocated through this class. */
    public static long allocatedBytes() {
        return ALLOCATED_BYTES.get();
    }

    /** @return allocations currently live. */
    public static long allocationCount() {
        return ALLOCATION_COUNT.get();
    }

    /** @param address where to read. @return the byte there. */
    public static byte getByte(final long address) {
        return UnsafeMemory.unsafeGetByte(address);
    }

    /** @param address where to read. @return the short there. */
    public static short getShort(final long address) {
        return UnsafeMemory.unsafeGetShort(null, address);
    }

    /** @param address where to read. @return the int there. */
    public static int getInt(final long address) {
        return UnsafeMemory.unsafeGetInt(address);
    }

    /** @param address where to read. @return the long there. */
    public static long getLong(final long address) {
        return UnsafeMemory.unsafeGetLong(address);
    }

    /** @param address where to read. @return the double there. */
    public static double getDouble(final long address) {
        return UnsafeMemory.unsafeGetDouble(null, address);
    }

    /**
     * Reads a signed integral value of a given width, sign-extended to a long (doubles: their raw bits).
     *
     * @param address where to read.
     * @param width   1, 2, 4 or 8 bytes.
     * @return the value.
     */
    public static long getSigned(final long address, final int width) {
        switch (width) {
            case 8:
                return getLong(address);
            case 4:
                return getInt(address);
            case 2:
                return getShort(address);
            default:
                return getByte(address);
        }
    }

    /** @param address where to write. @param value the byte. */
    public static void putByte(final long address, final byte value) {
        UnsafeMemory.unsafePutByte(address, value);
    }

    /** @param address where to write. @param value the short. */
    public static void putShort(final long address, final short value) {
        UnsafeMemory.unsafePutShort(null, address, value);
    }

    /** @param address where to write. @param value the int. */
    public static void putInt(final long address, final int value) {
        UnsafeMemory.unsafePutInt(address, value);
    }

    /** @param address where to write. @param value the long. */
    public static void putLong(final long address, final long value) {
        UnsafeMemory.unsafePutLong(address, value);
    }

    /** @param address where to write. @param value the double. */
    public static void putDouble(final long address, final double value) {
        UnsafeMemory.unsafePutDouble(null, address, value);
    }

    /** @param address an 8-byte aligned address. @return the long there, read with volatile semantics. */
    public static long getLongVolatile(final long address) {
        return UNSAFE.readVolatileLong(address);
    }

    /** @param address an 8-byte aligned address. @param value the long, written with release semantics. */
    public static void putLongOrdered(final long address, final long value) {
        UNSAFE.writeOrderedLong(address, value);
    }

    /** Orders all earlier stores before all later stores. */
    public static void storeFence() {
        UNSAFE.storeFence();
    }

    /** Orders all earlier loads before all later loads. */
    public static void loadFence() {
        UNSAFE.loadFence();
    }

    /**
     * Copies bytes between native addresses.
     *
     * @param from   source address.
     * @param to     destination address.
     * @param length bytes to copy.
     */
    public static void copy(final long from, final long to, final long length) {
        UNSAFE.copyMemory(from, to, length);
    }

    /**
     * Copies bytes from a heap array into native memory.
     *
     * @param from       source array.
     * @param fromOffset first index in the array.
     * @param to         destination address.
     * @param length     bytes to copy.
     */
    public static void copy(final byte[] from, final int fromOffset, final long to, final int length) {
        UNSAFE.copyMemory(from, fromOffset, to, length);
    }

    /**
     * Fills memory with one byte value.
     *
     * @param address first byte.
     * @param length  bytes to fill.
     * @param value   the byte.
     */
    public static void fill(final long address, final long length, final byte value) {
        UNSAFE.setMemory(address, length, value);
    }

    /**
     * Contiguous fills of a pattern that is not one byte repeated copy it onto itself, doubling, from this size on (a
     * staging window's i64 null fill).
     */
    private static final long DOUBLING_FILL_BYTES = 1024;

    /**
     * Fills {@code count} elements of {@code width} bytes, {@code stride} apart, with the low bytes of {@code value}.
     *
     * @param address first element.
     * @param count   number of elements.
     * @param stride  distance between elements in bytes.
     * @param width   element width: 1, 2, 4 or 8.
     * @param value   the pattern (for doubles, the raw bits).
     */
    public static void fillPattern(final long address, final long count, final int stride, final int width,
        final long value) {
        if (stride == width && (value == 0 || isByteRepeat(value, width))) {
            fill(address, count * width, (byte) value);
            return;
        }
        if (stride == width && count * width >= DOUBLING_FILL_BYTES) {
            // the first 64 bytes element by element (below, width checked there), then the filled prefix copied after
            // itself, doubling, so that the bulk goes through the JVM's copy stubs instead of one store per element
            fillPattern(address, 64 / width, width, width, value);
            final long length = count * width;
            long filled = 64;
            while (filled < length) {
                final long n = Math.min(filled, length - filled);
                UNSAFE.copyMemory(address, address + filled, n);
                filled += n;
            }
            return;
        }
        long a = address;
        switch (width) {
            case 1:
                for (long i = 0; i < count; i++, a += stride) putByte(a, (byte) value);
                break;
            case 2:
                for (long i = 0; i < count; i++, a += stride) putShort(a, (short) value);
                break;
            case 4:
                for (long i = 0; i < count; i++, a += stride) putInt(a, (int) value);
                break;
            case 8:
                for (long i = 0; i < count; i++, a += stride) putLong(a, value);
                break;
            default:
                throw new IllegalArgumentException("width=" + width);
        }
    }

    private static boolean isByteRepeat(final long value, final int width) {
        final long b = value & 0xFF;
        long repeated = 0;
        for (int i = 0; i < width; i++) {
            repeated |= b << (8 * i);
        }
        final long mask = width == 8 ? -1L : (1L << (8 * width)) - 1;
        return (value & mask) == repeated;
    }
}
