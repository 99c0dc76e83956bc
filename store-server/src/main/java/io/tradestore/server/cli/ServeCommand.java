package io.tradestore.server.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import io.tradestore.core.Durability;
import io.tradestore.core.Store;
import io.tradestore.core.schema.PartitionBy;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.http.QueryServer;
import io.tradestore.server.http.QueryService;
import io.tradestore.server.http.LogSettings;
import io.tradestore.server.http.ServerConfig;
import io.tradestore.server.ingest.IngestConfig;
import io.tradestore.server.pg.PgConfig;
import io.tradestore.server.pg.PgServer;
import io.tradestore.server.pg.StoreCatalog;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tradestore serve STORE}: the HTTP/JSON query server, until Ctrl-C or SIGTERM. */
@Command(name = "serve", mixinStandardHelpOptions = true,
    description = {"Serves the store's tables over HTTP/JSON until Ctrl-C or SIGTERM.",
        "Endpoints: POST /v1/query, GET /v1/query?q=, POST /v1/sql, GET /v1/sql?q=, GET /v1/tables, "
            + "GET /v1/tables/{name}, POST /v1/tables/{name}/import (CSV), POST /write and /api/v2/write (InfluxDB "
            + "line protocol), GET /metrics, GET /health; the PostgreSQL wire protocol on --pg-port.",
        "Queries see the latest commit, so rows loaded by another process appear without a restart."})
final class ServeCommand implements Callable<Integer> {
    /** The environment variable that may hold the token (not visible in the process list, as --token is). */
    static final String TOKEN_ENV = "TRADESTORE_TOKEN";

    @Parameters(index = "0", paramLabel = "STORE", description = "the store directory")
    private Path store;

    @Option(names = "--port", defaultValue = "8080",
        description = "TCP port (0 picks a free one; default ${DEFAULT-VALUE})")
    private int port;

    @Option(names = "--bind", defaultValue = "127.0.0.1",
        description = "address to listen on (default ${DEFAULT-VALUE}); any non-loopback address requires --token")
    private String bind;

    @Option(names = "--threads", description = "query worker threads (default: one per core)")
    private Integer threads;

    @Option(names = "--scan-threads",
        description = "threads one query may spread its segments over (default: cores / --threads, at least 1, so "
            + "that workers times scan threads is about the core count)")
    private Integer scanThreads;

    @Option(names = "--queue", defaultValue = "64",
        description = "queries that may wait for a worker; beyond that 503 (default ${DEFAULT-VALUE})")
    private int queue;

    @Option(names = "--max-body", defaultValue = "1048576", paramLabel = "BYTES",
        description = "largest request body; beyond that 413 (default ${DEFAULT-VALUE})")
    private int maxBody;

    @Option(names = "--timeout-ms", defaultValue = "10000",
        description = "longest a query may take; beyond that 504 (default ${DEFAULT-VALUE})")
    private long timeoutMs;

    @Option(names = "--token",
        description = "require 'Authorization: Bearer TOKEN' on every request (needed to bind beyond loopback); "
        + "visible to other users in the process list: prefer --token-file or the environment variable " + TOKEN_ENV)
    private String token;

    @Option(names = "--token-file", paramLabel = "FILE", description = "read the token from the first line of FILE")
    private Path tokenFile;

    @Option(names = "--max-connections", defaultValue = "0",
        description = "open connections at most; one more is answered 503 and closed (default 0: derived from the "
            + "file-descriptor limit)")
    private int maxConnections;

    @Option(names = "--request-timeout-ms", defaultValue = "30000",
        description = "longest a client may take to send a whole request, head and body; beyond that 408 (default "
            + "${DEFAULT-VALUE})")
    private long requestTimeoutMs;

    @Option(names = "--write-timeout-ms", defaultValue = "60000",
        description = "longest an answer may wait for its client to read more of it; beyond that the connection "
            + "closes (default ${DEFAULT-VALUE})")
    private long writeTimeoutMs;

    @Option(names = "--max-answer-bytes", paramLabel = "BYTES",
        description = "answer bytes all clients together may leave unread; an answer beyond that gets 503 (default: a "
            + "quarter of the heap)")
    private Long maxAnswerBytes;

    @Option(names = "--max-groups", defaultValue = "10000000",
        description = "most groups a query may ask for in options.maxGroups (default ${DEFAULT-VALUE})")
    private long maxGroups;

    @Option(names = "--allowed-hosts", split = ",", paramLabel = "HOST",
        description = "host names, besides loopback and the bound address, a server without token answers in Host and "
            + "Origin headers")
    private List<String> allowedHosts = new ArrayList<>();

    @Option(names = "--pg-port", defaultValue = "8812",
        description = "PostgreSQL wire protocol port, on the same address (0 picks a free one, -1 none; default "
            + "${DEFAULT-VALUE}); psql, JDBC and psycopg connect there, with the token as password when there is one")
    private int pgPort;

