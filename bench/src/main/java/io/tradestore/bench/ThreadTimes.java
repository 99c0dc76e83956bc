package io.tradestore.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a process's threads spent a stretch of wall time, from Linux's {@code /proc/self/task/TID/schedstat} (ns on a
 * CPU, ns runnable but waiting for one) and {@code stat} (user and kernel ticks): sampled every 100 ms on
 * a daemon thread so that threads which end before {@link #stop()} (a loader's pool) still count. Threads are grouped
 * by name with digits removed ({@code GC Thread#0} and {@code GC Thread#1} are one group). On a system without these
 * files it reports nothing.
 */
final class ThreadTimes {
    private static final Path TASKS = Paths.get("/proc/self/task");
    private static final long TICK_NS = 10_000_000L;
    private static final com.sun.management.OperatingSystemMXBean OS =
        (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();

    /** The last sample of one thread. */
    private static final class Sample {
        String name;
        long cpuNs;
        long delayNs;
        long userTicks;
        long systemTicks;
    }

    private final Map<String, Sample> first = new HashMap<>();
    private final Map<String, Sample> last = new HashMap<>();
    private final Thread sampler;
    private final long startNanos = System.nanoTime();
    private volatile boolean running = true;

    private final Map<String, Long> processesFirst = byPid(processTicks());
    private final long[] cpuFirst = machineTicks();
    private final long processCpuFirst = OS.getProcessCpuTime();

    private ThreadTimes() {
        sample(first);
        sampler = new Thread(() -> {
            while (running) {
                sample(last);
                try {
                    Thread.sleep(100);
                } catch (final InterruptedException e) {
                    return;
                }
            }
        }, "thread-times");
        sampler.setDaemon(true);
        sampler.start();
    }

    /** @return a sampler started now. */
    static ThreadTimes start() {
        return new ThreadTimes();
    }

    /**
     * Stops sampling and renders one line per thread group: CPU seconds (user + kernel), seconds runnable but waiting
     * for a CPU, and the rest of the wall time (blocked or sleeping) for groups that lived through the whole stretch.
     *
     * @return the report (empty without /proc).
     */
    String stop() {
        final double wall = (System.nanoTime() - startNanos) / 1e9;
        running = false;
        try {
            sampler.join(1000);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sample(last);
        final Map<String, double[]> groups = new TreeMap<>();
        for (final Map.Entry<String, Sample> e : last.entrySet()) {
            final Sample s = e.getValue();
            final Sample f = first.get(e.getKey());
            final String group = s.name.replaceAll("[0-9]+", "#");
            final double[] g = groups.computeIfAbsent(group, k -> new double[5]);
            g[0] += (s.cpuNs - (f == null ? 0 : f.cpuNs)) / 1e9;
            g[1] += (s.delayNs - (f == null ? 0 : f.delayNs)) / 1e9;
            g[2] += (s.userTicks - (f == null ? 0 : f.userTicks)) * (double) TICK_NS / 1e9;
            g[3] += (s.systemTicks - (f == null ? 0 : f.systemTicks)) * (double) TICK_NS / 1e9;
            g[4]++;
        }
        final StringBuilder sb = new StringBuilder();
        final long[] cpuLast = machineTicks();
        if (cpuLast.length >= 8 && cpuFirst.length >= 8) {
            // /proc/stat's cpu line: user nice system idle iowait irq softirq steal, in ticks; busy = all but idle and
            // iowait
            long busy = 0;
            for (int i = 0; i < 8; i++) {
                if (i != 3 && i != 4 && i != 7) {
                    busy += cpuLast[i] - cpuFirst[i];
                }
            }
            final double process = (OS.getProcessCpuTime() - processCpuFirst) / 1e9;
            sb.append(String.format(Locale.ROOT,
                "  machine over %.3f s wall: busy %.2f cpu s (this process %.2f, others %.2f), idle %.2f, iowait %.2f,"
                + " steal %.2f%n", wall, busy * (double) TICK_NS / 1e9, process,
                busy * (double) TICK_NS / 1e9 - process,
                (cpuLast[3] - cpuFirst[3]) * (double) TICK_NS / 1e9,
                (cpuLast[4] - cpuFirst[4]) * (double) TICK_NS / 1e9,
                (cpuLast[7] - cpuFirst[7]) * (double) TICK_NS / 1e9));
        }
        final Map<String, Long> processesLast = processTicks();
        final List<Map.Entry<String, Long>> others = new ArrayList<>();
        for (final Map.Entry<String, Long> e : processesLast.entrySet()) {
            final String pid = e.getKey().substring(0, e.getKey().indexOf('/'));
            final long d = e.getValue() - processesFirst.getOrDefault(pid, 0L);
            if (d > 0 && !pid.equals(Long.toString(ProcessHandle.current().pid()))) {
                others.add(Map.entry(e.getKey(), d));
            }
        }
        others.sort((a, b) -> Long.compare(b.getValue(), a.getValue()));
        if (!others.isEmpty()) {
            sb.append("  other processes (pid/name: cpu s):");
            for (int i = 0; i < Math.min(5, others.size()); i++) {
                sb.append(String.format(Locale.ROOT, " %s %.2f", others.get(i).getKey(),
                    others.get(i).getValue() * (double) TICK_NS / 1e9));
            }
            sb.append(System.lineSeparator());
        }
        sb.append(String.format(Locale.ROOT,
            "  threads over %.3f s wall: group (count): cpu s (user/sys), waiting for a cpu s%n", wall));
        for (final Map.Entry<String, double[]> e : groups.entrySet()) {
            final double[] g = e.getValue();
            if (g[0] + g[1] < 0.005) {
                continue;
            }
            sb.append(String.format(Locale.ROOT, "  %-28s (%2.0f): cpu %6.3f (%.2f/%.2f), runnable-waiting %6.3f%n",
                e.getKey(), g[4], g[0],
                g[2], g[3], g[1]));
        }
        return sb.toString();
    }

    /** @return the same ticks keyed by pid alone (a kernel worker's name changes with its work). */
    private static Map<String, Long> byPid(final Map<String, Long> ticks) {
        final Map<String, Long> m = new HashMap<>();
        for (final Map.Entry<String, Long> e : ticks.entrySet()) {
            m.put(e.getKey().substring(0, e.getKey().indexOf('/')), e.getValue());
        }
        return m;
    }

    /** @return user + system ticks of every process (pid/name), from /proc/PID/stat; empty without /proc. */
    private static Map<String, Long> processTicks() {
        final Map<String, Long> ticks = new HashMap<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(Paths.get("/proc"), "[0-9]*")) {
            for (final Path proc : ds) {
                try {
                    final String stat = Files.readString(proc.resolve("stat"));
                    final int close = stat.lastIndexOf(')');
                    final String[] f = stat.substring(close + 2).split(" ");
                    ticks.put(proc.getFileName() + "/" + stat.substring(stat.indexOf('(') + 1, close),
                        Long.parseLong(f[11]) + Long.parseLong(f[12]));
                } catch (final IOException | RuntimeException e) {
                    // the process ended between listing and reading
                }
            }
        } catch (final IOException e) {
            // no /proc
        }
        return ticks;
    }

    /** @return the machine's cpu line of /proc/stat (ticks per state), or an empty array. */
    private static long[] machineTicks() {
        try {
            final String line = Files.readAllLines(Paths.get("/proc/stat")).get(0);
            final String[] f = line.trim().split("\\s+");
            final long[] t = new long[f.length - 1];
            for (int i = 1; i < f.length; i++) {
                t[i - 1] = Long.parseLong(f[i]);
            }
            return t;
        } catch (final IOException | RuntimeException e) {
            return new long[0];
        }
    }

    private static void sample(final Map<String, Sample> into) {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(TASKS)) {
            for (final Path task : ds) {
                try {
                    final String[] sched = Files.readString(task.resolve("schedstat")).trim().split(" ");
                    final String stat = Files.readString(task.resolve("stat"));
                    final int close = stat.lastIndexOf(')');
                    final String name = stat.substring(stat.indexOf('(') + 1, close);
                    final String[] f = stat.substring(close + 2).split(" ");
                    final String key = task.getFileName() + "/" + name;
                    final Sample s = into.computeIfAbsent(key, k -> new Sample());
                    s.name = name;
                    s.cpuNs = Long.parseLong(sched[0]);
                    s.delayNs = Long.parseLong(sched[1]);
                    s.userTicks = Long.parseLong(f[11]);
                    s.systemTicks = Long.parseLong(f[12]);
                } catch (final IOException | RuntimeException e) {
                    // the thread ended between listing and reading
                }
            }
        } catch (final IOException e) {
            // no /proc: nothing to report
        }
    }
}
