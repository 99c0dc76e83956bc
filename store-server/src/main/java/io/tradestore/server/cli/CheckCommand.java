package io.tradestore.server.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import io.tradestore.core.Store;
import io.tradestore.core.StoreException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code tradestore check STORE [TABLE]}: verifies tables against their own bookkeeping; exit 1 with a report on
 * damage.
 */
@Command(name = "check", mixinStandardHelpOptions = true,
    description = {"Verifies tables: transaction checksums, dictionaries, zone maps against the data, "
        + "row counts and segments.",
        "Prints a report; exit code 1 when anything is wrong."})
final class CheckCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "the store directory")
    private Path store;

    @Parameters(index = "1", paramLabel = "TABLE", arity = "0..1", description = "one table (default: every table)")
    private String table;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        int damaged = 0;
        try (Store s = CliSupport.openWithTables(store)) {
            if (table != null && !s.hasTable(table)) {
                throw new StoreException("no table '" + StoreException.echo(table) + "' in " + store + "; tables are "
                    + s.tableNames());
            }
            final List<String> names = table == null ? s.tableNames() : List.of(table);
            for (final String name : names) {
                final long t0 = System.nanoTime();
                final TableChecker c = new TableChecker().check(s, name);
                final long ms = (System.nanoTime() - t0) / 1_000_000;
                if (c.problems().isEmpty()) {
                    out.println(name + ": ok (" + c.rows() + " rows, " + c.segments() + " segments, "
                        + c.valuesChecked() + " values checked in " + ms + " ms)");
                } else {
                    damaged++;
                    out.println(name + ": DAMAGED (" + c.problems().size() + " problems)");
                    for (final String p : c.problems()) {
                        out.println("  " + p);
                    }
                }
            }
        }
        out.flush();
        if (damaged > 0) {
            err.println("error: " + damaged + " damaged table" + (damaged == 1 ? "" : "s")
                + "; restore from a copy or reload");
            err.flush();
            return TradestoreCli.EXIT_FAILED;
        }
        return 0;
    }
}
