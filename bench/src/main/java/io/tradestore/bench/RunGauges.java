package io.tradestore.bench;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Stream;

/** What the JVM and the machine report around a layouts run: CPU time, heap, collections, directory size, CPU. */
final class RunGauges {
    private RunGauges() {
    }

    /** @return CPU time of this process (all threads), ns, or -1 where the JVM cannot tell. */
    static long processCpuNs() {
        final java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean ? ((com.sun.management.OperatingSystemMXBean) os)
            .getProcessCpuTime() : -1;
    }

    static long heapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** @return {collections, collection ms} over all collectors so far. */
    static long[] gc() {
        long count = 0;
        long ms = 0;
        for (final GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, b.getCollectionCount());
            ms += Math.max(0, b.getCollectionTime());
        }
        return new long[] {count, ms};
    }

    /** Best of the repetitions after the first two (warm-up): on a shared machine contention only adds time. */
    static double best(final double[] v) {
        double b = Double.MAX_VALUE;
        for (int i = Math.min(2, v.length - 1); i < v.length; i++) {
            b = Math.min(b, v[i]);
        }
        return b;
    }

    static long directoryBytes(final Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    static String machine() {
        String cpu = "unknown CPU";
        try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            cpu = lines.filter(l -> l.startsWith("model name")).findFirst()
                .map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse(cpu);
        } catch (final IOException | RuntimeException e) {
            // not Linux
        }
        return String.format(Locale.ROOT, "%s, %d cores, %d GiB max heap, JDK %s (%s)", cpu,
            Runtime.getRuntime().availableProcessors(),
            Runtime.getRuntime().maxMemory() >> 30, System.getProperty("java.version"),
            System.getProperty("java.vm.name"));
    }
}
