package io.tradestore.server.cli;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.tradestore.core.sample.TradeGenerator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tradestore generate --rows N}: deterministic, realistic sample trades as CSV. */
@Command(name = "generate", mixinStandardHelpOptions = true,
    description = {"Writes deterministic sample trades in the loader's CSV: five trading days (2026-11-16 to 20, "
        + "08:00-16:30 UTC), 500 instruments with Zipf-like popularity and drifting prices, 8 venues, 10,000 clients, "
        + "50/50 sides.",
        "The same --rows and --seed always give the same bytes."})
final class GenerateCommand implements Callable<Integer> {
    @Option(names = "--rows", required = true, paramLabel = "N", description = "number of trades")
    private long rows;

    @Option(names = "--seed", paramLabel = "S", description = "random seed (default: 42)")
    private long seed = 42;

    @Option(names = "--out", paramLabel = "FILE", description = "output file, or - for stdout (default: -)")
    private String out = "-";

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        if (rows < 0) {
            throw CliSupport.badValue(spec, "--rows", rows + " must be >= 0");
        }
        final long t0 = System.nanoTime();
        if ("-".equals(out)) {
            final OutputStream stdout = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
            new TradeGenerator(rows, seed).writeCsv(stdout);
            stdout.flush();
            return 0;
        }
        final Path file = Path.of(out);
        final long bytes = TradeGenerator.writeCsv(file, rows, seed);
        final double s = (System.nanoTime() - t0) / 1e9;
        spec.commandLine().getErr().printf(Locale.ROOT, "wrote %,d trades (%,d bytes) to %s in %.2f s%n", rows, bytes,
            file, s);
        spec.commandLine().getErr().flush();
        return Files.exists(file) ? 0 : TradestoreCli.EXIT_FAILED;
    }
}
