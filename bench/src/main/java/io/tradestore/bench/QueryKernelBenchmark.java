package io.tradestore.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.UncheckedIOException;
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
import io.tradestore.core.sample.TradeGenerator;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryResult;

/**
 * JMH: the query kernels one at a time, single-threaded, through the public engine on {@code rows} generated trades
 * in the page cache. Each query is shaped so that one kernel dominates: a plain scan, a filter into a selection
 * vector, a dense and a hashed group-by, and the exact 128-bit decimal sum of price * quantity.
 *
 * <pre>
 * bin/tradestore bench jmh QueryKernelBenchmark            # or: java -jar bench/target/tradestore-bench.jar jmh ...
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1,
    jvmArgsAppend =
    {"-Xmx2g", "-XX:+IgnoreUnrecognizedVMOptions", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED",
    "--sun-misc-unsafe-memory-access=allow",
    "-Dchronicle.analytics.disable=true", "-Dtradestore.boundsChecks=false"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Benchmark)
public class QueryKernelBenchmark {
    /** Trades in the table (a few segments of the default size). */
    @Param("8388608")
    public long rows;

    private Path dir;
    private Store store;
    private QueryEngine engine;

    /**
     * Generates and loads the trades once per fork.
     *
     * @throws Exception when loading fails.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("tradestore-jmh");
        store = generatedStore(dir, rows);
        engine = new QueryEngine(store, 1);
    }

    /**
     * Closes and deletes the store.
     *
     * @throws IOException when deleting fails.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        engine.close();
        store.close();
        BenchCommand.deleteTree(dir);
    }

    /** @return count and sum over every row: the bare column scan. */
    @Benchmark
    public QueryResult scan() {
        return engine
            .execute("{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"volume\",\"op\":\""
            + "sum\",\"col\":\"quantity\"}]}");
    }

    /** @return a range and a char predicate evaluated into selection vectors, then a count. */
    @Benchmark
    public QueryResult filter() {
        return engine
            .execute("{\"table\":\"trades\",\"filter\":{\"op\":\"and\",\"args\":[{\"op\":\"range\",\"col\":\"quantity"
            + "\",\"gte\":100,"
            + "\"lt\":1000},{\"op\":\"eq\",\"col\":\"side\",\"value\":\"B\"}]},\"aggs\":[{\"name\":\"n\",\"op\":\"coun"
            + "t\"}]}");
    }

    /** @return a dense group-by: 500 instruments (dictionary codes index an array). */
    @Benchmark
    public QueryResult groupByDense() {
        return engine
            .execute("{\"table\":\"trades\",\"groupBy\":[\"instrument\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
            + "{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"}]}");
    }

    /** @return a hashed group-by: 10,000 client ids (i64 keys in an open-addressing table). */
    @Benchmark
    public QueryResult groupByHash() {
        return engine
            .execute("{\"table\":\"trades\",\"groupBy\":[\"client_id\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
            + "{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"}]}");
    }

    /** @return the exact decimal sum of price * quantity (128-bit accumulation). */
    @Benchmark
    public QueryResult decimalSum() {
        return engine
            .execute("{\"table\":\"trades\",\"aggs\":[{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*quantity\""
            + "}]}");
    }

    /**
     * @param dir  an empty directory.
     * @param rows trades to generate.
     * @return a store there whose trades table holds {@code rows} generated trades, loaded as {@code tradestore load}
     *     loads a CSV.
     * @throws IOException when loading fails.
     */
    static Store generatedStore(final Path dir, final long rows) throws IOException {
        final Store store = Store.open(dir);
        try (TableWriter w = store.createTable(TradesSchema.SCHEMA).writer(); InputStream in = generated(rows)) {
            CsvLoader.load(w, "generated", in, LoadOptions.defaults(), null);
        }
        return store;
    }

    /** @return generated CSV of {@code rows} trades, streamed from a thread. */
    static InputStream generated(final long rows) throws IOException {
        final PipedInputStream in = new PipedInputStream(1 << 20);
        final PipedOutputStream pipe = new PipedOutputStream(in);
        final Thread gen = new Thread(() -> {
            try (OutputStream o = pipe) {
                new TradeGenerator(rows, 42).writeCsv(o);
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
        }, "generator");
        gen.setDaemon(true);
        gen.start();
        return new BufferedInputStream(in, 1 << 20);
    }
}