    @Option(names = "--pg-max-connections", defaultValue = "64",
        description = "PostgreSQL connections open at most; one more is refused with 53300 (default ${DEFAULT-VALUE})")
    private int pgMaxConnections;

    @Option(names = "--stop-grace-ms", defaultValue = "5000",
        description = "on Ctrl-C or SIGTERM, how long queries in flight may take to finish before they are cancelled "
            + "and answered 503 (default ${DEFAULT-VALUE})")
    private long stopGraceMs;

    @Option(names = "--log-level", defaultValue = "info", description = "level of the server log on stderr: "
        + LogSettings.LEVELS + " (default ${DEFAULT-VALUE})")
    private String logLevel;

    @Option(names = "--access-log", paramLabel = "FILE",
        description = "append one line per request to FILE: time, client, method, target, endpoint, status, bytes, "
            + "milliseconds")
    private Path accessLog;

    @Option(names = "--max-ingest-body", defaultValue = "67108864", paramLabel = "BYTES",
        description = "largest body of POST /write and POST /v1/tables/{name}/import; beyond that 413 (default "
            + "${DEFAULT-VALUE})")
    private int maxIngestBody;

    @Option(names = "--ingest-create", defaultValue = "true", arity = "1", paramLabel = "true|false",
        description = "create a table a line of line protocol names and the store lacks, with a schema inferred from "
            + "that line (default ${DEFAULT-VALUE})")
    private boolean ingestCreate;

    @Option(names = "--ingest-partition-by", defaultValue = "NONE", paramLabel = "PERIOD",
        description = "how a table created from line protocol is split by time: NONE, HOUR, DAY or MONTH (default "
            + "${DEFAULT-VALUE}; a partitioned table makes a segment for each late row, see docs/ingest.md)")
    private String ingestPartitionBy;

    @Option(names = "--ingest-wait-ms", defaultValue = "5000",
        description = "longest an ingest request waits for a table's writer busy with other requests; beyond that 503 "
            + "(default ${DEFAULT-VALUE})")
    private long ingestWaitMs;

    @Option(names = "--ingest-idle-ms", defaultValue = "10000",
        description = "a table's writer unused this long is closed, so that another process may write the table; the "
            + "next ingest request opens it again (0 keeps writers open; default ${DEFAULT-VALUE})")
    private long ingestIdleMs;

    @Option(names = "--retention-interval-ms", defaultValue = "60000",
        description = "how often the tables' TTLs (tradestore retain --ttl) are applied: whole sealed segments older "
            + "than the TTL are dropped (0 never; default ${DEFAULT-VALUE})")
    private long retentionIntervalMs;

    @Option(names = "--ingest-threads", description = "ingest requests run at once (default: one per two cores, at "
        + "least 1; each table takes one at a time)")
    private Integer ingestThreads;

    @Option(names = "--durability", defaultValue = "none", paramLabel = "none|sync",
        description = "what each ingest request's commit waits for: none (the page cache; survives the process) or "
            + "sync (msync first; survives power loss) (default ${DEFAULT-VALUE})")
    private String durability;

