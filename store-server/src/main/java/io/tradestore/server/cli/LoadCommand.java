package io.tradestore.server.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.tradestore.core.Store;
import io.tradestore.core.StoreException;
import io.tradestore.core.Table;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.ingest.CsvLoader;
import io.tradestore.core.ingest.LoadException;
import io.tradestore.core.ingest.LoadOptions;
import io.tradestore.core.ingest.LoadProgress;
import io.tradestore.core.ingest.LoadResult;
import io.tradestore.core.ingest.OnError;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.schema.SchemaCodec;
import io.tradestore.parquet.ParquetImport;
import io.tradestore.query.BackgroundIndexer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tradestore load STORE FILE...}: bulk-loads CSV files into a table, creating the table if needed. */
@Command(name = "load", mixinStandardHelpOptions = true,
    description = {"Loads CSV files (plain or .gz; a directory loads its files in name order; - reads standard input) "
        + "or Parquet files (FILE.parquet, or a folder of them such as an export's day partitions, columns matched by "
        + "name) into a table, creating it with the trades schema (or --schema) when absent.",
        "The header row names the columns in any order. By default the load is one transaction: the first bad row "
        + "stops it and the table stays exactly at its previous commit."})
final class LoadCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "the store directory (created when missing)")
    private Path store;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "FILE",
        description = "CSV or Parquet files or directories, in load order; - for stdin (CSV)")
    private List<String> files = new ArrayList<>();

    @Option(names = "--table", paramLabel = "NAME",
        description = "table to load into (default: trades, or the --schema's name)")
    private String table;

    @Option(names = "--schema", paramLabel = "FILE",
        description = "schema JSON for a new table (default: the built-in trades schema)")
    private Path schemaFile;

    @Option(names = "--on-error", paramLabel = "fail|skip",
        description = "fail: stop at the first bad row and roll back (default);"
        + " skip: write bad rows to the rejects and go on")
    private String onError = "fail";

    @Option(names = "--rejects", paramLabel = "FILE",
        description = "with --on-error skip: write FILE:LINE:COLUMN: reason of every bad"
        + " row here (default: the first 10 go to stderr)")
    private Path rejects;

    @Option(names = "--max-errors", paramLabel = "N",
        description = "with --on-error skip: fail and roll back when more than N rows"
        + " are rejected (default: no limit)")
    private Long maxErrors;

    @Option(names = "--threads", paramLabel = "N", description = "parser threads (default: one per core)")
    private Integer threads;

    @Option(names = "--commit-every", paramLabel = "N",
        description = "commit every N rows, making each complete batch visible and"
        + " durable at once; a later failure keeps the committed batches (default: 0, one commit at the end)")
    private long commitEvery;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        final PrintWriter err = spec.commandLine().getErr();
        final OnError mode = switch (onError.toLowerCase(Locale.ROOT)) {
            case "fail" -> OnError.FAIL;
            case "skip" -> OnError.SKIP;
            default -> throw CliSupport.badValue(spec, "--on-error", "'" + onError + "' must be fail or skip");
        };
        final LoadOptions options = CliSupport.checkOptions(spec, () -> {
            LoadOptions o = LoadOptions.defaults().withOnError(mode).withCommitEvery(commitEvery).withRejects(rejects);
            o = maxErrors == null ? o : o.withMaxErrors(maxErrors);
            return threads == null ? o : o.withThreads(threads);
        });
        // the schema of a new table, checked before the store is touched: a bad --table creates no directory
        // a bad file: exit 1
        final Schema fileSchema = schemaFile == null ? TradesSchema.SCHEMA : SchemaCodec.read(schemaFile);
        final Schema newTable = table == null || table.equals(fileSchema.name()) ? fileSchema
            : CliSupport.checkOptions(spec, () -> fileSchema.with(table, fileSchema.layout(),
                fileSchema.segmentRows(), fileSchema.blockRows()));
        final boolean stdin = files.size() == 1 && "-".equals(files.get(0));
        final List<Path> paths = new ArrayList<>();
        boolean parquet = false;
        if (!stdin) {
            for (final String f : files) {
                paths.add(Path.of(f));
            }
            parquet = parquetInput(paths, mode);
            if (parquet) {
                final List<Path> found = ParquetImport.files(paths);
                paths.clear();
                paths.addAll(found);
            } else {
                CsvLoader.expand(paths);
            }
        }
        try (Store s = Store.open(store)) {
            final Table t = openTable(s, newTable);
            final long before;
            final LoadResult r;
            final Progress progress = new Progress(err, System.console() != null);
            long indexed = 0;
            long indexNanos = 0;
            try (TableWriter w = t.writer(options.durability()); BackgroundIndexer indexer =
                BackgroundIndexer.attach(t, w)) {
                before = w.committedRows();
                try {
                    r = stdin ? CsvLoader.load(w, "-", System.in, options, progress)
                        : parquet ? ParquetImport.load(w, paths, options.commitEvery(), progress)
                        : CsvLoader.load(w, paths, options, progress);
                } catch (final LoadException e) {
                    progress.clear();
                    closeQuietly(indexer, err);
                    err.println(e.getMessage());
                    err.println(e.rowsCommitted() > 0
                        ? "tradestore load: failed; " + e.rowsCommitted()
                            + " rows of this load were committed (--commit-every) before"
                            + " the failure, the rest rolled back"
                        : "tradestore load: failed; table '" + t.name() + "' is unchanged at " + before + " rows");
                    err.flush();
                    return TradestoreCli.EXIT_FAILED;
                }
                // the segments the load's commits sealed get their symbol columns' bitmap indexes now, not in the first
                // query
                closeQuietly(indexer, err);
                indexed = indexer.built();
                indexNanos = indexer.waitNanos();
            }
            progress.clear();
            if (rejects == null && !r.firstRejects().isEmpty()) {
                for (final String m : r.firstRejects()) {
                    err.println("rejected: " + m);
                }
                if (r.rowsRejected() > r.firstRejects().size()) {
                    err.println("... and " + (r.rowsRejected() - r.firstRejects().size())
                        + " more (use --rejects FILE to keep them all)");
                }
            }
            err.printf(Locale.ROOT,
                "loaded %,d rows into '%s' (%,d rejected) in %.2f s: %,.0f rows/s, %.0f MB/s; table has %,d rows%n",
                r.rowsLoaded(), t.name(), r.rowsRejected(), r.elapsedNanos() / 1e9, r.rowsPerSecond(),
                r.megabytesPerSecond(), before + r.rowsLoaded());
            if (indexed > 0) {
                err.printf(Locale.ROOT,
                    "built %d bitmap indexes (symbol columns of the sealed segments), the last %.2f s after the rows "
                        + "were loaded%n",
                    indexed, indexNanos / 1e9);
            }
            err.flush();
        }
        return 0;
    }

    /**
     * @return whether the inputs are Parquet (files ending in .parquet, or folders holding some, as an export); a mix
     *     with CSV, and the CSV-only skip mode, are refused.
     */
    private boolean parquetInput(final List<Path> paths, final OnError mode) {
        int count = 0;
        for (final Path p : paths) {
            if (ParquetImport.isParquet(p)) {
                count++;
            }
        }
        if (count == 0) {
            return false;
        }
        if (count != paths.size()) {
            throw new ParameterException(spec.commandLine(), "the inputs mix Parquet and CSV; load them in two runs");
        }
        if (mode != OnError.FAIL || rejects != null || maxErrors != null) {
            throw CliSupport.badValue(spec, "--on-error", "a Parquet load stops at the first value that does not fit "
                + "(--on-error fail); skipping rows is for CSV");
        }
        return true;
    }

    /**
     * Waits for the indexer's builds; one that failed is a warning (the rows are loaded; queries build what is
     * missing).
     */
    private static void closeQuietly(final BackgroundIndexer indexer, final PrintWriter err) {
        try {
            indexer.close();
        } catch (final StoreException e) {
            err.println("tradestore load: warning: " + e.getMessage());
        }
    }

    /**
     * An existing table loads as it is, unless a --schema names its columns: then they must be the table's (names and
     * types), with --table as without it (a --schema given with --table is still
     * read and checked).
     */
    private Table openTable(final Store s, final Schema newTable) {
        if (schemaFile == null && s.hasTable(newTable.name())) {
            return s.table(newTable.name());
        }
        return s.openOrCreate(newTable);
    }

    /** Progress on a terminal: one line rewritten a few times a second; nothing when not a terminal. */
    static final class Progress implements LoadProgress {
        private static final long INTERVAL_NANOS = 250_000_000L;
        private final PrintWriter err;
        private final boolean terminal;
        private long lastNanos;
        private boolean shown;

        Progress(final PrintWriter err, final boolean terminal) {
            this.err = err;
            this.terminal = terminal;
        }

        @Override
        public void progress(final long rowsLoaded, final long rowsRejected, final long bytesDone,
                             final long bytesTotal, final long elapsedNanos) {
            if (!terminal || elapsedNanos - lastNanos < INTERVAL_NANOS) {
                return;
            }
            lastNanos = elapsedNanos;
            err.print("\r" + line(rowsLoaded, rowsRejected, bytesDone, bytesTotal, elapsedNanos) + "   ");
            err.flush();
            shown = true;
        }

        static String line(final long rowsLoaded, final long rowsRejected, final long bytesDone, final long bytesTotal,
                           final long elapsedNanos) {
            final double s = Math.max(1e-9, elapsedNanos / 1e9);
            final StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%,d rows  %,.0f rows/s  %.0f MB/s",
                rowsLoaded, rowsLoaded / s, bytesDone / s / 1e6));
            if (rowsRejected > 0) {
                sb.append(String.format(Locale.ROOT, "  %,d rejected", rowsRejected));
            }
            if (bytesTotal > 0) {
                final double done = Math.min(1.0, (double) bytesDone / bytesTotal);
                sb.append(String.format(Locale.ROOT, "  %.0f%%", done * 100));
                if (done > 0) {
                    sb.append(String.format(Locale.ROOT, "  ETA %.0f s", s / done - s));
                }
            }
            return sb.toString();
        }

        void clear() {
            if (shown) {
                err.print("\r\033[K");
                err.flush();
                shown = false;
            }
        }
    }
}
