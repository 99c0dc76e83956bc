package io.tradestore.server.cli;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.tradestore.core.Store;
import io.tradestore.core.StoreException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Helpers the commands share: refusing bad option values as bad usage, opening an existing store, reading arguments
 * from files, waiting for Ctrl-C.
 */
final class CliSupport {
    /**
     * The key a library message starts with: a schema's JSON path ({@code /segmentRows: 1000 must be ...}) or an
     * option's {@code key=value} ({@code threads=0 must be ...}).
     */
    private static final Pattern KEYED = Pattern.compile("/?([a-zA-Z][a-zA-Z0-9]*)(?:: |=)(.*)", Pattern.DOTALL);

    private CliSupport() {
    }

    /**
     * Refuses an option's value as bad usage (exit 2), worded as picocli words its own refusals.
     *
     * @param spec    the command.
     * @param option  the option as the user types it ({@code --rows}).
     * @param problem what is wrong with the value, starting with the value.
     * @return the exception to throw.
     */
    static ParameterException badValue(final CommandSpec spec, final String option, final String problem) {
        return new ParameterException(spec.commandLine(), "Invalid value for option '" + option + "': " + problem);
    }

    /**
     * Runs a step that checks option values (a schema built from {@code --table --segment-rows --block-rows}, load or
     * server options) and turns its refusal into bad usage (exit 2) that names the option the user typed: the library
     * names its own key ({@code /segmentRows: 1000 must be ...}, {@code threads=0 must be ...}), the camel-case form of
     * the option ({@code --segment-rows}, {@code --threads}); a table's {@code /name} is {@code --table}. A refusal
     * whose key is no option of the command keeps its message whole.
     *
     * @param spec the command.
     * @param step builds what the options configure; throws {@link StoreException} or {@link IllegalArgumentException}.
     * @param <T>  what it builds.
     * @return what the step built.
     */
    static <T> T checkOptions(final CommandSpec spec, final Supplier<T> step) {
        try {
            return step.get();
        } catch (final StoreException | IllegalArgumentException e) {
            final String message = String.valueOf(e.getMessage());
            final Matcher m = KEYED.matcher(message);
            if (m.matches()) {
                final String option = "name".equals(m.group(1)) ? "--table"
                    : "--" + m.group(1).replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
                if (spec.findOption(option) != null) {
                    throw badValue(spec, option, m.group(2));
                }
            }
            throw new ParameterException(spec.commandLine(), message, e);
        }
    }

    /**
     * Opens a store that must already exist (commands that read never create one by accident).
     *
     * @param dir the store directory.
     * @return the open store.
     */
    static Store openExisting(final Path dir) {
        if (!Files.isDirectory(dir)) {
            throw notAStore(dir, Files.exists(dir) ? "it is not a directory" : "there is no such directory");
        }
        return Store.open(dir);
    }

    /**
     * Opens a store that must already exist and hold at least one table: a command that reads every table (check) would
     * otherwise report nothing, and exit 0, on a directory that is no store at all.
     *
     * @param dir the store directory.
     * @return the open store, with at least one table.
     */
    static Store openWithTables(final Path dir) {
        final Store s = openExisting(dir);
        final boolean noTable;
        try {
            noTable = s.tableNames().isEmpty();
        } catch (final RuntimeException e) {
            s.close();
            throw e;
        }
        if (noTable) {
            s.close();
            final long entries;
            try (Stream<Path> list = Files.list(dir)) {
                entries = list.count();
            } catch (final IOException e) {
                throw new StoreException("cannot list store " + dir + ": " + StoreException.reason(e), e);
            }
            throw notAStore(dir, entries == 0 ? "it is empty"
                : "none of its " + entries + (entries == 1 ? " entry is" : " entries is") + " a table");
        }
        return s;
    }

    private static StoreException notAStore(final Path dir, final String why) {
        return new StoreException(dir + " is not a tradestore store: " + why + " (a store is a directory of tables, "
            + "each a subdirectory holding _schema.json and _txn, as 'tradestore create " + dir + "' or "
            + "'tradestore load " + dir + " FILE' makes them)");
    }

    /**
     * Resolves an argument that is either literal text, {@code @file} or {@code -} for stdin.
     *
     * @param arg the argument.
     * @param in  standard input.
     * @return the text.
     */
    static String textArgument(final String arg, final InputStream in) {
        try {
            if ("-".equals(arg)) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (arg.startsWith("@")) {
                return Files.readString(Path.of(arg.substring(1)), StandardCharsets.UTF_8);
            }
        } catch (final IOException e) {
            throw new StoreException("cannot read " + arg + ": " + StoreException.reason(e), e);
        }
        return arg;
    }

    /**
     * Returns a latch released by SIGINT (Ctrl-C) or SIGTERM, so that the caller can stop cleanly and exit 0. A second
     * signal while stopping ends the process at once (exit 130). Uses {@code sun.misc.Signal} by reflection (it is
     * exported by jdk.unsupported on every JDK, but naming it in source is a compiler warning); falls back to a
     * shutdown hook that waits for the caller to finish.
     *
     * @param stopped released by the caller when it has stopped, so a fallback shutdown hook can wait for it.
     * @return the latch to await.
     */
    static CountDownLatch terminationSignal(final CountDownLatch stopped) {
        final CountDownLatch latch = new CountDownLatch(1);
        final AtomicInteger signals = new AtomicInteger();
        final Runnable onSignal = () -> {
            if (signals.incrementAndGet() > 1) {
                Runtime.getRuntime().halt(130);
            }
            latch.countDown();
        };
        if (!(installSignal("INT", onSignal) && installSignal("TERM", onSignal))) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                latch.countDown();
                try {
                    stopped.await();
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "tradestore-shutdown"));
        }
        return latch;
    }

    private static boolean installSignal(final String name, final Runnable action) {
        try {
            final Class<?> signal = Class.forName("sun.misc.Signal");
            final Class<?> handler = Class.forName("sun.misc.SignalHandler");
            final InvocationHandler ih = (proxy, method, args) -> {
                switch (method.getName()) {
                    case "handle":
                        action.run();
                        return null;
                    case "hashCode":
                        return System.identityHashCode(proxy);
                    case "equals":
                        return proxy == args[0];
                    case "toString":
                        return "tradestore-signal-handler";
                    default:
                        return null;
                }
            };
            final Object h = Proxy.newProxyInstance(CliSupport.class.getClassLoader(), new Class<?>[] {handler}, ih);
            signal.getMethod("handle", signal, handler).invoke(null,
                signal.getConstructor(String.class).newInstance(name), h);
            return true;
        } catch (final ReflectiveOperationException | RuntimeException | LinkageError e) {
            return false;
        }
    }
}
