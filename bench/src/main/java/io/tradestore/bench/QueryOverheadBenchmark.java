package io.tradestore.bench;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryResult;
import io.tradestore.query.model.Query;

/**
 * JMH: the fixed cost of one query, on a table so small ({@code rows} generated trades) that scanning it costs next to
 * nothing: parsing the JSON, planning, running and encoding the answer as the server does. The query has a time range,
 * an {@code in} list and a range, a group key, three aggregates, an order and a limit; its answer is ten rows.
 *
 * <pre>
 * bin/tradestore bench jmh QueryOverheadBenchmark          # or: java -jar bench/target/tradestore-bench.jar jmh ...
 * </pre>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1,
    jvmArgsAppend =
    {"-Xmx1g", "-XX:+IgnoreUnrecognizedVMOptions", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED",
    "--sun-misc-unsafe-memory-access=allow",
    "-Dchronicle.analytics.disable=true", "-Dtradestore.boundsChecks=false"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Benchmark)
public class QueryOverheadBenchmark {
    /** A small dashboard query: one day, two venues, a quantity floor, the top instruments by notional. */
    static final String QUERY = "{\"table\":\"trades\","
        + "\"time\":{\"from\":\"2026-11-17T00:00:00Z\",\"to\":\"2026-11-18T00:00:00Z\"},"
        + "\"filter\":{\"op\":\"and\",\"args\":[{\"op\":\"in\",\"col\":\"venue\",\"values\":[\"XLON\",\"XPAR\"]},"
        + "{\"op\":\"range\",\"col\":\"quantity\",\"gte\":100}]},"
        + "\"groupBy\":[\"instrument\"],"
        + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
        + "{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*quantity\"},{\"name\":\"vwap\",\"op\":\"vwap\"}],"
        + "\"orderBy\":[{\"col\":\"notional\",\"desc\":true}],\"limit\":10}";
    private static final byte[] QUERY_BYTES = QUERY.getBytes(StandardCharsets.UTF_8);

    /** Trades in the table. */
    @Param("1000")
    public long rows;

    private Path dir;
    private Store store;
    private QueryEngine engine;
    private QueryResult answer;
    /** Reused as a server reuses nothing but the pattern of a growing buffer: reset before each answer. */
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(4096);

    /**
     * Generates and loads the trades once per fork, and runs the query once for {@link #encode()}.
     *
     * @throws Exception when loading fails.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("tradestore-jmh");
        store = QueryKernelBenchmark.generatedStore(dir, rows);
        engine = new QueryEngine(store, 2);
        answer = engine.execute(QUERY);
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

    /** @return the query text read into the model (JSON syntax and shape). */
    @Benchmark
    public Query parse() {
        return QueryEngine.parse(QUERY);
    }

    /** @return the answer of {@code QueryEngine.execute(String)}: parse, plan, run and materialise the rows. */
    @Benchmark
    public QueryResult execute() {
        return engine.execute(QUERY);
    }

    /**
     * @return the answer's JSON bytes, written as the server writes them.
     * @throws IOException never (memory).
     */
    @Benchmark
    public int encode() throws IOException {
        out.reset();
        answer.writeJson(out, false);
        return out.size();
    }

    /**
     * @return the JSON bytes of a query read from its bytes, as the server gets a POST body, and answered.
     * @throws IOException never (memory).
     */
    @Benchmark
    public int server() throws IOException {
        final QueryResult r = engine.execute(new ByteArrayInputStream(QUERY_BYTES), 10_000);
        out.reset();
        r.writeJson(out, false);
        return out.size();
    }
}
