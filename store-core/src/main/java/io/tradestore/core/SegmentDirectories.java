package io.tradestore.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.segment.SegmentDescriptor;
import io.tradestore.core.segment.ZoneMapDescriptor;

/**
 * What a writer removes from a table directory beyond its last commit: segment directories no committed row needs
 * (their files were created at full size, so a load that failed, or was killed, on a small disk would otherwise leave
 * it full), and the derived files of a segment that is only partly committed.
 */
final class SegmentDirectories {
    private static final String PREFIX = "seg-";

    private SegmentDirectories() {
    }

    /**
     * Deletes every segment directory from {@code needed} on, and the files other than the data files and the zone map
     * in segment {@code firstPartial} when it is below {@code needed} (a segment not wholly committed). Derived files
     * (bitmap indexes) describe rows a writer may overwrite, and a crash with durability NONE can take the commit
     * record back into a segment that had been sealed and indexed, whose index would then be read for the rows that
     * refill it.
     *
     * @param tableDir     the table directory.
     * @param firstPartial the first segment not wholly committed.
     * @param needed       segments holding committed rows.
     * @throws StoreException when a file cannot be deleted (the writer does not open on a directory it cannot clear).
     */
    static void clearPastCommit(final Path tableDir, final int firstPartial, final int needed) {
        if (firstPartial < needed) {
            final Path sd = SegmentDescriptor.directory(tableDir, firstPartial);
            try (Stream<Path> files = Files.list(sd)) {
                for (final Path f : (Iterable<Path>) files::iterator) {
                    final String n = f.getFileName().toString();
                    if (!n.endsWith(SegmentDescriptor.COLUMN_SUFFIX) && !n.equals(ZoneMapDescriptor.FILE_NAME)) {
                        Files.deleteIfExists(f);
                    }
                }
            } catch (final IOException e) {
                throw new StoreException("cannot clear the derived files of segment " + sd + ": "
                    + StoreException.reason(e), e);
            }
        }
        for (final Path sd : from(tableDir, needed)) {
            try {
                delete(sd);
            } catch (final IOException e) {
                throw new StoreException("cannot delete segment " + sd + ", which holds no committed row: "
                    + StoreException.reason(e)
                    + "; delete it by hand", e);
            }
        }
    }

    /**
     * Deletes every segment directory from {@code first} on, as far as it can: what is left is deleted when the next
     * writer opens.
     *
     * @param tableDir the table directory.
     * @param first    the first segment to delete.
     */
    static void deleteQuietly(final Path tableDir, final int first) {
        try {
            for (final Path sd : from(tableDir, first)) {
                deleteQuietly(sd);
            }
        } catch (final StoreException e) {
            // the table directory cannot be listed: left for the next writer to open
        }
    }

    /**
     * Deletes one segment directory as far as it can: what is left is deleted when the next writer opens.
     *
     * @param segmentDir the segment directory.
     */
    static void deleteQuietly(final Path segmentDir) {
        try {
            delete(segmentDir);
        } catch (final IOException e) {
            // left for the next writer to open
        }
    }

    /**
     * Deletes the segment directories below {@code first}, which retention dropped: the files of a drop that a crash
     * interrupted after its commit, or of one just committed.
     *
     * @param tableDir the table directory.
     * @param first    the first segment kept.
     * @return how many segment directories were deleted.
     * @throws StoreException when one cannot be deleted (the drop is committed; the next writer retries).
     */
    static int deleteBelow(final Path tableDir, final int first) {
        int n = 0;
        for (final Path sd : from(tableDir, 0)) {
            if (index(sd.getFileName().toString()) < first) {
                try {
                    delete(sd);
                } catch (final IOException e) {
                    throw new StoreException("cannot delete segment " + sd + ", which retention dropped: "
                        + StoreException.reason(e) + "; the next writer of the table retries", e);
                }
                n++;
            }
        }
        if (n > 0) {
            MappedFile.syncDirectory(tableDir);
        }
        return n;
    }

    /**
     * @return the segment directories of a table from index {@code first} on (a crash may leave gaps, so the directory
     * is listed).
     */
    private static List<Path> from(final Path tableDir, final int first) {
        final List<Path> found = new ArrayList<>();
        try (Stream<Path> entries = Files.list(tableDir)) {
            for (final Path p : (Iterable<Path>) entries::iterator) {
                final int index = index(p.getFileName().toString());
                if (index >= first && Files.isDirectory(p)) {
                    found.add(p);
                }
            }
        } catch (final IOException e) {
            throw new StoreException("cannot list table directory " + tableDir + ": " + StoreException.reason(e), e);
        }
        return found;
    }

    /** @return the index of a segment directory's name ({@code seg-000012}), or -1 for any other name. */
    private static int index(final String name) {
        if (!name.startsWith(PREFIX) || name.length() == PREFIX.length() || name.length() > PREFIX.length() + 9) {
            return -1;
        }
        for (int i = PREFIX.length(); i < name.length(); i++) {
            if (name.charAt(i) < '0' || name.charAt(i) > '9') {
                return -1;
            }
        }
        return Integer.parseInt(name.substring(PREFIX.length()));
    }

    private static void delete(final Path segmentDir) throws IOException {
        try (Stream<Path> files = Files.list(segmentDir)) {
            for (final Path f : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(f);
            }
        }
        Files.deleteIfExists(segmentDir);
    }
}
