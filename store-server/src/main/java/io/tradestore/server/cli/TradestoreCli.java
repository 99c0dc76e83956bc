package io.tradestore.server.cli;

import java.io.PrintWriter;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code tradestore} command. Exit codes: 0 success, 1 failed operation, 2 bad usage. Messages go to stderr,
 * data to stdout; users see messages, never stack traces.
 */
@Command(name = "tradestore", mixinStandardHelpOptions = true, version = "tradestore 0.1.0",
    description = "Off-heap columnar trade store with a vectorised query engine.",
    subcommands = {CommandLine.HelpCommand.class, CreateCommand.class, LoadCommand.class, GenerateCommand.class,
        QueryCommand.class,
        ServeCommand.class, InfoCommand.class, CheckCommand.class, DropCommand.class, RetainCommand.class,
        ExportCommand.class,
        DemoCommand.class})
public final class TradestoreCli implements Runnable {
    /** Exit code of a failed operation. */
    public static final int EXIT_FAILED = 1;
    /** Exit code of bad usage. */
    public static final int EXIT_USAGE = 2;
    /** The system property with which chronicle-core turns its usage analytics off. */
    static final String CHRONICLE_ANALYTICS = "chronicle.analytics.disable";

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command");
    }

    /**
     * Builds the command line with every subcommand and the project's error handling.
     *
     * @param out where data goes.
     * @param err where messages go.
     * @return the command line.
     */
    public static CommandLine commandLine(final PrintWriter out, final PrintWriter err) {
        final CommandLine cl = new CommandLine(new TradestoreCli());
        // picocli would read an argument '@file' as a file of arguments, split it into words and strip its quotes, so
        // 'query STORE @q.json' never reached the command; our own @file (CliSupport.textArgument) reads it whole
        cl.setExpandAtFiles(false);
        cl.setOut(out);
        cl.setErr(err);
        cl.setExitCodeExceptionMapper(e -> EXIT_FAILED);
        cl.setExecutionExceptionHandler((e, line, parseResult) -> {
            line.getErr().println("error: " + message(e));
            line.getErr().flush();
            return EXIT_FAILED;
        });
        cl.setParameterExceptionHandler((e, args) -> {
            final CommandLine line = e.getCommandLine();
            line.getErr().println("error: " + e.getMessage());
            line.getErr().println("try '" + line.getCommandSpec().qualifiedName() + " --help'");
            line.getErr().flush();
            return EXIT_USAGE;
        });
        return cl;
    }

    private static String message(final Throwable e) {
        final String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }

    /**
     * Runs the command line.
     *
     * @param args arguments.
     */
    public static void main(final String[] args) {
        quietChronicle();
        final PrintWriter out = new PrintWriter(System.out, true);
        final PrintWriter err = new PrintWriter(System.err, true);
        final int code = commandLine(out, err).execute(args);
        out.flush();
        err.flush();
        System.exit(code);
    }

    /**
     * Turns chronicle-core's usage analytics off unless the user set the property: {@code bin/tradestore} passes it on
     * the command line, but {@code java -jar tradestore.jar} cannot (a manifest sets no system properties), and a store
     * must never call out of the machine. Chronicle reads it when its analytics first load, after this.
     */
    static void quietChronicle() {
        if (System.getProperty(CHRONICLE_ANALYTICS) == null) {
            System.setProperty(CHRONICLE_ANALYTICS, "true");
        }
    }
}
