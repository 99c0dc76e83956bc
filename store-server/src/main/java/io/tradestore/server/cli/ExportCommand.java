package io.tradestore.server.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import io.tradestore.core.Store;
import io.tradestore.core.Table;
import io.tradestore.parquet.ExportOptions;
import io.tradestore.parquet.ExportResult;
import io.tradestore.parquet.ParquetExport;
import io.tradestore.parquet.TimestampUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tradestore export STORE --table T --format parquet --out DIR}: Parquet files by day, incrementally. */
@Command(name = "export", mixinStandardHelpOptions = true,
    description = {"Writes a table's committed rows as Apache Parquet, partitioned by day the Hive way "
        + "(DIR/TABLE/date=YYYY-MM-DD/SEGMENT.parquet), for Spark, Trino, DuckDB or ClickHouse. By default only sealed "
        + "segments, whose files never change. A manifest (DIR/TABLE/_tradestore_export.json) lets a re-run write only "
        + "what is new; a killed export leaves only whole files and the next run finishes it. See docs/parquet.md."})
final class ExportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "the store directory")
    private Path store;

    @Option(names = "--table", required = true, description = "the table")
    private String table;

    @Option(names = "--format", defaultValue = "parquet", description = "parquet (the only format; default)")
    private String format;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "the export directory")
    private Path out;

    @Option(names = "--from", paramLabel = "DATE", description = "first day exported (YYYY-MM-DD, UTC)")
    private String from;

    @Option(names = "--to", paramLabel = "DATE", description = "the day after the last one exported (YYYY-MM-DD)")
    private String to;

    @Option(names = "--include-open", description = "also the committed rows of the segment still being written")
    private boolean includeOpen;

    @Option(names = "--timestamp-unit", defaultValue = "nanos", paramLabel = "nanos|micros",
        description = "unit of timestamps in the files: nanos (default) or micros (for Spark)")
    private String unit;

    @Option(names = "--compression", defaultValue = "zstd", paramLabel = "CODEC",
        description = "zstd (default), snappy, gzip, lz4_raw or uncompressed")
    private String compression;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        if (!"parquet".equalsIgnoreCase(format.trim())) {
            throw CliSupport.badValue(spec, "--format", "'" + format + "' is not a format export writes: parquet");
        }
        final ExportOptions options = CliSupport.checkOptions(spec, () -> {
            final TimestampUnit u;
            final CompressionCodecName codec;
            long fromNanos = Long.MIN_VALUE;
            long toNanos = Long.MAX_VALUE;
            try {
                u = TimestampUnit.parse(unit);
            } catch (final IllegalArgumentException e) {
                throw CliSupport.badValue(spec, "--timestamp-unit", e.getMessage());
            }
            try {
                codec = ExportOptions.parseCompression(compression);
            } catch (final IllegalArgumentException e) {
                throw CliSupport.badValue(spec, "--compression", e.getMessage());
            }
            try {
                fromNanos = from == null ? fromNanos : ExportOptions.parseDay(from);
            } catch (final IllegalArgumentException e) {
                throw CliSupport.badValue(spec, "--from", e.getMessage());
            }
            try {
                toNanos = to == null ? toNanos : ExportOptions.parseDay(to);
            } catch (final IllegalArgumentException e) {
                throw CliSupport.badValue(spec, "--to", e.getMessage());
            }
            return new ExportOptions(out, fromNanos, toNanos, includeOpen, u, codec);
        });
        try (Store s = CliSupport.openExisting(store)) {
            final Table t = s.table(table);
            final ExportResult r = ParquetExport.export(t, options);
            spec.commandLine().getErr().printf("exported table '%s' at commit %d into %s: %d files written (%d rows, "
                + "%d bytes), %d up to date; the export holds %d rows%n", table, r.commit(), r.directory(),
                r.filesWritten(), r.rowsWritten(), r.bytesWritten(), r.filesKept(), r.rowsExported());
            spec.commandLine().getErr().flush();
        }
        return 0;
    }
}
