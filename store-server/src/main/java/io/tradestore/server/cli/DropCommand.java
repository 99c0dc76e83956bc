package io.tradestore.server.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.tradestore.core.Store;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tradestore drop STORE --table T}: drops a table and deletes its files. */
@Command(name = "drop", mixinStandardHelpOptions = true,
    description = {"Drops a table: it leaves the store at once (one rename, so a crash leaves it whole or gone) and "
        + "its files are deleted. Refused while another process writes the table (a serve that ingests into it: use "
        + "DELETE /v1/tables/{name} there). Readers elsewhere finish the queries they are running."})
final class DropCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "the store directory")
    private Path store;

    @Option(names = "--table", required = true, description = "the table to drop")
    private String table;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        try (Store s = CliSupport.openExisting(store)) {
            s.dropTable(table);
        }
        spec.commandLine().getErr().println("dropped table '" + table + "' from " + store);
        spec.commandLine().getErr().flush();
        return 0;
    }
}
