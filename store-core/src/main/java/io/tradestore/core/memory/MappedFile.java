package io.tradestore.core.memory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;

import io.tradestore.core.StoreException;
import net.openhft.chronicle.core.OS;
import net.openhft.posix.MSyncFlag;
import net.openhft.posix.PosixAPI;

/**
 * One file mapped once, at its full size, with chronicle-core's {@code OS.map}; unmapped exactly once by
 * {@link #close()}. The file is never grown or remapped while mapped, so an address handed out stays valid until
 * close.
 */
public final class MappedFile implements AutoCloseable {
    private static final AtomicLong MAPPED_BYTES = new AtomicLong();
    private static final AtomicLong MAPPING_COUNT = new AtomicLong();
    /** madvise advice: populate page tables writable (prefault), Linux 5.14+; EINVAL on older kernels. */
    private static final int MADV_POPULATE_WRITE = 23;
    private static final boolean POPULATE_WRITE_TRIED = msyncAvailable() && System.getProperty("os.name", "")
        .startsWith("Linux");
    private static final int EINVAL = 22;
    /**
     * Set once the call has failed (a kernel before 5.14 answers EINVAL every time): later calls go straight to the
     * reads.
     */
    private static volatile boolean populateWriteFailed;

    /** Only the JNR implementation is known to pass open/lseek/write through with Linux's flag values. */
    private static final boolean WRITE_AVAILABLE = POPULATE_WRITE_TRIED && PosixAPI.posix().getClass().getName()
        .contains(".jnr.");
    /** fallocate(2) mode FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE (Linux). */
    private static final int FALLOC_PUNCH_HOLE_KEEP_SIZE = 3;
    /** open(2) flag O_WRONLY on Linux (net.openhft.posix's OpenFlag carries BSD values). */
    private static final int O_WRONLY = 1;
    /**
     * lseek(2) whence SEEK_SET on Linux (net.openhft.posix's WhenceFlag.SEEK_SET has the value 1, which is SEEK_CUR).
     */
    private static final int SEEK_SET = 0;

    /** Keeps the fallback's page reads from being optimised away. */
    private static volatile long touchSink;

    private final Path path;
    private final long length;
    private final boolean writable;
    /** Bytes {@link #populate} was asked to fault in (the writer's and the background thread's calls). */
    private final AtomicLong populated = new AtomicLong();
    private long address;
    /**
     * A descriptor for {@link #write} and {@link #punchFrom}, opened on its first use and closed with the mapping; -1
     * when not open.
     */
    private int writeFd = -1;
    /**
     * The file offset of {@link #writeFd} after the last {@link #write}, so that sequential writes skip lseek; -1 when
     * unknown.
     */
    private long writePosition = -1;

    private MappedFile(final Path path, final long length, final boolean writable, final long address) {
        this.path = path;
        this.length = length;
        this.writable = writable;
        this.address = address;
    }

    /**
     * Creates {@code path} with blocks for {@code length} bytes and maps it read-write.
     *
     * @param path      the new file (an existing one is resized).
     * @param length    its full size.
     * @param allocator how blocks are reserved.
     * @return the mapping.
     */
    public static MappedFile create(final Path path, final long length, final FileAllocator allocator) {
        try {
            allocator.allocate(path, length);
        } catch (final IOException e) {
            throw new StoreException("cannot create " + path + " (" + length + " bytes): " + StoreException.reason(e)
                + "; free disk space or choose a smaller segmentRows", e);
        }
        return map(path, length, true);
    }

    /**
     * Maps an existing file whose size must be at least {@code length}.
     *
     * @param path     the file.
     * @param length   bytes to map.
     * @param writable whether to map read-write.
     * @return the mapping.
     */
    public static MappedFile open(final Path path, final long length, final boolean writable) {
        final long size;
        try {
            size = Files.size(path);
        } catch (final NoSuchFileException e) {
            throw new StoreException("missing file " + path);
        } catch (final IOException e) {
            throw new StoreException("cannot read " + path + ": " + StoreException.reason(e), e);
        }
        if (size < length) {
            throw new StoreException("truncated file " + path + ": size=" + size + " expected=" + length);
        }
        return map(path, length, writable);
    }

