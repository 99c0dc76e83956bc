package io.tradestore.core;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one-writer rule of a table: an OS file lock on its lock file, which refuses a second writer in another process,
 * and a set of the lock files held in this JVM, checked before the file is opened: closing any channel of a file drops
 * the process's POSIX lock on it, so a refused second writer in this JVM must never open (and close) the file.
 */
final class WriterLock {
    /** Lock files (real paths) whose writer is open in this JVM. */
    private static final Set<Path> HELD_LOCKS = ConcurrentHashMap.newKeySet();
    private final Path lockPath;
    private final FileChannel channel;
    private final FileLock lock;

    private WriterLock(final Path lockPath, final FileChannel channel, final FileLock lock) {
        this.lockPath = lockPath;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the writer lock of a table.
     *
     * @param dir   the table directory.
     * @param table the table name, for messages.
     * @return the lock, held until {@link #release()}.
     * @throws StoreException when another writer holds it, in this process or another, or the file cannot be opened.
     */
    static WriterLock acquire(final Path dir, final String table) {
        final Path lockPath = lockKey(dir.resolve(TableFiles.LOCK));
        if (!HELD_LOCKS.add(lockPath)) {
            throw new TableLockedException("table '" + table + "' already has a writer in this process (lock "
                + lockPath + " is held); only one writer per table, in any process");
        }
        FileChannel ch = null;
        FileLock l = null;
        try {
            ch = FileChannel.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            l = ch.tryLock();
        } catch (final OverlappingFileLockException e) {
            l = null;
        } catch (final IOException e) {
            closeQuietly(ch);
            HELD_LOCKS.remove(lockPath);
            throw new StoreException("cannot open writer lock " + lockPath + ": " + StoreException.reason(e), e);
        }
        if (l == null) {
            closeQuietly(ch);
            HELD_LOCKS.remove(lockPath);
            throw new TableLockedException("table '" + table + "' already has a writer (lock " + lockPath
                + " is held by another process); only one writer per table, in any process");
        }
        return new WriterLock(lockPath, ch, l);
    }

    /** Releases the lock; closing the channel releases it too, so a failed release is not an error. */
    void release() {
        try {
            lock.release();
        } catch (final IOException e) {
            // closing the channel releases it too
        }
        closeQuietly(channel);
        HELD_LOCKS.remove(lockPath);
    }

    private static Path lockKey(final Path lockFile) {
        try {
            return lockFile.getParent().toRealPath().resolve(lockFile.getFileName());
        } catch (final IOException e) {
            return lockFile.toAbsolutePath().normalize();
        }
    }

    private static void closeQuietly(final FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (final IOException e) {
                // nothing more to release
            }
        }
    }
}
