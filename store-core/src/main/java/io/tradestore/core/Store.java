package io.tradestore.core;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.tradestore.core.dict.SymbolDictionary;
import io.tradestore.core.dict.SymbolDictionaryDescriptor;
import io.tradestore.core.memory.FileAllocator;
import io.tradestore.core.memory.MappedFile;
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
            throw new StoreException("cannot create store directory " + directory + ": " + StoreException.reason(e), e);
        }
        removeDropped(directory);
        return new Store(directory, allocator);
    }

    /** Finishes drops a crash interrupted: their directories are out of the table namespace, only files remain. */
    private static void removeDropped(final Path directory) {
        try (Stream<Path> s = Files.list(directory)) {
            for (final Path p : (Iterable<Path>) s::iterator) {
                if (p.getFileName().toString().endsWith(TableFiles.DROPPED_SUFFIX) && Files.isDirectory(p)) {
                    deleteRecursively(p);
                }
            }
        } catch (final IOException e) {
            throw new StoreException("cannot remove the files of a dropped table in " + directory + ": "
                + StoreException.reason(e), e);
        }
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
            throw new StoreException("cannot list store " + directory + ": " + StoreException.reason(e), e);
        }
        names.sort(null);
        return names;
    }

    /**
     * Creates a table. The table is built in a scratch directory that is renamed into place, so a crash during
     * creation leaves no table behind.
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
        if (Files.exists(dir)) {
            throw new StoreException("cannot create table '" + schema.name() + "': directory " + dir
                + " exists but has no "
                + TableFiles.SCHEMA + "; the table is damaged: restore it or remove the directory");
        }
        // Build the table in a scratch directory and rename it into place: a crash during creation leaves only a
        // scratch directory (ignored, and removed by the next createTable), never a half-made table.
        final Path tmp = directory.resolve(schema.name() + TableFiles.CREATING_SUFFIX);
        try {
            if (Files.exists(tmp)) {
                deleteRecursively(tmp);
            }
            Files.createDirectories(tmp);
            for (final Column c : schema.columns()) {
                if (c.type() == ColumnType.SYMBOL) {
                    SymbolDictionary.create(TableFiles.dictionary(tmp, c)).close();
                }
            }
            TxnFile.create(tmp.resolve(TxnDescriptor.FILE_NAME), schema.symbolColumnCount(), schema.hash(), allocator,
                SymbolDictionaryDescriptor.HEADER_LENGTH).close();
            Files.writeString(tmp.resolve(TableFiles.SCHEMA), SchemaCodec.toJson(schema, true), StandardCharsets.UTF_8);
            try (FileChannel ch = FileChannel.open(tmp.resolve(TableFiles.SCHEMA), StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            MappedFile.syncDirectory(tmp);
            try {
                Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
            } catch (final AtomicMoveNotSupportedException e) {
                Files.move(tmp, dir);
            }
            MappedFile.syncDirectory(directory);
        } catch (final IOException | StoreException e) {
            try {
                deleteRecursively(tmp);
            } catch (final IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw new StoreException("cannot create table '" + schema.name() + "' in " + directory + ": "
                + StoreException.reason(e), e);
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
            if (open.sameFiles()) {
                return open;
            }
            // another process dropped it, and maybe created it again: this one's readers and writers are stale
            open.detach();
            tables.remove(name, open);
        }
        if (!hasTable(name)) {
            if (validName(name) && Files.isDirectory(directory.resolve(name))) {
                throw new StoreException("missing schema file " + directory.resolve(name).resolve(TableFiles.SCHEMA)
                    + " of table '"
                    + name + "'; the table is damaged: restore the file from a copy");
            }
            throw new StoreException("unknown table '" + StoreException.echo(name) + "' in " + directory
                + "; tables are " + tableNames());
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
     * Opens a table, creating it with the given schema when it does not exist; an existing table must have the same
     * columns (its layout and segment size are kept).
     *
     * @param schema the schema to create it with.
     * @return the table.
     */
    public synchronized Table openOrCreate(final Schema schema) {
        if (!hasTable(schema.name())) {
            return createTable(schema);
        }
        final Table t = table(schema.name());
        if (t.schema().columnsHash() != schema.columnsHash()) {
            throw new StoreException("table '" + schema.name() + "' exists with other columns: " + t.schema()
                .columnNames()
                + " (types in " + t.directory().resolve(TableFiles.SCHEMA) + ")");
        }
        return t;
    }

    /**
     * Drops a table: its directory is renamed out of the table namespace (the one atomic step: after a crash the table
     * is either whole or gone), then its files are deleted. Readers of the table, in this process or another, finish
     * what they read from their mappings (the files' blocks are freed when the last mapping goes) and fail with
     * "dropped" at their next snapshot after a commit; this process's readers should be closed by their owners.
     *
     * @param name the table name.
     * @throws StoreException         when the table does not exist or this process has its writer open.
     * @throws TableLockedException   when another process holds the table's writer.
     */
    public void dropTable(final String name) {
        final Path dir;
        final Path gone;
        synchronized (this) {
            checkOpen();
            if (!hasTable(name)) {
                throw new StoreException("unknown table '" + StoreException.echo(name) + "' in " + directory
                    + "; tables are " + tableNames());
            }
            final Table open = tables.get(name);
            if (open != null) {
                open.markDropped();
            }
            dir = directory.resolve(name);
            gone = directory.resolve(name + "." + Long.toHexString(System.nanoTime()) + TableFiles.DROPPED_SUFFIX);
            boolean renamed = false;
            try {
                final WriterLock lock = WriterLock.acquire(dir, name);
                try {
                    Files.move(dir, gone, StandardCopyOption.ATOMIC_MOVE);
                    renamed = true;
                    MappedFile.syncDirectory(directory);
                } finally {
                    lock.release();
                }
            } catch (final IOException e) {
                throw new StoreException("cannot drop table '" + name + "': renaming " + dir + " failed: "
                    + StoreException.reason(e), e);
            } finally {
                if (open != null && !renamed) {
                    open.unmarkDropped();
                }
            }
            if (open != null) {
                tables.remove(name, open);
            }
        }
        try {
            deleteRecursively(gone);
            MappedFile.syncDirectory(directory);
        } catch (final IOException e) {
            throw new StoreException("table '" + name + "' is dropped, but deleting its files under " + gone
                + " failed (the next open of the store retries): " + StoreException.reason(e), e);
        }
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