    @picocli.CommandLine.Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        final int cores = Runtime.getRuntime().availableProcessors();
        final String secret = token();
        final ServerConfig.Limits defaults = ServerConfig.Limits.defaults();
        final ServerConfig config = CliSupport.checkOptions(spec,
            () -> new ServerConfig(bind, port, threads == null ? cores : threads, queue, maxBody, timeoutMs, secret,
                new ServerConfig.Limits(maxConnections, requestTimeoutMs, writeTimeoutMs,
                    maxAnswerBytes != null ? maxAnswerBytes : defaults.maxAnswerBytes(), maxGroups, allowedHosts)));
        if (pgPort < -1 || pgPort > 65535) {
            throw CliSupport.badValue(spec, "--pg-port", pgPort + " must be between 0 and 65535, or -1 for none");
        }
        final PgConfig pg = pgPort < 0 ? null
            : CliSupport.checkOptions(spec, () -> PgConfig.of(config, pgPort, pgMaxConnections));
        if (stopGraceMs < 0) {
            throw CliSupport.badValue(spec, "--stop-grace-ms", stopGraceMs + " must be 0 or more");
        }
        CliSupport.checkOptions(spec, () -> {
            LogSettings.level(logLevel);
            return null;
        });
        if (accessLog != null) {
            CliSupport.checkOptions(spec, () -> {
                LogSettings.accessLog(accessLog);
                return null;
            });
        }
        if (scanThreads != null && (scanThreads < 1 || scanThreads > 1024)) {
            throw CliSupport.badValue(spec, "--scan-threads", scanThreads + " must be between 1 and 1024");
        }
        // Workers x scan threads ~ cores: under load every core runs one query instead of every query fanning out and
        // paying hand-offs between threads.
        final int scan = scanThreads != null ? scanThreads : Math.max(1, cores / config.threads());
        final Durability sync = switch (durability.toLowerCase(java.util.Locale.ROOT)) {
            case "none" -> Durability.NONE;
            case "sync" -> Durability.SYNC;
            default -> throw CliSupport.badValue(spec, "--durability", "'" + durability + "' is not none or sync");
        };
        final IngestConfig ingest = CliSupport.checkOptions(spec, () -> new IngestConfig(maxIngestBody, ingestCreate,
            ingestWaitMs, sync, ingestThreads != null ? ingestThreads : IngestConfig.defaultThreads(),
            IngestConfig.DEFAULT_QUEUE, Schema.DEFAULT_SEGMENT_ROWS, ingestIdleMs, retentionIntervalMs,
            PartitionBy.parse(ingestPartitionBy, "--ingest-partition-by")));
        try (Store s = CliSupport.openExisting(store); QueryEngine engine = new QueryEngine(s, scan)) {
            engine.maxGroupsLimit(config.limits().maxGroups());
            serve(s, engine, config, ingest, pg, Duration.ofMillis(stopGraceMs), spec.commandLine().getErr(), null);
        } finally {
            LogSettings.closeAccessLog();
        }
        return 0;
    }

    /** @return the token from --token, --token-file or the environment, of which at most one may be given. */
    private String token() {
        final String fromEnv = System.getenv(TOKEN_ENV);
        final int given = (token != null ? 1 : 0) + (tokenFile != null ? 1 : 0)
            + (fromEnv != null && !fromEnv.isEmpty() ? 1 : 0);
        if (given > 1) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                "give the token one way only: --token, --token-file or the environment variable " + TOKEN_ENV);
        }
        if (tokenFile != null) {
            try {
                final String line = java.nio.file.Files.readAllLines(tokenFile,
                    java.nio.charset.StandardCharsets.UTF_8).stream()
                    .findFirst().orElse("").strip();
                if (line.isEmpty()) {
                    throw CliSupport.badValue(spec, "--token-file", tokenFile + " holds no token on its first line");
                }
                return line;
            } catch (final java.io.IOException e) {
                throw CliSupport.badValue(spec, "--token-file", "cannot read " + tokenFile + ": " + e.getMessage());
            }
        }
        return token != null ? token : fromEnv != null && !fromEnv.isEmpty() ? fromEnv : null;
    }

    /**
     * Serves until a termination signal, then stops with a grace period.
     *
     * @param s       the store.
     * @param engine  the engine.
     * @param config  server configuration.
     * @param ingest  ingest limits and policies.
     * @param pg      the PostgreSQL front end's configuration, or null for none.
     * @param grace   how long queries in flight may take to finish once the signal came.
     * @param err     where messages go.
     * @param started run once the servers listen with the HTTP server and the PostgreSQL port (-1 for none): the
     *                demo prints its examples then; or null.
     * @throws InterruptedException when interrupted while waiting.
     */
    static void serve(final Store s, final QueryEngine engine, final ServerConfig config, final IngestConfig ingest,
                      final PgConfig pg,
                      final Duration grace, final java.io.PrintWriter err,
                      final java.util.function.BiConsumer<QueryServer, Integer> started)
        throws InterruptedException {
        final CountDownLatch stopped = new CountDownLatch(1);
        final CountDownLatch signal = CliSupport.terminationSignal(stopped);
        final QueryServer server = QueryServer.start(s, engine, config, ingest);
        PgServer pgServer = null;
        try {
            // the PostgreSQL front end shares the HTTP server's workers, admission, timeout, token and metrics
            pgServer = pg == null ? null
                : PgServer.start(pg, QueryService.of(engine), new StoreCatalog(s), server.workers());
            err.println("tradestore: serving " + s.directory() + " (tables " + s.tableNames() + ") on http://"
                + config.bind() + ":" + server.port()
                + (pgServer != null ? " and postgresql://" + config.bind() + ":" + pgServer.port() : "")
                + "  threads=" + config.threads() + " scanThreads="
                + engine.threads() + " queue=" + config.queue() + " timeoutMs=" + config.timeoutMs()
                + (config.token() != null ? " token required" : "") + "; Ctrl-C stops");
            err.flush();
            if (started != null) {
                started.accept(server, pgServer != null ? pgServer.port() : -1);
            }
            signal.await();
            err.println("tradestore: stopping: finishing queries in flight (up to " + grace.toMillis() + " ms)");
            err.flush();
        } finally {
            server.stop(grace);
            if (pgServer != null) {
                pgServer.close();
            }
            stopped.countDown();
        }
        err.println("tradestore: stopped after " + server.requestCount() + " requests");
        err.flush();
    }
}
