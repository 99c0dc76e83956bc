package io.tradestore.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.tradestore.core.dict.SymbolDictionary;
import io.tradestore.core.dict.SymbolDictionaryDescriptor;
import io.tradestore.core.memory.FileAllocator;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.schema.SchemaCodec;
import io.tradestore.core.txn.TxnDescriptor;
import io.tradestore.core.txn.TxnFile;

/**
 * A directory of tables. The entry point of the embedded API:
 *
 * <pre>{@code
 * try (Store store = Store.open(Path.of("data"))) {
 *     Table trades = store.createTable(TradesSchema.SCHEMA);
 *     try (TableWriter w = trades.writer()) { ... w.commit(); }
 * }
 * }</pre>
 */
public final class Store implements AutoCloseable {
    private final Path directory;
    private final FileAllocator allocator;
    private final Map<String, Table> tables = new HashMap<>();
    private boolean closed;

    private Store(final Path directory, final FileAllocator allocator) {
        this.directory = directory;
        this.allocator = allocator;
    }

    /**
     * Opens a store, creating its directory if needed.
     *
     * @param directory the store directory.
     * @return the store.
     */
    public static Store open(final Path directory) {
        return open(directory, FileAllocator.platform());
    }

    /**
     * Opens a store with a given way of reserving file blocks (tests inject faults with it).
     *
     * @param directory the store directory.
     * @param allocator block reservation for new files.
     * @return the store.
     */
    public static Store open(final Path directory, final FileAllocator allocator) {
        try {
            if (Files.exists(directory) && !Files.isDirectory(directory)) {
                throw new StoreException("store path " + directory + " is not a directory");
            }
            Files.createDirectories(directory);
        } catch (final IOException e) {
            throw new StoreException("cannot create store directory " + directory + ": " + e.getMessage(), e);
        }
        return new Store(directory, allocator);
    }

    /** @return the store directory. */
    public Path directory() {
        return directory;
    }

    /** @return how new files get their disk blocks. */
    public FileAllocator allocator() {
        return allocator;
    }

    /**
     * @param name a table name.
     * @return whether the table exists (its schema file is present).
     */
    public boolean hasTable(final String name) {
        return validName(name) && Files.isRegularFile(directory.resolve(name).resolve(TableFiles.SCHEMA));
    }

    private static boolean validName(final String name) {
        return name != null && name.matches("[a-z_][a-z0-9_]{0,62}");
    }

    /** @return the names of the tables, sorted. */
    public List<String> tableNames() {
        final List<String> names = new ArrayList<>();
        try (Stream<Path> s = Files.list(directory)) {
            s.forEach(p -> {
                final String n = p.getFileName().toString();
                if (hasTable(n)) {
                    names.add(n);
                }
            });
        } catch (final IOException e) {
            throw new StoreException("cannot list store " + directory + ": " + e.getMessage(), e);
        }
        names.sort(null);
        return names;
    }

    /**
     * Creates a table. The schema file is written last, by an atomic rename, so a crash during creation leaves no
     * table behind.
     *
     * @param schema the schema.
     * @return the open table.
     */
    public synchronized Table createTable(final Schema schema) {
        checkOpen();
        if (hasTable(schema.name())) {
            throw new StoreException("table '" + schema.name() + "' already exists in " + directory);
        }
        final Path dir = directory.resolve(schema.name());
        try {
            if (Files.exists(dir)) {
                deleteRecursively(dir);
            }
            Files.createDirectories(dir);
            for (final Column c : schema.columns()) {
                if (c.type() == ColumnType.SYMBOL) {
                    SymbolDictionary.create(TableFiles.dictionary(dir, c)).close();
                }
            }
            TxnFile.create(dir.resolve(TxnDescriptor.FILE_NAME), schema.symbolColumnCount(), schema.hash(), allocator,
                SymbolDictionaryDescriptor.HEADER_LENGTH).close();
            final Path tmp = dir.resolve(TableFiles.SCHEMA + ".tmp");
            Files.writeString(tmp, SchemaCodec.toJson(schema, true), StandardCharsets.UTF_8);
            try {
                Files.move(tmp, dir.resolve(TableFiles.SCHEMA), StandardCopyOption.ATOMIC_MOVE);
            } catch (final AtomicMoveNotSupportedException e) {
                Files.move(tmp, dir.resolve(TableFiles.SCHEMA));
            }
        } catch (final IOException e) {
            throw new StoreException("cannot create table '" + schema.name() + "' in " + directory + ": " + e.getMessage(), e);
        }
        final Table t = new Table(this, schema, dir, allocator);
        tables.put(schema.name(), t);
        return t;
    }

    /**
     * Opens an existing table (the same object on every call until it is closed).
     *
     * @param name the table name.
     * @return the table.
     */
    public synchronized Table table(final String name) {
        checkOpen();
        final Table open = tables.get(name);
        if (open != null) {
            return open;
        }
        if (!hasTable(name)) {
            throw new StoreException("unknown table '" + name + "' in " + directory + "; tables are " + tableNames());
        }
        final Path dir = directory.resolve(name);
        final Schema schema = SchemaCodec.read(dir.resolve(TableFiles.SCHEMA));
        if (!schema.name().equals(name)) {
            throw new StoreException("schema file " + dir.resolve(TableFiles.SCHEMA) + " names table '" + schema.name()
                + "' but lives in directory '" + name + "'");
        }
        final Table t = new Table(this, schema, dir, allocator);
        tables.put(name, t);
        return t;
    }

    /**
     * Opens a table, creating it with the given schema when it does not exist.
     *
     * @param schema the schema to create it with.
     * @return the table.
     */
    public synchronized Table openOrCreate(final Schema schema) {
        return hasTable(schema.name()) ? table(schema.name()) : createTable(schema);
    }

    synchronized void tableClosed(final Table t) {
        tables.remove(t.name(), t);
    }

    private void checkOpen() {
        if (closed) {
            throw new StoreException("store " + directory + " is closed");
        }
    }

    private static void deleteRecursively(final Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            final List<Path> paths = new ArrayList<>();
            s.forEach(paths::add);
            for (int i = paths.size() - 1; i >= 0; i--) {
                Files.deleteIfExists(paths.get(i));
            }
        }
    }

    /** Closes every table (writers discard uncommitted rows) and unmaps everything; idempotent. */
    @Override
    public void close() {
        final List<Table> open;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            open = new ArrayList<>(tables.values());
        }
        for (final Table t : open) {
            t.close();
        }
    }
}
