package io.tradestore.server.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.tradestore.core.Store;
import io.tradestore.core.Table;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.ingest.CsvLoader;
import io.tradestore.core.ingest.LoadOptions;
import io.tradestore.core.ingest.LoadResult;
import io.tradestore.core.sample.TradeGenerator;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.http.QueryServer;
import io.tradestore.server.http.ServerConfig;
import io.tradestore.server.pg.PgConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code tradestore demo}: generates trades into a temporary store, loads them, serves them on 127.0.0.1 over HTTP and
 * the PostgreSQL wire protocol, prints three ready-to-paste curl queries with their answers and a psql line, serves
 * until Ctrl-C, then removes the temporary store.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {"Generates sample trades into a temporary store, loads them, serves HTTP and the PostgreSQL wire "
        + "protocol on 127.0.0.1 and prints example",
        "curl queries with their answers and a psql line. Serves until Ctrl-C, then removes the temporary store."})
final class DemoCommand implements Callable<Integer> {
    /** The demo's seed: the same rows on every run. */
    static final long SEED = 42;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Option(names = "--rows", defaultValue = "1000000", description = "trades to generate (default ${DEFAULT-VALUE})")
    private long rows;

    @Option(names = "--port", defaultValue = "8080",
        description = "TCP port on 127.0.0.1 (0 picks a free one; default ${DEFAULT-VALUE})")
    private int port;

    @Option(names = "--pg-port", defaultValue = "8812",
        description = "PostgreSQL wire protocol port on 127.0.0.1 (0 picks a free one, -1 none; default "
            + "${DEFAULT-VALUE})")
    private int pgPort;

