package io.tradestore.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.tradestore.core.Store;
import io.tradestore.core.sample.TradeGenerator;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.http.QueryServer;
import io.tradestore.server.http.QueryService;
import io.tradestore.server.http.ServerConfig;
import io.tradestore.server.pg.PgConfig;
import io.tradestore.server.pg.PgServer;
import io.tradestore.server.pg.StoreCatalog;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What the SQL layers cost, on one loopback server that serves HTTP and the PostgreSQL wire protocol over the same
 * engine and store. Two parts:
 *
 * <pre>
 *  overhead  the eight reference queries of QueryBenchmark written in SQL, each answer first checked equal to the JSON
 *            answer, then timed in rounds that alternate POST /v1/query (JSON), POST /v1/sql and a JDBC prepared
 *            statement over PG wire, each client reading the whole answer (the HTTP ones over one raw keep-alive
 *            connection, parsed by Jackson; JDBC reading every cell as text); per query the median of each and what
 *            each SQL layer adds to the JSON median
 *  load      the HTTP benchmark's selective workloads (client, window) as prepared statements over PG wire (the
 *            messages the JDBC driver sends, from the HTTP benchmark's one-thread generator) at a fixed rate, latency
 *            from each request's intended send time (coordinated omission corrected); the highest sustained rate
 *            by doubling and bisecting (HttpBenchmark.findMax), and the percentiles at half of it
 * </pre>
 *
 * <pre>
 * mvn -B -o -pl store-server,bench -am package -DskipTests
 * flock /tmp/tradestore-bench.lock bench/sql-bench.sh --store /tmp/tradestore-bench-10m --rows 10000000
 * </pre>
 */
public final class SqlBenchmark {
    /** The bar of the overhead part: an SQL layer may add this fraction of the JSON median ... */
    static final double OVERHEAD_FRACTION = 0.05;
    /** ... or this many milliseconds, whichever is larger. */
    static final double OVERHEAD_FLOOR_MS = 0.2;
    /** JDBC connection options: server-side prepared statements from the first execution, as a pooled client has. */
    private static final String JDBC_OPTIONS = "sslmode=disable&prepareThreshold=1&connectTimeout=30&socketTimeout=120";

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Type OIDs of the load's parameters, as the JDBC driver declares a long, a String and an OffsetDateTime. */
    private static final int PG_INT8 = 20;
    private static final int PG_VARCHAR = 1043;
    private static final int PG_TIMESTAMPTZ = 1184;

    private SqlBenchmark() {
    }

    /**
     * Runs the benchmark; exits 1 when it fails, 2 on bad usage.
     *
     * @param args see the class comment, or {@code --help}.
     */
    public static void main(final String[] args) {
        BenchCli.exit(new Cli(), args);
    }

    /** The command line. */
    @Command(name = "bench/sql-bench.sh", mixinStandardHelpOptions = true,
        description = {"The SQL layers against the JSON path on one loopback server: the eight reference queries over "
            + "POST /v1/query, POST /v1/sql and JDBC over PG wire (medians and overheads), then a fixed-rate load of "
            + "selective queries over PG wire, corrected for coordinated omission."})
    static final class Cli implements Callable<Integer> {
        @Mixin
        BenchCli.StoreOption storeOption = new BenchCli.StoreOption();

        @Option(names = "--rows", paramLabel = "N", converter = BenchCli.Rows.class,
            description = "trades the store must hold; a store without a trades table is filled with that many "
                + "generated ones (default: ${DEFAULT-VALUE})")
        long rows = 10_000_000L;

        @Option(names = "--runs", paramLabel = "N", converter = BenchCli.Count.class,
            description = "timed runs of each query on each path (default: ${DEFAULT-VALUE})")
        int runs = 31;

        @Option(names = "--warmups", paramLabel = "N", converter = BenchCli.NonNegative.class,
            description = "untimed runs of each query on each path first (default: ${DEFAULT-VALUE})")
        int warmups = 20;

