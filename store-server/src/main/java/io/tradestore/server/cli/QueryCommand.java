package io.tradestore.server.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.tradestore.core.Store;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryException;
import io.tradestore.query.QueryResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tradestore query STORE JSON|@file|-}: runs one JSON query and prints the answer. */
@Command(name = "query", mixinStandardHelpOptions = true,
    description = {"Runs a JSON query (docs/query-language.md) and prints the result on stdout.",
        "Exit code 2 when the query itself is wrong (bad JSON, unknown column or table), 1 when it fails to run."})
final class QueryCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "the store directory")
    private Path store;

    @Parameters(index = "1", paramLabel = "QUERY", description = "the query: JSON text, @file, or - for stdin")
    private String query;

    @Option(names = "--format", defaultValue = "table", description = "table, json or csv (default ${DEFAULT-VALUE})")
    private ResultFormatter.Format format;

    @Option(names = "--epoch-nanos",
        description = "print timestamps as integer nanoseconds since the epoch instead of ISO-8601")
    private boolean epochNanos;

    @Option(names = "--stats", description = "print the query statistics on stderr")
    private boolean stats;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final String json = CliSupport.textArgument(query, System.in);
        try (Store s = CliSupport.openExisting(store); QueryEngine engine = new QueryEngine(s)) {
            final QueryResult r;
            try {
                r = engine.execute(json);
            } catch (final QueryException e) {
                err.println("error: " + e.code() + ": " + e.getMessage() + (e.path().isEmpty() ? ""
                    : " (at " + e.path() + ")"));
                err.flush();
                return e.code().httpStatus() < 500 ? TradestoreCli.EXIT_USAGE : TradestoreCli.EXIT_FAILED;
            }
            ResultFormatter.print(r, format, epochNanos, out);
            if (stats || format == ResultFormatter.Format.table) {
                err.println(r.rowCount() + (r.rowCount() == 1 ? " row" : " rows")
                    + (r.truncated() ? " (truncated at the limit)" : "") + "; scanned " + r.stats().rowsScanned()
                    + " rows in " + r.stats().elapsedMicros() / 1000.0 + " ms");
                err.flush();
            }
        }
        return 0;
    }
}