    @Option(names = "--dir", description = "where to put the temporary store (default: the system temporary directory)")
    private Path parent;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (rows < 1 || rows > 2_000_000_000L) {
            throw CliSupport.badValue(spec, "--rows", rows + " must be between 1 and 2000000000");
        }
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final ServerConfig config = CliSupport.checkOptions(spec, () -> ServerConfig.defaults().withPort(port));
        if (pgPort < -1 || pgPort > 65535) {
            throw CliSupport.badValue(spec, "--pg-port", pgPort + " must be between 0 and 65535, or -1 for none");
        }
        final PgConfig pg = pgPort < 0 ? null
            : PgConfig.of(config, pgPort, PgConfig.DEFAULT_MAX_CONNECTIONS);
        final Path dir = parent == null ? Files.createTempDirectory("tradestore-demo-")
            : Files.createTempDirectory(parent, "tradestore-demo-");
        try {
            final Path csv = dir.resolve("trades.csv");
            final long t0 = System.nanoTime();
            err.printf(Locale.ROOT, "tradestore demo: generating %,d trades into %s%n", rows, csv);
            err.flush();
            final long csvBytes = TradeGenerator.writeCsv(csv, rows, SEED);
            err.printf(Locale.ROOT, "tradestore demo: %,d bytes of CSV in %.1f s; loading%n", csvBytes,
                (System.nanoTime() - t0) / 1e9);
            err.flush();
            try (Store store = Store.open(dir.resolve("store"))) {
                final Table trades = store.createTable(TradesSchema.SCHEMA);
                final LoadResult loaded = CsvLoader.load(trades, List.of(csv), LoadOptions.defaults(), progress(err));
                Files.delete(csv);
                err.printf(Locale.ROOT, "%ntradestore demo: loaded %,d trades in %.2f s (%,.0f rows/s)%n",
                    loaded.rowsLoaded(), loaded.elapsedNanos() / 1e9, loaded.rowsPerSecond());
                err.flush();
                try (QueryEngine engine = new QueryEngine(store)) {
                    ServeCommand.serve(store, engine, config, io.tradestore.server.ingest.IngestConfig.defaults(), pg,
                        java.time.Duration.ofSeconds(5), err,
                        (server, pgServerPort) -> examples(server, pgServerPort, out, err));
                }
            }
        } finally {
            deleteRecursively(dir);
            err.println("tradestore demo: removed " + dir);
            err.flush();
        }
        return 0;
    }

    private static io.tradestore.core.ingest.LoadProgress progress(final PrintWriter err) {
        final long[] last = {0};
        return (loadedRows, rejected, bytesDone, bytesTotal, elapsedNanos) -> {
            if (elapsedNanos - last[0] < 200_000_000L && bytesDone < bytesTotal) {
                return;
            }
            last[0] = elapsedNanos;
            err.printf(Locale.ROOT, "\r  loaded %,d rows (%d%%) in %.1f s", loadedRows,
                bytesTotal > 0 ? bytesDone * 100 / bytesTotal : 0,
                elapsedNanos / 1e9);
            err.flush();
        };
    }

    /**
     * The three example queries: notional by side, VWAP of the ten most traded instruments, one-minute bars of the
     * most traded instrument in the first ten minutes.
     *
     * @param topInstrument the instrument for the bars.
     * @return title and JSON of each.
     */
    static List<String[]> queries(final String topInstrument) {
        final List<String[]> q = new ArrayList<>();
        q.add(new String[] {"Notional by side",
            "{\"table\":\"trades\",\"groupBy\":[\"side\"],\"aggs\":[{\"name\":\"trades\",\"op\":\"count\"},"
                + "{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*quantity\"}]}"});
        q.add(new String[] {"VWAP of the 10 most traded instruments",
            "{\"table\":\"trades\",\"groupBy\":[\"instrument\"],"
                + "\"aggs\":[{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"},"
                + "{\"name\":\"vwap\",\"op\":\"vwap\"}],"
                + "\"orderBy\":[{\"col\":\"volume\",\"desc\":true}],\"limit\":10}"});
        q.add(new String[] {"One-minute bars of " + topInstrument + ", first ten minutes of Monday",
            "{\"table\":\"trades\",\"time\":{\"from\":\"2026-11-16T08:00:00Z\",\"to\":\"2026-11-16T08:10:00Z\"},"
                + "\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"" + topInstrument + "\"},"
                + "\"groupBy\":[{\"bucket\":\"1m\",\"col\":\"ts\",\"as\":\"minute\"}],"
                + "\"aggs\":[{\"name\":\"open\",\"op\":\"first\",\"col\":\"price\"},"
                + "{\"name\":\"high\",\"op\":\"max\",\"col\":\"price\"},"
                + "{\"name\":\"low\",\"op\":\"min\",\"col\":\"price\"},"
                + "{\"name\":\"close\",\"op\":\"last\",\"col\":\"price\"},"
                + "{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"}],\"orderBy\":[{\"col\":\"minute\"}]}"});
        return q;
    }

    /** Runs the examples over HTTP against the server just started, and prints each curl line and its answer. */
    private static void examples(final QueryServer server, final int pgServerPort, final PrintWriter out,
        final PrintWriter err) {
        final String base = "http://127.0.0.1:" + server.port();
        final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        out.println();
        out.println("Open the console in a browser: " + base + "/");
        out.println();
        out.println("Or try these (the server is at " + base + "):");
        String top = "SYM000";
        for (int i = 0; i < 3; i++) {
            final String[] q = queries(top).get(i);
            out.println();
            out.println("# " + q[0]);
            out.println("curl -s " + base + "/v1/query -d '" + q[1] + "'");
            final String answer = post(client, base, q[1]);
            out.println(answer);
            if (i == 1) {
                top = firstInstrument(answer, top);
            }
        }
        out.println();
        if (pgServerPort >= 0) {
            out.println("# SQL with psql, JDBC or psycopg over the PostgreSQL wire protocol (any password)");
            out.println("psql -h 127.0.0.1 -p " + pgServerPort + " -U tradestore -d tradestore");
        }
        out.println();
        out.println("More: curl -s " + base + "/v1/tables/trades ; curl -s " + base + "/metrics ; docs/http-api.md"
            + " ; docs/sql.md");
        out.flush();
        err.println("tradestore demo: serving until Ctrl-C");
        err.flush();
    }

    private static String post(final HttpClient client, final String base, final String json) {
        try {
            final HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + "/v1/query"))
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return r.statusCode() == 200 ? r.body() : "HTTP " + r.statusCode() + " " + r.body();
        } catch (final IOException e) {
            return "request failed: " + e.getMessage();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private static String firstInstrument(final String answer, final String fallback) {
        try {
            final JsonNode rows = MAPPER.readTree(answer).path("rows");
            return rows.size() > 0 && rows.get(0).get(0).isTextual() ? rows.get(0).get(0).asText() : fallback;
        } catch (final IOException e) {
            return fallback;
        }
    }

    private static void deleteRecursively(final Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (final Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
