package io.tradestore.server.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

import io.tradestore.core.RetentionRule;
import io.tradestore.core.Store;
import io.tradestore.core.StoreException;
import io.tradestore.core.Table;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.PartitionBy;
import io.tradestore.core.schema.Schema;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tradestore info STORE [TABLE]}: what a store holds, table by table. */
@Command(name = "info", mixinStandardHelpOptions = true,
    description = {"Describes a store's tables: rows, segments, bytes per row, schema, dictionaries, file allocator."})
final class InfoCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "the store directory")
    private Path store;

    @Parameters(index = "1", paramLabel = "TABLE", arity = "0..1", description = "one table (default: every table)")
    private String table;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        final PrintWriter out = spec.commandLine().getOut();
        try (Store s = CliSupport.openExisting(store)) {
            final List<String> names = table == null ? s.tableNames() : List.of(table);
            if (table != null && !s.hasTable(table)) {
                throw new StoreException("no table '" + StoreException.echo(table) + "' in " + store + "; tables are "
                    + s.tableNames());
            }
            out.println("store      " + s.directory().toAbsolutePath());
            out.println("tables     " + s.tableNames());
            out.println("allocator  " + s.allocator().describe());
            final List<String> failed = new ArrayList<>();
            for (final String name : names) {
                out.println();
                if (table != null) {
                    describe(s.table(name), out);
                    continue;
                }
                // one table that does not open must not hide the others (check and GET /v1/tables go on too)
                try {
                    describe(s.table(name), out);
                } catch (final StoreException | IOException | java.io.UncheckedIOException e) {
                    out.println("table      " + name);
                    out.println("error      " + (e instanceof StoreException ? e.getMessage()
                        : "cannot read " + StoreException.reason(e)));
                    failed.add(name);
                }
            }
            out.flush();
            if (!failed.isEmpty()) {
                spec.commandLine().getErr().println("error: " + (failed.size() == 1 ? "table " : "tables ") + failed
                    + " could not be described (see above; 'tradestore check " + store + "' says more)");
                return 1;
            }
        }
        out.flush();
        return 0;
    }

    private static void describe(final Table t, final PrintWriter out) throws IOException {
        final Schema schema = t.schema();
        try (TableReader r = t.reader()) {
            final TableSnapshot snap = r.snapshot();
            final long rows = snap.liveRows();
            final long disk = diskBytes(t.directory());
            out.println("table      " + t.name());
            out.println("rows       " + rows + " (commit " + snap.sequence() + ")");
            out.println("segments   " + (snap.segmentCount() - snap.firstSegment()) + " of " + schema.segmentRows()
                + " rows, blocks of " + schema.blockRows() + " rows, layout " + schema.layout()
                + (schema.partitionBy() == PartitionBy.NONE ? "" : ", partitioned by " + schema.partitionBy()));
            final long ttl = t.ttlNanos();
            if (snap.firstRow() > 0 || ttl > 0) {
                out.println("retention  " + (ttl > 0 ? "ttl " + RetentionRule.format(ttl) : "no ttl") + "; "
                    + snap.firstSegment() + " segments dropped so far (the rows below row " + snap.firstRow() + ")");
            }
            out.println("bytes/row  " + schema.bytesPerRow() + " in data files"
                + (rows > 0 ? String.format(java.util.Locale.ROOT,
                    "; %.1f of file space per committed row (segments are preallocated)",
                    disk / (double) rows) : ""));
            out.println("disk       " + disk + " bytes of files in " + t.directory());
            out.println("columns");
            for (final Column c : schema.columns()) {
                String extra = c.index() == schema.timestampIndex() ? "designated timestamp" : "";
                if (c.type() == ColumnType.SYMBOL) {
                    extra = "dictionary of " + snap.dictionarySize(c.index()) + " values";
                }
                out.printf("  %-16s %-12s %s%n", c.name(), c.typeName(), extra);
            }
        }
    }

    private static long diskBytes(final Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }
}