    private static MappedFile map(final Path path, final long length, final boolean writable) {
        final StandardOpenOption[] options = writable
            ? new StandardOpenOption[] {StandardOpenOption.READ, StandardOpenOption.WRITE}
            : new StandardOpenOption[] {StandardOpenOption.READ};
        try (FileChannel channel = FileChannel.open(path, options)) {
            final long address =
                OS.map(channel, writable ? FileChannel.MapMode.READ_WRITE : FileChannel.MapMode.READ_ONLY,
                0, length);
            MAPPED_BYTES.addAndGet(length);
            MAPPING_COUNT.incrementAndGet();
            return new MappedFile(path, length, writable, address);
        } catch (final IOException | RuntimeException e) {
            throw new StoreException("cannot map " + path + ": " + StoreException.reason(e), e);
        }
    }

    /** @return the address of the first byte; valid until {@link #close()}. */
    public long address() {
        return address;
    }

    /** @return the mapped length in bytes. */
    public long length() {
        return length;
    }

    /** @return the file. */
    public Path path() {
        return path;
    }

    /** @return whether the mapping is writable. */
    public boolean writable() {
        return writable;
    }

    /**
     * Writes dirty pages in {@code [offset, offset + bytes)} to disk and waits (msync MS_SYNC).
     *
     * @param offset first byte, relative to the start of the file.
     * @param bytes  number of bytes.
     */
    public void sync(final long offset, final long bytes) {
        if (bytes <= 0) {
            return;
        }
        final long page = OS.pageSize();
        final long start = offset & -page;
        final long end = Math.min(length, offset + bytes);
        final int rc = PosixAPI.posix().msync(address + start, end - start, MSyncFlag.MS_SYNC);
        if (rc != 0) {
            throw new StoreException("msync failed for " + path + ": " + PosixAPI.posix().lastErrorStr());
        }
    }

    /**
     * Faults the pages of {@code [offset, offset + bytes)} of a writable mapping in, so that later writes there take
     * no page faults: {@code madvise(MADV_POPULATE_WRITE)} (Linux 5.14+), which fills the page tables in the kernel in
     * one call instead of one trap per 4 KiB page. Content is never changed, so another thread may write the same
     * range at the same time (the writer does, while the background thread pre-faults ahead of it). Where the call is
     * unavailable, one byte per page is read instead (that maps the page and allocates its page cache; the first write
     * then only upgrades the mapping). Blocks are reserved before a file is mapped ({@link FileAllocator}), so this
     * cannot fail for lack of space; a failure of the call is ignored: the pages are then faulted by the writes.
     *
     * @param offset first byte, relative to the start of the file (rounded down to a page).
     * @param bytes  number of bytes (rounded up to whole pages, within the file).
     */
    public void populate(final long offset, final long bytes) {
        if (!writable || address == 0 || bytes <= 0 || offset >= length) {
            return;
        }
        final long page = OS.pageSize();
        final long start = Math.max(0, offset) & -page;
        final long end = Math.min(OS.pageAlign(length), OS.pageAlign(offset + bytes));
        populated.addAndGet(end - start);
        if (POPULATE_WRITE_TRIED && !populateWriteFailed) {
            if (PosixAPI.posix().madvise(address + start, end - start, MADV_POPULATE_WRITE) == 0) {
                return;
            }
            // EINVAL: the kernel does not know the advice (before 5.14), and never will; other errors may pass
            populateWriteFailed = PosixAPI.posix().lastError() == EINVAL;
        }
        // A read, never a write back of the byte read: a concurrent writer's store to the same byte must not be undone.
        long sink = 0;
        for (long p = start; p < end; p += page) {
            sink += NativeMemory.getByte(address + p);
        }
        touchSink = sink;
    }

    /**
     * Copies bytes from native memory into the file with write(2) instead of stores through the mapping. The bytes land
     * in the same page cache, so the mapping (and every reader's) sees them as soon as this returns, and a crash leaves
     * the file as stores would have. What differs is the kernel's work: a page the write covers whole is allocated
     * without being zero-filled first, no page-table entry of this process is made for it, and the later writeback of
     * a page never mapped writable needs no write-protect and TLB shootdown (an interrupt of every CPU running this
     * process, per page). Only where {@link #writeAvailable()}.
     *
     * @param offset first byte of the file to write.
     * @param src    native address of the bytes.
     * @param bytes  how many.
     */
    public void write(final long offset, final long src, final long bytes) {
        if (!writable || address == 0) {
            throw new StoreException("cannot write " + path + ": " + (address == 0 ? "closed" : "mapped read-only"));
        }
        if (offset < 0 || bytes < 0 || offset > length - bytes) {
            throw new StoreException("write outside " + path + ": offset=" + offset + " bytes=" + bytes + " length="
                + length);
        }
        if (bytes == 0) {
            return;
        }
        final PosixAPI posix = PosixAPI.posix();
        openWriteFd();
        if (writePosition != offset) {
            if (posix.lseek(writeFd, offset, SEEK_SET) != offset) {
                throw new StoreException("cannot seek in " + path + " to " + offset + ": " + posix.lastErrorStr());
            }
        }
        writePosition = -1;
        long done = 0;
        while (done < bytes) {
            final long n = posix.write(writeFd, src + done, bytes - done);
            if (n <= 0) {
                throw new StoreException("cannot write " + path + " at offset " + (offset + done) + ": "
                    + (n < 0 ? posix.lastErrorStr() : "nothing written"));
            }
            done += n;
        }
        // appends write each file's rows in order: the next write usually starts here and needs no lseek
        writePosition = offset + bytes;
    }

