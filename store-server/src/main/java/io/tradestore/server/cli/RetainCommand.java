package io.tradestore.server.cli;

import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;

import io.tradestore.core.Retention;
import io.tradestore.core.RetentionRule;
import io.tradestore.core.Store;
import io.tradestore.core.Table;
import io.tradestore.core.TableWriter;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tradestore retain STORE --table T --older-than 30d | --ttl 30d}: drops old segments, or sets a TTL. */
@Command(name = "retain", mixinStandardHelpOptions = true,
    description = {"Drops a table's oldest whole sealed segments whose newest row is older than a duration before the "
        + "reference time: the table's newest row, capped by the clock (as QuestDB's TTL). Or sets the table's TTL, "
        + "which 'tradestore serve' applies on a schedule (--retention-interval-ms). Durations: 90m, 36h, 30d, 2w or "
        + "ISO-8601 (P30D). Refused while another process writes the table."})
final class RetainCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "the store directory")
    private Path store;

    @Option(names = "--table", required = true, description = "the table")
    private String table;

    @ArgGroup(exclusive = true, multiplicity = "1")
    private What what;

    /** Exactly one of: drop now, or set the TTL. */
    static final class What {
        @Option(names = "--older-than", paramLabel = "DURATION",
            description = "drop now what is older than DURATION before the reference time")
        String olderThan;

        @Option(names = "--ttl", paramLabel = "DURATION|off",
            description = "set the table's TTL (off removes it); serve applies it, and this applies it once now")
        String ttl;
    }

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        final boolean off = what.ttl != null && "off".equalsIgnoreCase(what.ttl.trim());
        long keep = 0;
        if (!off) {
            try {
                keep = RetentionRule.parse(what.ttl != null ? what.ttl : what.olderThan);
            } catch (final IllegalArgumentException e) {
                throw CliSupport.badValue(spec, what.ttl != null ? "--ttl" : "--older-than", e.getMessage());
            }
        }
        try (Store s = CliSupport.openExisting(store)) {
            final Table t = s.table(table);
            if (what.ttl != null) {
                t.ttlNanos(keep);
                spec.commandLine().getErr().println(off ? "table '" + table + "' has no TTL now"
                    : "table '" + table + "' keeps " + RetentionRule.format(keep) + " (TTL)");
                if (off) {
                    return 0;
                }
            }
            final Instant now = Instant.now();
            final Retention r;
            try (TableWriter w = t.writer()) {
                r = RetentionRule.apply(t, w, keep, now.getEpochSecond() * 1_000_000_000L + now.getNano());
            }
            spec.commandLine().getErr().println("dropped " + r.segments() + " segments (" + r.rows() + " rows) of "
                + "table '" + table + "' older than " + RetentionRule.format(keep) + "; rows from row " + r.firstRow()
                + " on are kept");
            spec.commandLine().getErr().flush();
        }
        return 0;
    }
}
