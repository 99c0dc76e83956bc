package io.tradestore.server.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import io.tradestore.core.Store;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.http.QueryServer;
import io.tradestore.server.http.ServerConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tradestore serve STORE}: the HTTP/JSON query server, until Ctrl-C or SIGTERM. */
@Command(name = "serve", mixinStandardHelpOptions = true,
    description = {"Serves the store's tables over HTTP/JSON until Ctrl-C or SIGTERM.",
        "Endpoints: POST /v1/query, GET /v1/query?q=, GET /v1/tables, GET /v1/tables/{name}, GET /metrics, GET /health.",
        "Queries see the latest commit, so rows loaded by another process appear without a restart."})
final class ServeCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "the store directory")
    private Path store;

    @Option(names = "--port", defaultValue = "8080", description = "TCP port (0 picks a free one; default ${DEFAULT-VALUE})")
    private int port;

    @Option(names = "--bind", defaultValue = "127.0.0.1",
        description = "address to listen on (default ${DEFAULT-VALUE}); any non-loopback address requires --token")
    private String bind;

    @Option(names = "--threads", description = "query worker threads (default: one per core)")
    private Integer threads;

    @Option(names = "--scan-threads",
        description = "threads one query may spread its segments over (default: cores / --threads, at least 1, so that workers"
            + " times scan threads is about the core count)")
    private Integer scanThreads;

    @Option(names = "--queue", defaultValue = "64",
        description = "queries that may wait for a worker; beyond that 503 (default ${DEFAULT-VALUE})")
    private int queue;

    @Option(names = "--max-body", defaultValue = "1048576", paramLabel = "BYTES",
        description = "largest request body; beyond that 413 (default ${DEFAULT-VALUE})")
    private int maxBody;

    @Option(names = "--timeout-ms", defaultValue = "10000", description = "longest a query may take; beyond that 504 (default ${DEFAULT-VALUE})")
    private long timeoutMs;

    @Option(names = "--token", description = "require 'Authorization: Bearer TOKEN' on every request (needed to bind beyond loopback)")
    private String token;

    @picocli.CommandLine.Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        final int cores = Runtime.getRuntime().availableProcessors();
        final ServerConfig config = CliSupport.checkOptions(spec,
            () -> new ServerConfig(bind, port, threads == null ? cores : threads, queue, maxBody, timeoutMs, token));
        if (scanThreads != null && (scanThreads < 1 || scanThreads > 1024)) {
            throw CliSupport.badValue(spec, "--scan-threads", scanThreads + " must be between 1 and 1024");
        }
        // Workers x scan threads ~ cores: under load every core runs one query instead of every query fanning out and
        // paying hand-offs (docs/benchmarks.md, "HTTP: standalone runs", runs 4-6; those runs were not an A/B under
        // equal load).
        final int scan = scanThreads != null ? scanThreads : Math.max(1, cores / config.threads());
        try (Store s = CliSupport.openExisting(store); QueryEngine engine = new QueryEngine(s, scan)) {
            serve(s, engine, config, spec.commandLine().getErr(), null);
        }
        return 0;
    }

    /**
     * Serves until a termination signal, then stops with a 5 s grace period.
     *
     * @param s       the store.
     * @param engine  the engine.
     * @param config  server configuration.
     * @param err     where messages go.
     * @param started run once the server listens (the demo prints its examples then), or null.
     * @throws InterruptedException when interrupted while waiting.
     */
    static void serve(final Store s, final QueryEngine engine, final ServerConfig config, final java.io.PrintWriter err,
                      final java.util.function.Consumer<QueryServer> started) throws InterruptedException {
        final CountDownLatch stopped = new CountDownLatch(1);
        final CountDownLatch signal = CliSupport.terminationSignal(stopped);
        final QueryServer server = QueryServer.start(s, engine, config, System.err);
        try {
            err.println("tradestore: serving " + s.directory() + " (tables " + s.tableNames() + ") on http://"
                + config.bind() + ":" + server.port() + "  threads=" + config.threads() + " scanThreads=" + engine.threads()
                + " queue=" + config.queue() + " timeoutMs=" + config.timeoutMs() + (config.token() != null ? " token required" : "") + "; Ctrl-C stops");
            err.flush();
            if (started != null) {
                started.accept(server);
            }
            signal.await();
            err.println("tradestore: stopping: finishing queries in flight (up to 5 s)");
            err.flush();
        } finally {
            server.stop(Duration.ofSeconds(5));
            stopped.countDown();
        }
        err.println("tradestore: stopped after " + server.requestCount() + " requests");
        err.flush();
    }
}
