package io.tradestore.bench;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.ingest.CsvLoader;
import io.tradestore.core.ingest.LoadOptions;
import io.tradestore.core.ingest.LoadResult;
import io.tradestore.core.sample.TradeGenerator;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

/**
 * JMH: CSV field parsing through the public loader, one parser thread, input in memory: {@code rows} generated
 * trades (integers, an ISO-8601 timestamp, two symbols, a char, a decimal per row) parsed and appended into a fresh
 * table. The fresh table (created outside the timed region) has one preallocated segment that holds every row, so
 * the time is parsing, interning and the copy into mapped columns, not file creation. Divide the input size
 * ({@code ~65 bytes x rows}) by the time for MB/s.
 *
 * <pre>
 * bin/tradestore bench jmh CsvParseBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1,
    jvmArgsAppend =
    {"-Xmx1g", "-XX:+IgnoreUnrecognizedVMOptions", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED",
    "--sun-misc-unsafe-memory-access=allow",
    "-Dchronicle.analytics.disable=true", "-Dtradestore.boundsChecks=false"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Benchmark)
public class CsvParseBenchmark {
    /** Rows of CSV per operation (a power of two: one segment holds them). */
    @Param("1048576")
    public int rows;

    private byte[] csv;
    private Schema schema;
    private Path dir;
    private Store store;
    private TableWriter writer;

    /**
     * Generates the CSV once.
     *
     * @throws IOException never (in memory).
     */
    @Setup(Level.Trial)
    public void generate() throws IOException {
        final ByteArrayOutputStream out = new ByteArrayOutputStream(rows * 70);
        new TradeGenerator(rows, 42).writeCsv(out);
        csv = out.toByteArray();
        schema = TradesSchema.SCHEMA.with("trades", Layout.COLUMN, Integer.highestOneBit(rows * 2 - 1),
            Math.min(TradesSchema.SCHEMA.blockRows(), Integer.highestOneBit(rows * 2 - 1)));
    }

    /**
     * A fresh store and table for each load, outside the timed region.
     *
     * @throws IOException when the directory cannot be made.
     */
    @Setup(Level.Invocation)
    public void freshTable() throws IOException {
        dir = Files.createTempDirectory("tradestore-jmh-csv");
        store = Store.open(dir);
        writer = store.createTable(schema).writer();
    }

    /**
     * Closes and deletes it.
     *
     * @throws IOException when deleting fails.
     */
    @TearDown(Level.Invocation)
    public void dropTable() throws IOException {
        writer.close();
        store.close();
        BenchCommand.deleteTree(dir);
    }

    /** @return the loader's result (rows loaded). */
    @Benchmark
    public LoadResult parseAndAppend() {
        return CsvLoader.load(writer, "memory", new ByteArrayInputStream(csv), LoadOptions.defaults().withThreads(1),
            null);
    }
}
