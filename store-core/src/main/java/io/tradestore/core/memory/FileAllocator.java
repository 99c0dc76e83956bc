package io.tradestore.core.memory;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;

import net.openhft.posix.PosixAPI;

/**
 * Gives a file real disk blocks before it is mapped, so that a full disk fails here, with a clear error, rather than
 * as SIGBUS when a mapped page is first written. Uses posix_fallocate through net.openhft:posix where it loaded; a
 * file system or platform without it falls back to a sparse {@code setLength}, and {@link #describe()} says so.
 * Tests replace the default to inject faults.
 */
public interface FileAllocator {
    /**
     * Creates or extends {@code path} to exactly {@code length} bytes with blocks reserved where the OS allows.
     *
     * @param path   the file.
     * @param length its size in bytes.
     * @throws IOException with the reason, for example "No space left on device".
     */
    void allocate(Path path, long length) throws IOException;

    /** @return how this allocator reserves blocks, for {@code info} output. */
    String describe();

    /** @return the allocator for this platform. */
    static FileAllocator platform() {
        return PosixFileAllocator.INSTANCE;
    }
}

/** posix_fallocate when the JNR implementation of net.openhft:posix loaded, otherwise a sparse file. */
final class PosixFileAllocator implements FileAllocator {
    static final PosixFileAllocator INSTANCE = new PosixFileAllocator();
    private static final int O_RDWR = 2;
    private final PosixAPI posix;
    private final boolean real;

    private PosixFileAllocator() {
        PosixAPI api;
        try {
            api = PosixAPI.posix();
        } catch (final Throwable t) {
            api = null;
        }
        posix = api;
        real = api != null && !api.getClass().getName().contains("NoOp") && !api.getClass().getName().contains(".raw.");
    }

    @Override
    public void allocate(final Path path, final long length) throws IOException {
        if (!real) {
            try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
                file.setLength(length);
            }
            return;
        }
        if (!java.nio.file.Files.exists(path)) {
            java.nio.file.Files.createFile(path);
        }
        // net.openhft.posix's OpenFlag carries BSD values (O_CREAT=512), wrong on Linux: create in Java, open O_RDWR (2
        // on every POSIX system).
        final int fd = posix.open(path.toString(), O_RDWR, 0);
        if (fd < 0) {
            throw new IOException("cannot open " + path + ": " + posix.lastErrorStr());
        }
        try {
            final int rc = posix.fallocate(fd, 0, 0, length);
            if (rc != 0) {
                final int errno = rc > 0 ? rc : posix.lastError();
                if (errno == 95) { // EOPNOTSUPP: the file system cannot reserve blocks; keep going with a sparse file
                    posix.ftruncate(fd, length);
                    return;
                }
                throw new IOException("cannot reserve " + length + " bytes for " + path + ": " + posix.strerror(errno));
            }
        } finally {
            posix.close(fd);
        }
    }

    @Override
    public String describe() {
        return real ? "posix_fallocate" : "sparse setLength (posix unavailable: a full disk may fault later)";
    }
}
