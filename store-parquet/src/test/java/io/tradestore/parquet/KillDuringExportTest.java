package io.tradestore.parquet;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.schema.Layout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SIGKILL of an export at random points: what is left is whole files only (every visible Parquet file has its footer,
 * every file the manifest names has its checksum), and a re-run leaves the same bytes as an export never interrupted.
 */
class KillDuringExportTest {
    @TempDir
    Path tmp;

    @Test
    void shouldLeaveWholeFilesAndFinishOnTheNextRunAfterAKill() throws Exception {
        final Path storeDir = tmp.resolve("store");
        try (Store store = Store.open(storeDir)) {
            final ExportTables t = new ExportTables(store, ExportTables.schema("killed", Layout.COLUMN, 256), 21);
            t.append(40_000, 0, 12);
        }
        final Map<String, byte[]> reference;
        try (Store store = Store.open(storeDir)) {
            ParquetExport.export(store.table("killed"), ExportOptions.defaults(tmp.resolve("reference"))
                .withIncludeOpen(true));
            reference = contents(tmp.resolve("reference/killed"));
        }
        assertThat(reference).hasSizeGreaterThan(150);
        final SplittableRandom random = new SplittableRandom(99);
        int interrupted = 0;
        for (int round = 0; round < 3; round++) {
            final Path out = tmp.resolve("run" + round);
            final Process child = start(storeDir, out);
            try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
                assertThat(r.readLine()).isEqualTo("started");
                Thread.sleep(50 + random.nextInt(round == 0 ? 300 : 1000));
                child.destroyForcibly(); // SIGKILL
                assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            }
            final Path dir = out.resolve("killed");
            if (Files.isDirectory(dir)) {
                final Map<String, byte[]> left = contents(dir);
                if (left.size() < reference.size()) {
                    interrupted++;
                }
                checkWhole(dir, left);
            }
            try (Store store = Store.open(storeDir)) {
                ParquetExport.export(store.table("killed"), ExportOptions.defaults(out).withIncludeOpen(true));
            }
            final Map<String, byte[]> after = contents(dir);
            assertThat(after.keySet()).isEqualTo(reference.keySet());
            for (final Map.Entry<String, byte[]> e : reference.entrySet()) {
                assertThat(after.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
            }
        }
        assertThat(interrupted).as("exports killed before they were done").isPositive();
    }

    /** Every visible Parquet file reads as Parquet; every file in the manifest matches its length and checksum. */
    private static void checkWhole(final Path dir, final Map<String, byte[]> files) throws Exception {
        for (final Map.Entry<String, byte[]> e : files.entrySet()) {
            if (e.getKey().endsWith(".parquet")) {
                try (ParquetFileReader f = ParquetFileReader.open(new LocalInputFile(dir.resolve(e.getKey())))) {
                    assertThat(f.getRecordCount()).as(e.getKey()).isPositive();
                }
            }
        }
        final ExportManifest m = ExportManifest.read(dir);
        if (m == null) {
            return;
        }
        for (final ExportManifest.FileEntry f : m.files()) {
            final byte[] bytes = files.get(f.path());
            assertThat(bytes).as("manifest names %s", f.path()).isNotNull();
            final CRC32C crc = new CRC32C();
            crc.update(bytes);
            assertThat(crc.getValue()).as(f.path()).isEqualTo(f.crc32c());
            assertThat((long) bytes.length).isEqualTo(f.bytes());
        }
    }

    /** @return the export's files (Parquet and manifest, not the lock or temporaries) by relative path. */
    private static Map<String, byte[]> contents(final Path dir) throws Exception {
        final Map<String, byte[]> m = new TreeMap<>();
        for (final Path p : ParquetExportTest.files(dir)) {
            final String name = p.getFileName().toString();
            if (name.endsWith(".parquet") || name.equals(ExportManifest.NAME)) {
                m.put(dir.relativize(p).toString(), Files.readAllBytes(p));
            }
        }
        return m;
    }

    private static Process start(final Path store, final Path out) throws Exception {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        final String flags = System.getProperty("tradestore.jvmFlags", "");
        if (!flags.isBlank() && !flags.contains("${")) {
            cmd.addAll(Arrays.asList(flags.trim().split("\\s+")));
        }
        cmd.addAll(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
            ExportChild.class.getName(), store.toString(), "killed", out.toString()));
        return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }
}
