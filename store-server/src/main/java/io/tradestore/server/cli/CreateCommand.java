package io.tradestore.server.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.tradestore.core.RetentionRule;
import io.tradestore.core.Store;
import io.tradestore.core.Table;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.PartitionBy;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.schema.SchemaCodec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tradestore create STORE}: creates a store directory and a table in it. */
@Command(name = "create", mixinStandardHelpOptions = true,
    description = {"Creates a store (a directory) and a table in it: the built-in trades schema "
        + "unless --schema is given."})
final class CreateCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "the store directory (created when missing)")
    private Path store;

    @Option(names = "--schema", paramLabel = "FILE",
        description = "a schema JSON file (docs/file-format.md); default: the trades schema")
    private Path schemaFile;

    @Option(names = "--table", description = "table name (default: the schema's name)")
    private String table;

    @Option(names = "--layout",
        description = "COLUMN (one file per column) or ROW (array of structs); default: the schema's")
    private Layout layout;

    @Option(names = "--segment-rows",
        description = "rows per segment, a power of two (default: the schema's, 4194304 for trades)")
    private Integer segmentRows;

    @Option(names = "--block-rows", description = "rows per zone-map block, a power of two (default: the schema's)")
    private Integer blockRows;

    @Option(names = "--partition-by", paramLabel = "PERIOD", description = "NONE, HOUR, DAY or MONTH: no segment "
        + "holds rows of two periods of the designated timestamp (default: the schema's, NONE for trades)")
    private String partitionBy;

    @Option(names = "--ttl", paramLabel = "DURATION", description = "the table's TTL, which tradestore serve applies "
        + "(see tradestore retain): 30d, 36h, 2w or ISO-8601")
    private String ttl;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        // a bad file: exit 1
        final Schema base = schemaFile == null ? TradesSchema.SCHEMA : SchemaCodec.read(schemaFile);
        Schema schema = base;
        if (table != null || layout != null || segmentRows != null || blockRows != null) {
            final int segRows = segmentRows == null ? base.segmentRows() : segmentRows;
            // a smaller segment than the schema's block takes blocks of the segment's size unless told otherwise
            final int blkRows = blockRows == null ? Math.min(base.blockRows(), segRows) : blockRows;
            schema = CliSupport.checkOptions(spec, () -> base.with(table == null ? base.name() : table,
                layout == null ? base.layout() : layout, segRows, blkRows));
        }
        if (partitionBy != null) {
            final Schema unpartitioned = schema;
            final PartitionBy by = CliSupport.checkOptions(spec, () -> PartitionBy.parse(partitionBy, "/partitionBy"));
            schema = CliSupport.checkOptions(spec, () -> unpartitioned.with(by));
        }
        long ttlNanos = 0;
        if (ttl != null) {
            try {
                ttlNanos = RetentionRule.parse(ttl);
            } catch (final IllegalArgumentException e) {
                throw CliSupport.badValue(spec, "--ttl", e.getMessage());
            }
            if (schema.timestampIndex() < 0) {
                throw CliSupport.badValue(spec, "--ttl", "table '" + schema.name() + "' has no designated timestamp; "
                    + "a TTL drops by time");
            }
        }
        try (Store s = Store.open(store)) {
            final Table t = s.createTable(schema);
            if (ttlNanos > 0) {
                t.ttlNanos(ttlNanos);
            }
            spec.commandLine().getErr().println("created table '" + t.name() + "' (" + schema.columnCount()
                + " columns, "
                + schema.layout() + " layout, " + schema.segmentRows() + " rows per segment"
                + (schema.partitionBy() != PartitionBy.NONE ? ", partitioned by " + schema.partitionBy() : "")
                + (ttlNanos > 0 ? ", TTL " + RetentionRule.format(ttlNanos) : "") + ") in " + store);
            spec.commandLine().getErr().flush();
        }
        return 0;
    }
}
