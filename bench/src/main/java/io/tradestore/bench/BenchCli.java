package io.tradestore.bench;

import java.nio.file.Path;
import java.util.List;

import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * What the harnesses' command lines share: running a picocli command as the process, the checks of option values that
 * picocli applies while it parses (counts, row counts, segment sizes, words from a fixed list), and the {@code --store}
 * option of the harnesses that work on the HTTP benchmark's store. A bad value is refused before anything runs.
 */
final class BenchCli {
    /** The store bench/http-bench.sh fills with 50M generated trades and the probes read. */
    static final Path BENCH_STORE = Path.of("/tmp/tradestore-bench-50m");

    private BenchCli() {
    }

    /**
     * Runs a command as the process and exits with its code: 0 when it ran, 1 when it failed (the exception's trace on
     * stderr), 2 on bad usage (picocli's message and the usage on stderr); {@code --help} prints the usage and runs
     * nothing.
     *
     * @param command a picocli {@code @Command} that is a {@link Runnable} or {@link java.util.concurrent.Callable}.
     * @param args    the process's arguments.
     */
    static void exit(final Object command, final String[] args) {
        System.exit(commandLine(command).execute(args));
    }

    /**
     * Parses arguments into a command without running it.
     *
     * @param command the command, which receives the values.
     * @param args    arguments.
     * @param <T>     its type.
     * @return the command.
     * @throws CommandLine.ParameterException on bad usage.
     */
    static <T> T parse(final T command, final String... args) {
        commandLine(command).parseArgs(args);
        return command;
    }

    /**
     * The command line of a harness.
     *
     * @param command the command.
     * @return its command line.
     */
    static CommandLine commandLine(final Object command) {
        // an option given twice keeps its last value, as the harnesses' scripts rely on (extra options after defaults)
        return new CommandLine(command).setOverwrittenOptionsAllowed(true)
            .setExecutionExceptionHandler((e, line, parsed) -> {
            // a developer's tool: the trace shows which step of a long run failed and where
            line.getErr().println(line.getCommandName() + ": failed: " + e);
            e.printStackTrace(line.getErr());
            line.getErr().flush();
            return 1;
        });
    }

    /** {@code --store DIR}: the store of generated trades a harness works on. */
    static final class StoreOption {
        @Option(names = "--store", paramLabel = "DIR",
            description = "store with a trades table of generated trades, the one bench/http-bench.sh"
            + " fills (default: ${DEFAULT-VALUE})")
        Path dir = BENCH_STORE;
    }

    /** The fixed-rate load's options, the same for the HTTP and the SQL harness. */
    static final class LoadOptions {
        @Option(names = "--seconds", paramLabel = "S", converter = Count.class,
            description = "seconds per measured load step (default: ${DEFAULT-VALUE})")
        int seconds = 10;

        @Option(names = "--connections", paramLabel = "C", converter = Count.class,
            description = "client connections of the load (default: ${DEFAULT-VALUE})")
        int connections = 32;

        @Option(names = "--server-threads", paramLabel = "T", converter = Count.class,
            description = "server worker threads (default: the cores, ${DEFAULT-VALUE})")
        int serverThreads = Runtime.getRuntime().availableProcessors();

        @Option(names = "--rate", paramLabel = "R",
            description = "skip the search and load at R requests/s; bench/http-bench.sh then also prints the CPU "
            + "time of each thread group (default: search)")
        double fixedRate;

        /** @param command the command these options belong to. */
        void check(final Object command) {
            if (fixedRate < 0 || Double.isNaN(fixedRate)) {
                throw new ParameterException(new CommandLine(command), "--rate " + fixedRate
                    + " must not be negative");
            }
        }
    }

    /** A whole number within bounds, written with optional underscores between digits ({@code 50_000_000}). */
    abstract static class Range<T extends Number> implements ITypeConverter<T> {
        private final long min;
        private final long max;

        Range(final long min, final long max) {
            this.min = min;
            this.max = max;
        }

        @Override
        public T convert(final String value) {
            final long n;
            try {
                n = Long.parseLong(value.replace("_", ""));
            } catch (final NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is not a whole number");
            }
            if (n < min || n > max) {
                throw new TypeConversionException("'" + value + "' must be "
                    + (n < min ? "at least " + min : "at most " + max));
            }
            return box(n);
        }

        /** @return the value as the option's type. */
        abstract T box(long n);
    }

    /** An {@code int} within bounds. */
    abstract static class IntRange extends Range<Integer> {
        IntRange(final int min, final int max) {
            super(min, max);
        }

        @Override
        Integer box(final long n) {
            return (int) n;
        }
    }

    /** A {@code long} of at least a minimum. */
    abstract static class LongRange extends Range<Long> {
        LongRange(final long min) {
            super(min, Long.MAX_VALUE);
        }

        @Override
        Long box(final long n) {
            return n;
        }
    }

    /** A count of at least 1 (threads, runs, repetitions, MiB). */
    static final class Count extends IntRange {
        Count() {
            super(1, Integer.MAX_VALUE);
        }
    }

    /** A count that may be 0 (warm-ups, milliseconds of quiet, repetitions that can be left out). */
    static final class NonNegative extends IntRange {
        NonNegative() {
            super(0, Integer.MAX_VALUE);
        }
    }

    /** A row count of at least 1. */
    static final class Rows extends LongRange {
        Rows() {
            super(1);
        }
    }

    /** Milliseconds, 0 or more. */
    static final class Millis extends LongRange {
        Millis() {
            super(0);
        }
    }

    /** Rows per segment: a power of two of at least 2, as a schema needs. */
    static final class SegmentRows extends IntRange {
        SegmentRows() {
            super(2, Integer.MAX_VALUE);
        }

        @Override
        Integer box(final long n) {
            if (Long.bitCount(n) != 1) {
                throw new TypeConversionException("'" + n + "' must be a power of two, such as 4096");
            }
            return (int) n;
        }
    }

    /**
     * One of a fixed list of words (a subclass per list), so a misspelt step, variant or workload stops the run at
     * once.
     */
    abstract static class OneOf implements ITypeConverter<String> {
        private final List<String> words;
        private final String noun;

        OneOf(final List<String> words, final String noun) {
            this.words = words;
            this.noun = noun;
        }

        @Override
        public String convert(final String value) {
            if (!words.contains(value)) {
                throw new TypeConversionException("'" + value + "'; the " + noun + " are " + String.join(", ", words));
            }
            return value;
        }
    }

    /** A workload of {@link HttpWorkload}. */
    static final class HttpKind extends OneOf {
        HttpKind() {
            super(HttpWorkload.KINDS, "workloads");
        }
    }
}
