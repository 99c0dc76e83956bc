package io.tradestore.bench;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
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
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryResult;

/**
 * JMH: is run-time code generation worth it? Each query runs through the engine's batch interpreter and as the one
 * fused loop a whole-stage code generator (Spark's with Janino, or bytecode per query shape) would emit for it: one
 * pass over the rows, filter, key and aggregates inlined, nothing materialised between them, compiled by C2 like any
 * generated class. The fused loops are what generated code can do at best, so their time over the engine's bounds the
 * gain. Single-threaded on both sides, the same {@code rows} generated trades; setup checks that both answer the same.
 *
 * <pre>
 * bin/tradestore bench jmh FusedKernelBenchmark
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
public class FusedKernelBenchmark {
    static final String FILTER = "{\"table\":\"trades\",\"filter\":{\"op\":\"and\",\"args\":[{\"op\":\"range\","
        + "\"col\":\"quantity\",\"gte\":100,\"lt\":1000},{\"op\":\"eq\",\"col\":\"side\",\"value\":\"B\"}]},"
        + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"q\",\"op\":\"sum\",\"col\":\"quantity\"},"
        + "{\"name\":\"lo\",\"op\":\"min\",\"col\":\"price\"}]}";
    /** 10,000 clients by 8 venues: past the dense array's 65,536 slots, so the engine hashes the packed key too. */
    static final String HASH = "{\"table\":\"trades\",\"groupBy\":[\"client_id\",\"venue\"],\"aggs\":[{\"name\":"
        + "\"n\",\"op\":\"count\"},{\"name\":\"q\",\"op\":\"sum\",\"col\":\"quantity\"}]}";
    static final String DENSE = "{\"table\":\"trades\",\"groupBy\":[\"venue\",\"side\"],\"aggs\":[{\"name\":\"n\","
        + "\"op\":\"count\"},{\"name\":\"q\",\"op\":\"sum\",\"col\":\"quantity\"},{\"name\":\"hi\",\"op\":\"max\","
        + "\"col\":\"price\"}]}";

    /** Trades in the table (a few segments of the default size). */
    @Param("8388608")
    public long rows;

    private Path dir;
    private Store store;
    private QueryEngine engine;
    private TableReader reader;
    private TableSnapshot snap;
    private int tradeQuantity;
    private int tradeSide;
    private int tradePrice;
    private int tradeClient;
    private int tradeVenue;
    private long venueNull;

    /**
     * Generates and loads the trades once per fork, and checks that each fused loop answers as the engine does.
     *
     * @throws Exception when loading fails.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("tradestore-jmh");
        store = QueryKernelBenchmark.generatedStore(dir, rows);
        engine = new QueryEngine(store, 1);
        // no bitmap index or summary answers: the batch interpreter against the fused loop, row for row
        engine.useIndexes(false);
        reader = store.table("trades").reader();
        snap = reader.snapshot();
        final Schema s = snap.schema();
        tradeQuantity = s.indexOf("quantity");
        tradeSide = s.indexOf("side");
        tradePrice = s.indexOf("price");
        tradeClient = s.indexOf("client_id");
        tradeVenue = s.indexOf("venue");
        venueNull = s.column(tradeVenue).type().nullBits();
        final QueryResult filter = engineFilter();
        final long[] filtered = {((Number) filter.value(0, 0)).longValue(), ((Number) filter.value(0, 1)).longValue(),
            ((BigDecimal) filter.value(0, 2)).movePointRight(6).longValueExact()};
        check("filter", filtered, fusedFilter());
        check("filter, branch-free", filtered, fusedFilterBranchFree());
        check("hash", totals(engineHash(), 2), fusedHash());
        check("dense", totals(engineDense(), 2), fusedDense());
    }

    /** @return groups, rows and quantity summed over a grouped answer's rows (count, then sum, after the keys). */
    private static long[] totals(final QueryResult r, final int keys) {
        long n = 0;
        long q = 0;
        for (int row = 0; row < r.rowCount(); row++) {
            n += ((Number) r.value(row, keys)).longValue();
            q += ((Number) r.value(row, keys + 1)).longValue();
        }
        return new long[] {r.rowCount(), n, q};
    }

    private static void check(final String what, final long[] engine, final long[] fused) {
        if (!Arrays.equals(engine, fused)) {
            throw new IllegalStateException(what + ": the fused loop answers " + Arrays.toString(fused)
                + ", the engine " + Arrays.toString(engine));
        }
    }

    /**
     * Closes and deletes the store.
     *
     * @throws IOException when deleting fails.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        reader.close();
        engine.close();
        store.close();
        BenchCommand.deleteTree(dir);
    }

    /** @return a range and a char predicate, then count, sum and min: through the engine. */
    @Benchmark
    public QueryResult engineFilter() {
        return engine.execute(FILTER);
    }

    /** @return the same as one fused loop: count, sum of quantity and the min price's mantissa. */
    @Benchmark
    public long[] fusedFilter() {
        long n = 0;
        long sum = 0;
        long min = Long.MAX_VALUE;
        for (int seg = 0; seg < snap.segmentCount(); seg++) {
            final long q = snap.columnAddress(seg, tradeQuantity);
            final long sd = snap.columnAddress(seg, tradeSide);
            final long p = snap.columnAddress(seg, tradePrice);
            final long sq = snap.columnStride(tradeQuantity);
            final long ss = snap.columnStride(tradeSide);
            final long sp = snap.columnStride(tradePrice);
            for (int i = 0, end = snap.segmentRowCount(seg); i < end; i++) {
                final long qv = NativeMemory.getLong(q + i * sq);
                if (qv >= 100 && qv < 1000 && NativeMemory.getByte(sd + i * ss) == 'B') {
                    n++;
                    sum += qv;
                    final long pv = NativeMemory.getLong(p + i * sp);
                    if (pv != Long.MIN_VALUE && pv < min) {
                        min = pv;
                    }
                }
            }
        }
        return new long[] {n, sum, min};
    }

    /**
     * @return the fused loop as a generator that knows the engine's branch-free selection would write it: the
     *     predicate as 0 or 1, aggregates masked by it, no branch per row.
     */
    @Benchmark
    public long[] fusedFilterBranchFree() {
        long n = 0;
        long sum = 0;
        long min = Long.MAX_VALUE;
        for (int seg = 0; seg < snap.segmentCount(); seg++) {
            final long q = snap.columnAddress(seg, tradeQuantity);
            final long sd = snap.columnAddress(seg, tradeSide);
            final long p = snap.columnAddress(seg, tradePrice);
            final long sq = snap.columnStride(tradeQuantity);
            final long ss = snap.columnStride(tradeSide);
            final long sp = snap.columnStride(tradePrice);
            for (int i = 0, end = snap.segmentRowCount(seg); i < end; i++) {
                final long qv = NativeMemory.getLong(q + i * sq);
                // sign bit of (qv - 100) | (999 - qv) clear: in range; side compared by subtraction
                final long inRange = ~((qv - 100) | (999 - qv)) >>> 63;
                final long side = NativeMemory.getByte(sd + i * ss);
                final long isB = ~((side - 'B') | ('B' - side)) >>> 63;
                final long pass = inRange & isB;
                n += pass;
                sum += qv & -pass;
                final long pv = NativeMemory.getLong(p + i * sp);
                final long cand = pv == Long.MIN_VALUE ? Long.MAX_VALUE : pv;
                min = Math.min(min, pass == 1 ? cand : Long.MAX_VALUE);
            }
        }
        return new long[] {n, sum, min};
    }

    /** @return count and sum by client id and venue (80,000 packed keys): through the engine. */
    @Benchmark
    public QueryResult engineHash() {
        return engine.execute(HASH);
    }

    /** @return the same as one fused loop over an inlined open-addressing table: groups, rows, quantity. */
    @Benchmark
    public long[] fusedHash() {
        int cap = 1 << 10;
        long[] keys = new long[cap];
        int[] ids = new int[cap];
        long[] counts = new long[cap];
        long[] sums = new long[cap];
        int groups = 0;
        for (int seg = 0; seg < snap.segmentCount(); seg++) {
            final long c = snap.columnAddress(seg, tradeClient);
            final long v = snap.columnAddress(seg, tradeVenue);
            final long q = snap.columnAddress(seg, tradeQuantity);
            final long sc = snap.columnStride(tradeClient);
            final long sv = snap.columnStride(tradeVenue);
            final long sq = snap.columnStride(tradeQuantity);
            for (int i = 0, end = snap.segmentRowCount(seg); i < end; i++) {
                // the key packed as the engine packs it: client id and venue code in one long
                final long key = NativeMemory.getLong(c + i * sc) * 16 + NativeMemory.getInt(v + i * sv);
                int slot = (int) ((key * 0x9E3779B97F4A7C15L) >>> 40) & (cap - 1);
                int id;
                while (true) {
                    id = ids[slot];
                    if (id == 0) {
                        id = ++groups;
                        ids[slot] = id;
                        keys[slot] = key;
                        if (groups >= counts.length) {
                            counts = Arrays.copyOf(counts, counts.length * 2);
                            sums = Arrays.copyOf(sums, sums.length * 2);
                        }
                        if (groups * 2 > cap) {
                            // rehash into twice the slots; the new id stays
                            final long[] ok = keys;
                            final int[] oi = ids;
                            cap *= 2;
                            keys = new long[cap];
                            ids = new int[cap];
                            for (int j = 0; j < oi.length; j++) {
                                if (oi[j] != 0) {
                                    int t = (int) ((ok[j] * 0x9E3779B97F4A7C15L) >>> 40) & (cap - 1);
                                    while (ids[t] != 0) {
                                        t = (t + 1) & (cap - 1);
                                    }
                                    ids[t] = oi[j];
                                    keys[t] = ok[j];
                                }
                            }
                        }
                        break;
                    }
                    if (keys[slot] == key) {
                        break;
                    }
                    slot = (slot + 1) & (cap - 1);
                }
                counts[id]++;
                final long qv = NativeMemory.getLong(q + i * sq);
                sums[id] += qv == Long.MIN_VALUE ? 0 : qv;
            }
        }
        long n = 0;
        long sum = 0;
        for (int id = 1; id <= groups; id++) {
            n += counts[id];
            sum += sums[id];
        }
        return new long[] {groups, n, sum};
    }

    /** @return count, sum and max by venue and side (16 groups): through the engine. */
    @Benchmark
    public QueryResult engineDense() {
        return engine.execute(DENSE);
    }

    /** @return the same as one fused loop over a dense array indexed by venue code and side byte. */
    @Benchmark
    public long[] fusedDense() {
        final int venues = snap.dictionarySize(tradeVenue) + 1;
        final long[] counts = new long[venues * 256];
        final long[] sums = new long[venues * 256];
        final long[] max = new long[venues * 256];
        Arrays.fill(max, Long.MIN_VALUE);
        for (int seg = 0; seg < snap.segmentCount(); seg++) {
            final long v = snap.columnAddress(seg, tradeVenue);
            final long sd = snap.columnAddress(seg, tradeSide);
            final long q = snap.columnAddress(seg, tradeQuantity);
            final long p = snap.columnAddress(seg, tradePrice);
            final long sv = snap.columnStride(tradeVenue);
            final long ss = snap.columnStride(tradeSide);
            final long sq = snap.columnStride(tradeQuantity);
            final long sp = snap.columnStride(tradePrice);
            for (int i = 0, end = snap.segmentRowCount(seg); i < end; i++) {
                final int code = NativeMemory.getInt(v + i * sv);
                final int side = NativeMemory.getByte(sd + i * ss) & 0xFF;
                final int g = (code == venueNull ? venues - 1 : code) * 256 + side;
                counts[g]++;
                final long qv = NativeMemory.getLong(q + i * sq);
                sums[g] += qv == Long.MIN_VALUE ? 0 : qv;
                max[g] = Math.max(max[g], NativeMemory.getLong(p + i * sp));
            }
        }
        long groups = 0;
        long n = 0;
        long sum = 0;
        for (int g = 0; g < counts.length; g++) {
            groups += counts[g] > 0 ? 1 : 0;
            n += counts[g];
            sum += sums[g];
        }
        return new long[] {groups, n, sum};
    }
}
