package io.tradestore.core.ingest;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TestRows;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.sample.TradeGenerator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SIGKILL a loading child JVM at random points: the table must always reopen at a commit boundary (before the load,
 * a complete commit-every batch, or the whole file), hold exactly the file's first rows of this load, have no
 * dictionary entries beyond what its rows use, and accept the same load again.
 */
@ExtendWith(TestRows.NoLeaks.class)
class KillDuringLoadTest {
    private static final int ROWS = 150_000;
    private static final long COMMIT_EVERY = 40_000;
    private static final int KILLS = 10;

    @TempDir
    Path dir;

    @Test
    void shouldReopenAtACommitBoundaryAfterKillDuringLoad() throws Exception {
        final Path csv = dir.resolve("t.csv");
        TradeGenerator.writeCsv(csv, ROWS, 99);
        final Path store = dir.resolve("store");
        final Path seedCsv = dir.resolve("seed.csv");
        TradeGenerator.writeCsv(seedCsv, 1_000, 98);
        IngestFixtures.load(store, TradesSchema.SCHEMA.with("trades", Layout.COLUMN, 1 << 16, 1 << 12),
            LoadOptions.defaults(), seedCsv);
        // Calibrate: how long does one whole load take in a child on this machine, now? Kill moments are drawn within
        // that span, so "most kills land during the load" holds on a fast quiet machine and on a loaded one alike.
        final long loadMillis = timeOneLoad(store, csv);
        final SplittableRandom random = new SplittableRandom(4242);
        int killedMidway = 0;
        for (int i = 0; i < KILLS; i++) {
            final long before = rows(store);
            final long commitEvery = i % 2 == 0 ? 0 : COMMIT_EVERY;
            final Process child = start(store, csv, commitEvery);
            try {
                final CompletableFuture<String> loading = CompletableFuture.supplyAsync(() -> firstLine(child));
                assertThat(loading.get(60, TimeUnit.SECONDS)).isEqualTo("loading");
                final long delayMillis = random.nextLong(0, Math.max(2, loadMillis * 9 / 10));
                final boolean exited = child.waitFor(delayMillis, TimeUnit.MILLISECONDS);
                child.destroyForcibly();
                assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
                if (!exited) {
                    killedMidway++;
                }
            } finally {
                child.destroyForcibly();
            }
            final long loaded = rows(store) - before;
            if (commitEvery == 0) {
                assertThat(loaded).as("kill %d (single commit)", i).isIn(0L, (long) ROWS);
            } else {
                assertThat(loaded % COMMIT_EVERY == 0 || loaded == ROWS)
                    .as("kill %d: %d rows is a commit boundary", i, loaded).isTrue();
            }
            verifyPrefix(store, before, loaded);
        }
        assertThat(killedMidway).as("most kills land during the load").isGreaterThan(KILLS / 2);
        final long before = rows(store);
        final LoadResult r = IngestFixtures.load(store, TradesSchema.SCHEMA, LoadOptions.defaults(), csv);
        assertThat(r.rowsLoaded()).isEqualTo(ROWS);
        assertThat(rows(store)).isEqualTo(before + ROWS);
        verifyPrefix(store, before, ROWS);
    }

    /** Runs one load to completion in a child and returns the milliseconds from its "loading" line to its exit. */
    private static long timeOneLoad(final Path store, final Path csv) throws Exception {
        final long before = rows(store);
        final Process child = start(store, csv, 0);
        try {
            final CompletableFuture<String> loading = CompletableFuture.supplyAsync(() -> firstLine(child));
            assertThat(loading.get(60, TimeUnit.SECONDS)).isEqualTo("loading");
            final long start = System.nanoTime();
            assertThat(child.waitFor(120, TimeUnit.SECONDS)).as("calibration load finishes").isTrue();
            assertThat(child.exitValue()).as("calibration load exit code").isZero();
            final long millis = (System.nanoTime() - start) / 1_000_000;
            assertThat(rows(store) - before).isEqualTo(ROWS);
            verifyPrefix(store, before, ROWS);
            return millis;
        } finally {
            child.destroyForcibly();
        }
    }

    private static String firstLine(final Process p) {
        try {
            final BufferedReader r =
                new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            final String line = r.readLine();
            return line == null ? "<eof>" : line;
        } catch (final IOException e) {
            return "<" + e + ">";
        }
    }

    private static Process start(final Path store, final Path csv, final long commitEvery) throws IOException {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (final String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!a.startsWith("-agentlib") && !a.startsWith("-javaagent") && !a.startsWith("-Xmx")) {
                cmd.add(a);
            }
        }
        cmd.add("-Xmx256m");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(LoadChild.class.getName());
        cmd.add(store.toString());
        cmd.add(csv.toString());
        cmd.add(Long.toString(commitEvery));
        return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    private static long rows(final Path store) {
        try (Store s = Store.open(store); TableReader r = s.table("trades").reader()) {
            return r.snapshot().rowCount();
        }
    }

    /**
     * Rows [before, before + loaded) are the file's first rows (trade ids 1..loaded); dictionaries hold only used
     * symbols.
     */
    private static void verifyPrefix(final Path store, final long before, final long loaded) {
        try (Store s = Store.open(store); TableReader r = s.table("trades").reader()) {
            final TableSnapshot snap = r.snapshot();
            final TradeFlyweight f = new TradeFlyweight().bind(snap);
            final Set<Integer> venues = new HashSet<>();
            final Set<Integer> instruments = new HashSet<>();
            long row = 0;
            while (f.next()) {
                if (row >= before) {
                    assertThat(f.tradeId()).as("row %d", row).isEqualTo(row - before + 1);
                }
                venues.add(f.venue());
                instruments.add(f.instrument());
                row++;
            }
            assertThat(row).isEqualTo(before + loaded);
            assertThat(snap.dictionarySize(snap.schema().indexOf("venue"))).isEqualTo(venues.size());
            assertThat(snap.dictionarySize(snap.schema().indexOf("instrument"))).isEqualTo(instruments.size());
        }
    }
}
