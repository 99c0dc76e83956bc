package io.tradestore.parquet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;

import io.tradestore.core.StoreException;
import io.tradestore.core.TableWriter;
import io.tradestore.core.ingest.LoadException;
import io.tradestore.core.ingest.LoadProgress;
import io.tradestore.core.ingest.LoadResult;

/**
 * Loads Parquet files (a file, or a folder such as an export's Hive partitions) into a table, columns matched by name
 * with the type rules of docs/parquet.md in reverse. Every file's columns are checked before the first row is
 * written; a value that does not fit its column stops the load with its file, row and column, and the table stays at
 * its last commit, as a CSV load does.
 */
public final class ParquetImport {
    private ParquetImport() {
    }

    /** @param path a path given to load. @return whether it is a Parquet file or a folder holding some. */
    public static boolean isParquet(final Path path) {
        if (Files.isDirectory(path)) {
            try {
                return !files(List.of(path)).isEmpty();
            } catch (final StoreException e) {
                return false;
            }
        }
        return path.getFileName() != null && path.getFileName().toString().endsWith(".parquet");
    }

    /**
     * @param paths files and folders.
     * @return the Parquet files, folders walked in name order (files whose names start with '.' or '_', such as an
     *     export's manifest and temporary files, skipped).
     */
    public static List<Path> files(final List<Path> paths) {
        final List<Path> out = new ArrayList<>();
        for (final Path p : paths) {
            if (!Files.isDirectory(p)) {
                out.add(p);
                continue;
            }
            try (Stream<Path> s = Files.walk(p)) {
                s.filter(f -> Files.isRegularFile(f) && f.getFileName().toString().endsWith(".parquet")
                    && !hidden(p.relativize(f))).sorted().forEach(out::add);
            } catch (final IOException e) {
                throw new StoreException("cannot list " + p + ": " + StoreException.reason(e), e);
            }
        }
        return out;
    }

    private static boolean hidden(final Path relative) {
        for (final Path part : relative) {
            final String n = part.toString();
            if (n.startsWith(".") || n.startsWith("_")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Loads the files in order, committing once at the end (or every {@code commitEvery} rows).
     *
     * @param writer      the table's writer, with nothing pending.
     * @param files       Parquet files.
     * @param commitEvery rows per commit, 0 for one commit at the end.
     * @param progress    told after each row group.
     * @return what was loaded.
     * @throws LoadException naming the file, row and column, with the table at its last commit.
     */
    public static LoadResult load(final TableWriter writer, final List<Path> files, final long commitEvery,
        final LoadProgress progress) {
        final long start = System.nanoTime();
        final List<List<ImportColumn>> plans = new ArrayList<>();
        long bytesTotal = 0;
        for (final Path f : files) {
            try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(f))) {
                plans.add(ImportColumn.plan(f.toString(), r.getFooter().getFileMetaData().getSchema(),
                    writer.schema()));
                bytesTotal += Files.size(f);
            } catch (final IOException | RuntimeException e) {
                throw failed(f, 0, 0, e instanceof StoreException ? e.getMessage()
                    : "not a readable Parquet file: " + StoreException.reason(e), 0, e);
            }
        }
        long committed = 0;
        long loaded = 0;
        long bytesDone = 0;
        long commits = 0;
        for (int i = 0; i < files.size(); i++) {
            final Path f = files.get(i);
            try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(f))) {
                final MessageType schema = r.getFooter().getFileMetaData().getSchema();
                final RowAssembler rows = new RowAssembler(writer, plans.get(i), schema.getFieldCount());
                final MessageColumnIO io = new ColumnIOFactory().getColumnIO(schema);
                PageReadStore group;
                while ((group = r.readNextRowGroup()) != null) {
                    final RecordReader<Void> reader = io.getRecordReader(group, rows);
                    for (long k = group.getRowCount(); k > 0; k--) {
                        reader.read();
                        if (commitEvery > 0 && loaded + rows.appended - committed >= commitEvery) {
                            writer.commit();
                            commits++;
                            committed = loaded + rows.appended;
                        }
                    }
                    progress.progress(loaded + rows.appended, 0, bytesDone, bytesTotal, System.nanoTime() - start);
                }
                loaded += rows.appended;
                bytesDone += Files.size(f);
            } catch (final RowAssembler.ImportError e) {
                rollback(writer, e);
                throw failed(f, e.row, e.column.column().index() + 1, "row " + e.row + ", column '"
                    + e.column.name() + "': " + e.getMessage(), committed, e);
            } catch (final IOException | RuntimeException e) {
                rollback(writer, e);
                throw failed(f, 0, 0, e instanceof StoreException ? e.getMessage() : "cannot read: "
                    + StoreException.reason(e), committed, e);
            }
        }
        writer.commit();
        commits++;
        return new LoadResult(files.size(), loaded, loaded, 0, bytesDone, System.nanoTime() - start, commits,
            List.of());
    }

    private static void rollback(final TableWriter writer, final Exception cause) {
        try {
            writer.rollback();
        } catch (final RuntimeException suppressed) {
            cause.addSuppressed(suppressed);
        }
    }

    private static LoadException failed(final Path file, final long row, final long column, final String reason,
        final long committed, final Exception cause) {
        final String where = reason.startsWith(file.toString()) ? reason : file + ": " + reason;
        final LoadException e = new LoadException(where, file.toString(), row, column, committed);
        e.initCause(cause);
        return e;
    }
}
