package io.tradestore.core;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM running {@link StoreChild} with this JVM's java, class path and tradestore flags. Its stdout lines are
 * queued by a reader thread; every wait is bounded.
 */
public final class ChildJvm implements AutoCloseable {
    private static final String EOF = "\u0000EOF";
    private final Process process;
    private final Path stderr;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Thread reader;

    private ChildJvm(final Process process, final Path stderr) {
        this.process = process;
        this.stderr = stderr;
        this.reader = new Thread(this::pump, "child-stdout-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@link StoreChild} with the given arguments.
     *
     * @param args mode and arguments.
     * @return the running child.
     * @throws IOException when it cannot be started.
     */
    public static ChildJvm start(final String... args) throws IOException {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmFlags());
        cmd.add("-Xmx128m");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(StoreChild.class.getName());
        cmd.addAll(Arrays.asList(args));
        final Path err = Files.createTempFile("tradestore-child", ".err");
        final Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        return new ChildJvm(p, err);
    }

    /** @return the flags of the parent pom's {@code tradestore.jvmFlags}, or this JVM's equivalent flags. */
    static List<String> jvmFlags() {
        final String flags = System.getProperty("tradestore.jvmFlags");
        if (flags != null && !flags.isBlank() && !flags.contains("${")) {
            return Arrays.asList(flags.trim().split("\\s+"));
        }
        final List<String> own = new ArrayList<>();
        for (final String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-") || a.startsWith("--enable-native") || a.startsWith("--sun-misc") || a
                .startsWith("-XX:+Ignore")
                || a.startsWith("-Dchronicle")) {
                own.add(a);
            }
        }
        return own;
    }

    private void pump() {
        try (BufferedReader r =
            new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
            }
        } catch (final IOException e) {
            // the child died: EOF below
        }
        lines.add(EOF);
    }

    /**
     * Waits for the next stdout line starting with {@code prefix}, skipping others.
     *
     * @param prefix  the line's start.
     * @param timeout how long to wait at most.
     * @param unit    its unit.
     * @return the line.
     * @throws InterruptedException when interrupted.
     */
    public String await(final String prefix, final long timeout, final TimeUnit unit) throws InterruptedException {
        final long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            final long left = deadline - System.nanoTime();
            final String line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
            if (line == null) {
                throw new AssertionError("child " + process.pid() + " printed no '" + prefix + "' within " + timeout
                    + " " + unit
                    + "; stderr: " + stderr());
            }
            if (line.equals(EOF)) {
                lines.add(EOF);
                throw new AssertionError("child " + process.pid() + " ended before printing '" + prefix + "'; stderr: "
                    + stderr());
            }
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    /**
     * Waits at most {@code millis} for the child to exit.
     *
     * @param millis the bound.
     * @return whether it exited.
     * @throws InterruptedException when interrupted.
     */
    public boolean waitFor(final long millis) throws InterruptedException {
        return process.waitFor(millis, TimeUnit.MILLISECONDS);
    }

    /** @return whether the child is still running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Kills the child with SIGKILL ({@link Process#destroyForcibly()} on Linux) and waits until it is gone.
     *
     * @throws InterruptedException when interrupted.
     */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("child " + process.pid() + " survived SIGKILL for 30 s");
        }
    }

    /**
     * Waits for stdout to end and returns every line not consumed yet.
     *
     * @return the lines.
     * @throws InterruptedException when interrupted.
     */
    public List<String> drain() throws InterruptedException {
        reader.join(TimeUnit.SECONDS.toMillis(30));
        final List<String> rest = new ArrayList<>();
        lines.drainTo(rest);
        rest.remove(EOF);
        return rest;
    }

    /** Closes the child's stdin (the signal for {@code hold} to let go). */
    public void closeStdin() {
        try {
            process.getOutputStream().close();
        } catch (final IOException e) {
            // already gone
        }
    }

    /** @return the child's exit code (it must have exited). */
    public int exitValue() {
        return process.exitValue();
    }

    /** @return what the child wrote to stderr so far. */
    public String stderr() {
        try {
            return Files.readString(stderr, StandardCharsets.UTF_8);
        } catch (final IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    /** Kills the child if it still runs and removes its stderr file. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
        reader.join(TimeUnit.SECONDS.toMillis(10));
        try {
            Files.deleteIfExists(stderr);
        } catch (final IOException e) {
            // a temp file left behind is harmless
        }
    }
}
