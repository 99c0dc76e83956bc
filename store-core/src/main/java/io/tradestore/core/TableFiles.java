package io.tradestore.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

import io.tradestore.core.dict.SymbolDictionaryDescriptor;
import io.tradestore.core.schema.Column;

/** Names of the files in a table directory. */
final class TableFiles {
    static final String SCHEMA = "_schema.json";
    static final String LOCK = "_lock";
    /** Suffix of the scratch directory a table is built in before it is renamed into place. */
    static final String CREATING_SUFFIX = ".creating";
    /** Suffix of a dropped table's directory, renamed out of the table namespace before its files are deleted. */
    static final String DROPPED_SUFFIX = ".dropped";

    private TableFiles() {
    }

    /**
     * @param file a file.
     * @return its identity (the inode, where the file system has one), to tell it from a file put at the same path
     *     later; null when it is gone.
     */
    static Object identity(final Path file) {
        try {
            final BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class,
                LinkOption.NOFOLLOW_LINKS);
            return a.fileKey() != null ? a.fileKey() : a.creationTime();
        } catch (final IOException e) {
            return null;
        }
    }

    static Path dictionary(final Path tableDir, final Column column) {
        return tableDir.resolve(column.name() + SymbolDictionaryDescriptor.SUFFIX);
    }
}