        @Option(names = "--load-queries", paramLabel = "KIND", split = ",", converter = LoadKind.class,
            description = "fixed-rate PG wire workloads: client, window; none skips the load (default: client,window)")
        List<String> loadKinds = List.of("client", "window");

        @Mixin
        BenchCli.LoadOptions load = new BenchCli.LoadOptions();

        @Override
        public Integer call() throws Exception {
            load.check(this);
            final int serverThreads = load.serverThreads;
            final int engineThreads = Math.max(1, Runtime.getRuntime().availableProcessors() / serverThreads);
            try (Store store = Store.open(storeOption.dir)) {
                HttpBenchmark.ensureTrades(store, rows);
                final long tableRows = store.table("trades").reader().snapshot().rowCount();
                try (QueryEngine engine = new QueryEngine(store, engineThreads)) {
                    System.out.printf(Locale.ROOT, "SQL benchmark: %,d trades, %d cores, server threads %d, scan "
                        + "threads %d, JDK %s%n", tableRows, Runtime.getRuntime().availableProcessors(),
                        serverThreads, engineThreads, System.getProperty("java.version"));
                    final Report r = measure(store, engine, serverThreads, warmups, runs,
                        loadKinds.contains("none") ? List.of() : loadKinds, load.seconds, load.connections,
                        load.fixedRate, System.out);
                    System.out.println();
                    System.out.print(r.markdown());
                }
            }
            return 0;
        }
    }

    /** The PG wire workloads (the HTTP benchmark's selective ones). */
    static final List<String> LOAD_KINDS = List.of("client", "window");

    /** A load workload over PG wire, or none. */
    static final class LoadKind extends BenchCli.OneOf {
        LoadKind() {
            super(List.of("client", "window", "none"), "PG wire workloads");
        }
    }

    /**
     * One reference query's medians.
     *
     * @param query   the query.
     * @param rows    rows in its answer.
     * @param jsonMs  POST /v1/query median.
     * @param httpMs  POST /v1/sql median.
     * @param pgMs    JDBC prepared statement over PG wire median.
     */
    record Overhead(QueryBenchmark.BenchQuery query, int rows, double jsonMs, double httpMs, double pgMs) {
        /** @return the most an SQL layer may add to this query's JSON median, in milliseconds. */
        double allowedMs() {
            return Math.max(OVERHEAD_FRACTION * jsonMs, OVERHEAD_FLOOR_MS);
        }

        boolean withinBar() {
            return httpMs - jsonMs <= allowedMs() && pgMs - jsonMs <= allowedMs();
        }
    }

