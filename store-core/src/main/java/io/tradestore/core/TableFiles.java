package io.tradestore.core;

import java.nio.file.Path;

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

    static Path dictionary(final Path tableDir, final Column column) {
        return tableDir.resolve(column.name() + SymbolDictionaryDescriptor.SUFFIX);
    }
}
