package io.tradestore.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A {@code tradestore} command in a child JVM with the project's flags, its output collected line by line. */
public final class ChildJvm implements AutoCloseable {
    private static final Pattern PORT = Pattern.compile("http://127\\.0\\.0\\.1:(\\d+)");
    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final StringBuffer all = new StringBuffer();
    private final List<Thread> pumps = new ArrayList<>();

    private ChildJvm(final Process process) {
        this.process = process;
        pump(process.getInputStream(), "out: ");
        pump(process.getErrorStream(), "err: ");
    }

    /**
     * Starts {@code TradestoreCli} with arguments.
     *
     * @param args the command line.
     * @return the running child.
     */
    public static ChildJvm start(final String... args) {
        return startMain("io.tradestore.server.cli.TradestoreCli", args);
    }

    /**
     * Starts any main class of the test classpath.
     *
     * @param mainClass the class.
     * @param args      its arguments.
     * @return the running child.
     */
    public static ChildJvm startMain(final String mainClass, final String... args) {
        return startMain(mainClass, java.util.Map.of(), 0, args);
    }

    /**
     * Starts {@code TradestoreCli} with extra environment variables and, when {@code maxFiles > 0}, under
     * {@code ulimit -n maxFiles} (through /bin/sh).
     *
     * @param env      variables added to the child's environment.
     * @param maxFiles the child's file-descriptor limit, or 0 to inherit it.
     * @param args     the command line.
     * @return the running child.
     */
    public static ChildJvm startCli(final java.util.Map<String, String> env, final int maxFiles, final String... args) {
        return startMain("io.tradestore.server.cli.TradestoreCli", env, maxFiles, args);
    }

    private static ChildJvm startMain(final String mainClass, final java.util.Map<String, String> env,
        final int maxFiles, final String... args) {
        final List<String> cmd = new ArrayList<>();
        if (maxFiles > 0) {
            // "$@" keeps every argument whole; exec leaves the JVM as the process the test signals
            cmd.addAll(List.of("/bin/sh", "-c", "ulimit -n " + maxFiles + " && exec \"$@\"", "sh"));
        }
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        final String flags = System.getProperty("tradestore.jvmFlags", "");
        for (final String f : flags.trim().split("\\s+")) {
            if (!f.isEmpty()) {
                cmd.add(f);
            }
        }
        cmd.add("-Xmx512m");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(Arrays.asList(args));
        try {
            final ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.environment().putAll(env);
            return new ChildJvm(pb.start());
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void pump(final java.io.InputStream in, final String prefix) {
        final Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    // one append per line: the stdout and stderr pumps append to the same buffer, and three
                    // appends could interleave with the other pump's, leaving "out: err: ..." lines
                    all.append(prefix + line + '\n');
                    lines.add(prefix + line);
                }
            } catch (final IOException e) {
                // the process ended
            }
        }, "child-output");
        t.setDaemon(true);
        t.start();
        pumps.add(t);
    }

    /**
     * Waits for a line containing {@code text}.
     *
     * @param text    what to look for.
     * @param seconds how long to wait.
     * @return the line.
     */
    public String awaitLine(final String text, final long seconds) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            final String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line != null && line.contains(text)) {
                return line;
            }
            if (line == null && !process.isAlive() && lines.isEmpty()) {
                break;
            }
        }
        throw new AssertionError("no line containing '" + text + "' within " + seconds + " s; output:\n" + all);
    }

    /**
     * Waits for the server's "http://127.0.0.1:PORT" line.
     *
     * @return the port.
     */
    public int awaitPort() throws InterruptedException {
        final Matcher m = PORT.matcher(awaitLine("http://127.0.0.1:", 60));
        if (!m.find()) {
            throw new AssertionError("no port in output:\n" + all);
        }
        return Integer.parseInt(m.group(1));
    }

    /** @return the process id. */
    public long pid() {
        return process.pid();
    }

    /** @return whether the process is still running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Sends SIGTERM (through the handle: Process.destroy() would also close our ends of its output pipes). */
    public void terminate() {
        process.toHandle().destroy();
    }

    /**
     * Waits for the exit.
     *
     * @param seconds how long to wait.
     * @return the exit code.
     */
    public int waitFor(final long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("still running after " + seconds + " s; output:\n" + all);
        }
        for (final Thread t : pumps) {
            t.join(TimeUnit.SECONDS.toMillis(seconds));
        }
        return process.exitValue();
    }

    /** @return everything printed so far, lines prefixed "out: " or "err: ". */
    public String output() {
        return all.toString();
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