    /**
     * Gives back the disk blocks of the file from {@code offset} (rounded up to a page) to its end, keeping its length:
     * those bytes read as zeros afterwards, in every mapping. Best effort: false where the OS or file system cannot.
     *
     * @param offset the first byte not needed any more.
     * @return whether the blocks were freed.
     */
    public boolean punchFrom(final long offset) {
        return fallocateFrom(offset, FALLOC_PUNCH_HOLE_KEEP_SIZE);
    }

    /**
     * Reserves the disk blocks of the file from {@code offset} (rounded up to a page) to its end again after {@link
     * #punchFrom}, so that stores there cannot fault on a full disk. Best effort, as that is.
     *
     * @param offset the first byte needed again.
     * @return whether the blocks were reserved.
     */
    public boolean reserveFrom(final long offset) {
        return fallocateFrom(offset, 0);
    }

    private boolean fallocateFrom(final long offset, final int mode) {
        if (!writable || address == 0 || !WRITE_AVAILABLE) {
            return false;
        }
        final long page = OS.pageSize();
        final long start = (offset + page - 1) & -page;
        if (start >= length) {
            return true;
        }
        try {
            openWriteFd();
        } catch (final StoreException e) {
            return false;
        }
        return PosixAPI.posix().fallocate(writeFd, mode, start, length - start) == 0;
    }

    /** Opens {@link #writeFd} unless it is open. */
    private void openWriteFd() {
        if (writeFd < 0) {
            final PosixAPI posix = PosixAPI.posix();
            final int fd = posix.open(path.toString(), O_WRONLY, 0);
            if (fd < 0) {
                throw new StoreException("cannot open " + path + " for writing: " + posix.lastErrorStr());
            }
            writeFd = fd;
        }
    }

    /**
     * @return whether {@link #write} reaches the OS (Linux, with the JNR implementation of net.openhft:posix loaded).
     */
    public static boolean writeAvailable() {
        return WRITE_AVAILABLE;
    }

    /**
     * Forces a directory's entries (new files, renames) to disk, so that files created before a durable commit are
     * found after a power loss. A file system that cannot sync directories is ignored.
     *
     * @param directory the directory.
     */
    public static void syncDirectory(final Path directory) {
        try (FileChannel ch = FileChannel.open(directory, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (final IOException e) {
            throw new StoreException("cannot sync directory " + directory + ": " + StoreException.reason(e), e);
        } catch (final UnsupportedOperationException e) {
            // not every file system can open a directory for reading; nothing more can be done there
        }
    }

    /** @return whether msync reaches the OS (false when net.openhft:posix fell back to its no-op implementation). */
    public static boolean msyncAvailable() {
        final String name = PosixAPI.posix().getClass().getName();
        return !name.contains("NoOp");
    }

    /** Unmaps the file; idempotent. */
    @Override
    public void close() {
        if (address == 0) {
            return;
        }
        final long a = address;
        address = 0;
        if (writeFd >= 0) {
            PosixAPI.posix().close(writeFd);
            writeFd = -1;
        }
        try {
            OS.unmap(a, length);
        } catch (final IOException e) {
            throw new StoreException("cannot unmap " + path + ": " + StoreException.reason(e), e);
        } finally {
            MAPPED_BYTES.addAndGet(-length);
            MAPPING_COUNT.decrementAndGet();
        }
    }

    /** @return bytes of this mapping {@link #populate} was asked to fault in so far. */
    public long populatedBytes() {
        return populated.get();
    }

    /** @return bytes currently mapped by tradestore. */
    public static long mappedBytes() {
        return MAPPED_BYTES.get();
    }

    /** @return mappings currently live. */
    public static long mappingCount() {
        return MAPPING_COUNT.get();
    }
}