    /**
     * What the benchmark measured.
     *
     * @param rows      trades in the store.
     * @param overheads one entry per reference query.
     * @param load      one entry per PG wire workload (the percentiles at half the highest sustained rate).
     */
    record Report(long rows, List<Overhead> overheads, List<HttpBenchmark.KindResult> load) {
        /** @return the Markdown tables of both parts. */
        String markdown() {
            final StringBuilder b = new StringBuilder();
            b.append(String.format(Locale.ROOT, "%,d trades. Medians in ms; overhead is each SQL path's median minus "
                + "the JSON median; the bar is the larger of %.0f%% and %.1f ms.%n%n", rows,
                OVERHEAD_FRACTION * 100, OVERHEAD_FLOOR_MS));
            b.append("| # | query | rows | JSON /v1/query | SQL /v1/sql | PG wire (JDBC) | /v1/sql overhead "
                + "| PG overhead | bar | within |\n|---|---|---|---|---|---|---|---|---|---|\n");
            for (final Overhead o : overheads) {
                b.append(String.format(Locale.ROOT,
                    "| %d | %s | %d | %.3f | %.3f | %.3f | %+.3f | %+.3f | %.3f | %s |%n",
                    o.query().number(), o.query().title(), o.rows(), o.jsonMs(), o.httpMs(), o.pgMs(),
                    o.httpMs() - o.jsonMs(), o.pgMs() - o.jsonMs(), o.allowedMs(), o.withinBar() ? "yes" : "no"));
            }
            if (!load.isEmpty()) {
                b.append("\nSelective queries over PG wire (prepared statements: Bind, Execute, Sync as the JDBC "
                    + "driver sends them, the connections from one selector thread), fixed rate, latency from each "
                    + "request's intended send time:\n\n");
                b.append("| query | max sustained q/s | rate at half q/s | p50 ms | p99 ms | p99.9 ms | max ms |\n"
                    + "|---|---|---|---|---|---|---|\n");
                for (final HttpBenchmark.KindResult k : load) {
                    final Histogram h = k.atHalf().latency();
                    b.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.3f | %.3f | %.3f | %.3f |%n", k.kind(),
                        k.maxSustained(), k.atHalf().achieved(), HttpBenchmark.ms(h.getValueAtPercentile(50)),
                        HttpBenchmark.ms(h.getValueAtPercentile(99)), HttpBenchmark.ms(h.getValueAtPercentile(99.9)),
                        HttpBenchmark.ms(h.getMaxValue())));
                }
            }
            return b.toString();
        }
    }

    /**
     * Serves {@code store} over HTTP and PG wire on ephemeral loopback ports and measures both parts.
     *
     * @param store         the store, with a trades table of generated trades.
     * @param engine        the engine both servers use.
     * @param serverThreads server worker threads (shared by HTTP and PG wire).
     * @param warmups       untimed runs per query and path.
     * @param runs          timed runs per query and path.
     * @param loadKinds     PG wire workloads (client, window), maybe none.
     * @param seconds       seconds per load step.
     * @param connections   PG wire connections of the load.
     * @param fixedRate     a load rate instead of the search (0: search).
     * @param log           where progress lines go.
     * @return the report.
     * @throws Exception when a server cannot start, a query fails, or an SQL answer differs from the JSON one.
     */
    static Report measure(final Store store, final QueryEngine engine, final int serverThreads, final int warmups,
        final int runs, final List<String> loadKinds, final int seconds, final int connections,
        final double fixedRate, final PrintStream log) throws Exception {
        final ServerConfig config = new ServerConfig("127.0.0.1", 0, serverThreads, 1024, 1 << 20, 10_000, null);
        final QueryService service = QueryService.of(engine);
        final String inst = ReferenceQueryProbe.DEFAULT_INSTRUMENT;
        final long client = ReferenceQueryProbe.DEFAULT_CLIENT;
        try (QueryServer http = QueryServer.start(store, service, config);
             PgServer pg = PgServer.start(PgConfig.of(config, 0, connections + 8), service, new StoreCatalog(store),
                 http.workers())) {
            final String url = "jdbc:postgresql://127.0.0.1:" + pg.port() + "/tradestore?" + JDBC_OPTIONS;
            final List<Overhead> overheads = new ArrayList<>();
            try (Connection c = connect(url); LoopbackHttp web = new LoopbackHttp(
                new InetSocketAddress("127.0.0.1", http.address().getPort()))) {
                for (final QueryBenchmark.BenchQuery q : QueryBenchmark.queries(inst, client)) {
                    overheads.add(overhead(q, sqlOf(q.number()), sqlParameter(q.number(), inst, client), web, c,
                        warmups, runs, log));
                }
            }
            final List<HttpBenchmark.KindResult> load = new ArrayList<>();
            for (final String kind : loadKinds) {
                load.add(load(new InetSocketAddress("127.0.0.1", pg.port()), kind, seconds, connections, fixedRate,
                    log));
            }
            return new Report(store.table("trades").reader().snapshot().rowCount(), overheads, load);
        }
    }

    static Connection connect(final String url) throws SQLException {
        final Properties p = new Properties();
        p.setProperty("user", "tradestore");
        p.setProperty("password", "bench");
        return DriverManager.getConnection(url, p);
    }

    /**
     * The reference queries in tradestore's SQL, the parameter ($1) where the JSON query names an instrument or a
     * client, and each column named as the JSON query names it, so that the answers compare cell by cell.
     *
     * @param number the query's number, 1..8.
     * @return its SQL text.
     */
    static String sqlOf(final int number) {
        return switch (number) {
            case 1 -> "SELECT side, sum(price * quantity) AS notional FROM trades GROUP BY side ORDER BY side";
            case 2 -> "SELECT instrument, sum(price * quantity) / sum(quantity) AS vwap, sum(quantity) AS volume, "
                + "count(*) AS n FROM trades GROUP BY instrument ORDER BY volume DESC LIMIT 10";
            case 3 -> "SELECT count(*) AS n, sum(quantity) AS volume, min(price) AS lo, max(price) AS hi FROM trades "
                + "WHERE instrument = $1 AND ts >= TIMESTAMP '2026-11-17 10:00:00' "
                + "AND ts < TIMESTAMP '2026-11-17 12:00:00'";
            case 4 -> "SELECT venue, side, count(*) AS n, sum(quantity) AS volume FROM trades GROUP BY venue, side "
                + "ORDER BY venue, side";
            case 5 -> "SELECT client_id, sum(price * quantity) AS notional FROM trades GROUP BY client_id "
                + "ORDER BY notional DESC LIMIT 10";
            case 6 -> "SELECT time_bucket(INTERVAL '1 minute', ts) AS minute, first(price) AS open, "
                + "max(price) AS high, min(price) AS low, last(price) AS close, sum(quantity) AS volume "
                + "FROM trades WHERE instrument = $1 AND ts >= TIMESTAMP '2026-11-17 00:00:00' "
                + "AND ts < TIMESTAMP '2026-11-18 00:00:00' "
                + "GROUP BY minute ORDER BY minute";
            case 7 -> "SELECT count(*) AS n, sum(quantity) AS volume FROM trades WHERE client_id = $1";
            case 8 -> "SELECT count(*) AS n, sum(quantity) AS volume, min(ts) AS first_ts, max(ts) AS last_ts "
                + "FROM trades";
            default -> throw new IllegalArgumentException("query=" + number + " must be 1..8");
        };
    }

    /** @return the value of query {@code number}'s $1, or null when it has none. */
    static Object sqlParameter(final int number, final String inst, final long client) {
        return number == 3 || number == 6 ? inst : number == 7 ? (Object) client : null;
    }

    /** The SQL text with $1 spelled as a literal, for POST /v1/sql, which takes no parameters. */
    static String inlined(final String sql, final Object parameter) {
        if (parameter == null) {
            return sql;
        }
        return sql.replace("$1", parameter instanceof String s ? "'" + s + "'" : parameter.toString());
    }

    private static Overhead overhead(final QueryBenchmark.BenchQuery q, final String sql, final Object parameter,
        final LoopbackHttp web, final Connection c, final int warmups, final int runs,
        final PrintStream log) throws Exception {
        final byte[] json = LoopbackHttp.request("POST", "/v1/query", "application/json", q.json());
        final byte[] sqlRequest = LoopbackHttp.request("POST", "/v1/sql", "application/sql", inlined(sql, parameter));
        try (PreparedStatement ps = c.prepareStatement(sql.replace("$1", "?"))) {
            if (parameter != null) {
                ps.setObject(1, parameter);
            }
            final JsonNode expected = JSON.readTree(web.send(json)).get("rows");
            final JsonNode viaHttp = JSON.readTree(web.send(sqlRequest)).get("rows");
            if (!expected.equals(viaHttp)) {
                throw new IllegalStateException("query " + q.number() + ": POST /v1/sql answered " + viaHttp
                    + " but POST /v1/query answered " + expected);
            }
            checkSame(q.number(), expected, ps);
            for (int w = 0; w < warmups; w++) {
                JSON.readTree(web.send(json));
                JSON.readTree(web.send(sqlRequest));
                drain(ps);
            }
            final double[] jsonMs = new double[runs];
            final double[] httpMs = new double[runs];
            final double[] pgMs = new double[runs];
            // the three paths alternate run by run, so that drift on a shared machine falls on each alike; each client
            // reads the whole answer as a user's would (Jackson's tree of the JSON, every cell of the JDBC result set)
            for (int r = 0; r < runs; r++) {
                long t0 = System.nanoTime();
                JSON.readTree(web.send(json));
                jsonMs[r] = (System.nanoTime() - t0) / 1e6;
                t0 = System.nanoTime();
                JSON.readTree(web.send(sqlRequest));
                httpMs[r] = (System.nanoTime() - t0) / 1e6;
                t0 = System.nanoTime();
                drain(ps);
                pgMs[r] = (System.nanoTime() - t0) / 1e6;
            }
            final Overhead o = new Overhead(q, expected.size(), median(jsonMs), median(httpMs), median(pgMs));
            log.printf(Locale.ROOT, "query %d: JSON %.3f ms, /v1/sql %.3f ms (%+.3f), PG wire %.3f ms (%+.3f), "
                + "bar %.3f ms  %s%n", q.number(), o.jsonMs(), o.httpMs(), o.httpMs() - o.jsonMs(), o.pgMs(),
                o.pgMs() - o.jsonMs(), o.allowedMs(), q.title());
            return o;
        }
    }

    private static double median(final double[] ms) {
        final double[] sorted = ms.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /** Executes and reads every cell, as a client that uses the answer does; returns the rows read. */
    private static int drain(final PreparedStatement ps) throws SQLException {
        int rows = 0;
        try (ResultSet rs = ps.executeQuery()) {
            final int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                for (int i = 1; i <= columns; i++) {
                    rs.getString(i);
                }
                rows++;
            }
        }
        return rows;
    }

    /**
     * Checks the PG wire answer cell by cell against the JSON rows: numbers by value (a decimal's scale may differ),
     * timestamps as instants (JSON gives ISO text or epoch nanoseconds), text as text.
     */
    static void checkSame(final int number, final JsonNode expected, final PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            final ResultSetMetaData md = rs.getMetaData();
            int row = 0;
            while (rs.next()) {
                if (row >= expected.size()) {
                    throw new IllegalStateException("query " + number + ": PG wire answered more than the "
                        + expected.size() + " rows of the JSON answer");
                }
                final JsonNode want = expected.get(row);
                if (want.size() != md.getColumnCount()) {
                    throw new IllegalStateException("query " + number + ": PG wire answered "
                        + md.getColumnCount() + " columns, JSON " + want.size());
                }
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    if (!sameCell(want.get(i - 1), rs, i, md.getColumnType(i))) {
                        throw new IllegalStateException("query " + number + " row " + row + " column "
                            + md.getColumnName(i) + ": PG wire answered " + rs.getString(i) + ", JSON "
                            + want.get(i - 1));
                    }
                }
                row++;
            }
            if (row != expected.size()) {
                throw new IllegalStateException("query " + number + ": PG wire answered " + row + " rows, JSON "
                    + expected.size());
            }
        }
    }

    private static boolean sameCell(final JsonNode want, final ResultSet rs, final int column, final int type)
        throws SQLException {
        final String got = rs.getString(column);
        if (want.isNull() || got == null) {
            return want.isNull() && got == null;
        }
        if (type == Types.TIMESTAMP || type == Types.TIMESTAMP_WITH_TIMEZONE) {
            final Instant at = rs.getObject(column, OffsetDateTime.class).toInstant();
            final Instant wantAt = want.isNumber()
                ? Instant.ofEpochSecond(0, want.longValue()) : Instant.parse(want.asText());
            return at.equals(wantAt);
        }
        if (want.isNumber()) {
            return new BigDecimal(got).compareTo(want.decimalValue()) == 0;
        }
        return got.equals(want.asText());
    }

    /**
     * The HTTP benchmark's selective workload {@code kind} over PG wire: warm-up, an unloaded run at 20/s, the search
     * for the highest sustained rate (unless {@code fixedRate > 0}), and a run at half of it.
     */
    private static HttpBenchmark.KindResult load(final InetSocketAddress address, final String kind,
        final int seconds, final int connections, final double fixedRate, final PrintStream log) throws Exception {
        try (PgLoad load = new PgLoad(address, kind, connections)) {
            log.println("== PG wire " + kind + ": " + PgLoad.sql(kind));
            load.medianLimitNs = Long.MAX_VALUE;
            load.run(200, Math.min(3, seconds));
            final HttpBenchmark.Run unloaded = load.run(20, Math.min(3, seconds));
            load.medianLimitNs = 5 * unloaded.latency().getValueAtPercentile(50) + TimeUnit.MILLISECONDS.toNanos(10);
            log.printf(Locale.ROOT, "   unloaded (20/s): p50 %.3f ms; sustained needs p50 <= %.3f ms%n",
                HttpBenchmark.ms(unloaded.latency().getValueAtPercentile(50)), HttpBenchmark.ms(load.medianLimitNs));
            final double max = fixedRate > 0 ? 2 * fixedRate
                : HttpBenchmark.findMax(rate -> load.run(rate, Math.max(1, seconds / 2)), log);
            final HttpBenchmark.Run half = load.run(max / 2, seconds);
            log.println("   at half of max: " + half.line());
            return new HttpBenchmark.KindResult(kind, PgLoad.sql(kind), max, half);
        }
    }

    /**
     * A fixed-rate load over PG wire from one selector thread ({@link NioLoad}, as the HTTP benchmark's), each
     * connection with the workload's statement prepared once; a request is the Bind, Execute and Sync that the JDBC
     * driver sends for a prepared statement ({@link PgWire}). Parameters come from the HTTP workload's random draws
     * ({@link HttpWorkload#SEED}), so both loads ask for the same clients and windows.
     */
    private static final class PgLoad implements AutoCloseable {
        private final NioLoad nio;
        private final byte[][] requests;
        long medianLimitNs = Long.MAX_VALUE;

        PgLoad(final InetSocketAddress address, final String kind, final int connections) throws IOException {
            final PgWire wire = "client".equals(kind) ? new PgWire(sql(kind), PG_INT8)
                : new PgWire(sql(kind), PG_VARCHAR, PG_TIMESTAMPTZ, PG_TIMESTAMPTZ);
            requests = requests(kind, wire);
            nio = new NioLoad(address, connections, wire);
        }

        static String sql(final String kind) {
            return "client".equals(kind)
                ? "SELECT count(*) AS trades, sum(quantity) AS volume FROM trades WHERE client_id = $1"
                : "SELECT count(*) AS trades, sum(price * quantity) / sum(quantity) AS vwap, max(price) AS high, "
                    + "min(price) AS low FROM trades WHERE instrument = $1 AND ts >= $2 AND ts < $3";
        }

        /** The same draws, in the same order, as {@link HttpWorkload#queryJson}. */
        private static byte[][] requests(final String kind, final PgWire wire) {
            final Random rnd = new Random(HttpWorkload.SEED);
            final byte[][] out = new byte[HttpWorkload.REQUEST_COUNT][];
            for (int i = 0; i < out.length; i++) {
                if ("client".equals(kind)) {
                    out[i] = wire.request(Long.toString(
                        TradeGenerator.FIRST_CLIENT_ID + rnd.nextInt(TradeGenerator.CLIENTS)));
                } else {
                    final int day = 16 + rnd.nextInt(5);
                    final int hour = 8 + rnd.nextInt(7);
                    final String inst = String.format(Locale.ROOT, "SYM%03d", rnd.nextInt(TradeGenerator.INSTRUMENTS));
                    out[i] = wire.request(inst,
                        String.format(Locale.ROOT, "2026-11-%02d %02d:00:00+00", day, hour),
                        String.format(Locale.ROOT, "2026-11-%02d %02d:00:00+00", day, hour + 2));
                }
            }
            return out;
        }

        HttpBenchmark.Run run(final double rate, final int seconds) {
            return HttpBenchmark.fixedRate(nio, requests, rate, seconds, false, System.out, medianLimitNs).run();
        }

        @Override
        public void close() throws IOException {
            nio.close();
        }
    }
}
