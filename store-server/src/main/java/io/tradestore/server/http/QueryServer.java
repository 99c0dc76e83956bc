package io.tradestore.server.http;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.tradestore.core.Store;
import io.tradestore.core.StoreException;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.admission.QueryWorkers;
import io.tradestore.server.ingest.IngestConfig;

/**
 * The HTTP/JSON front of a store, on Netty's HTTP/1.1 codec (see docs/http-api.md for why).
 *
 * <pre>
 *  event loops (one per core): read, decode and assemble requests (413 past the body limit), auth, route
 *     │  cheap endpoints (/health /metrics /v1/tables) answered on the loop
 *     └─ POST/GET /v1/query ──> admitted? (at most threads running + queue waiting)
 *           no:  503 OVERLOADED + Retry-After, at once (a loop never runs a query, so it is always free to answer)
 *           yes: a query worker runs it ──> the answer is written on the connection's loop
 *  the loop's timer: a query not answered within timeoutMs of its arrival gets 504 TIMEOUT (whichever answers
 *  first wins)
 *  one request at a time per connection: pipelined requests wait for the answer before them (answers stay in order)
 * </pre>
 *
 * The parts: {@link HttpFrontEnd} (the Netty server, pipeline and route table), {@link PipelinedConnection} and
 * {@link BodyLimit} (a connection's requests in order, its body limit), {@link AnswerWriter} (the write path, answers
 * counted at the socket), {@link QueryAdmission} (workers, deadlines, cancellation, the stop's drain) and
 * {@link RequestAuth} (token, Host and Origin).
 *
 * Every query runs on the latest commit at the moment it starts (the engine takes a fresh snapshot), so rows loaded
 * by another process become visible without a restart. Error bodies are {@code {"error":{"code","message","path"}}};
 * a bug answers 500 INTERNAL with an id that is also written to the log, never a stack trace.
 */
public final class QueryServer implements AutoCloseable {
    private final QueryAdmission admission;
    private final IngestAdmission ingest;
    private final HttpFrontEnd front;
    private final AtomicBoolean stopped = new AtomicBoolean();

    private QueryServer(final Store store, final QueryService queries, final QueryEngine engine,
        final ServerConfig config, final IngestConfig ingestConfig) throws IOException {
        final AtomicInteger pipelinedRequests = new AtomicInteger();
        this.admission = new QueryAdmission(queries, engine, config, pipelinedRequests);
        this.ingest = new IngestAdmission(store, ingestConfig, admission.answers(), admission.metrics());
        this.front = new HttpFrontEnd(store, config, admission, ingest, pipelinedRequests);
        ingest.onDropped(name -> {
            if (engine != null) {
                engine.forgetTable(name);
            }
            front.forget(name);
        });
        ingest.onRetained(name -> {
            if (engine != null) {
                engine.refreshTable(name);
            }
            front.forget(name); // the description's reader opens afresh at the next look, without the dropped segments
        });
        if (engine != null) {
            admission.metrics().retiredSegments(engine::retiredSegments);
        }
    }

    /**
     * Starts serving queries on an engine; /metrics reports its summaries.
     *
     * @param store  the store whose tables are served (not closed by the server).
     * @param engine the engine over that store (not closed by the server).
     * @param config address, limits and token.
     * @return the running server.
     */
    public static QueryServer start(final Store store, final QueryEngine engine, final ServerConfig config) {
        return start(store, QueryService.of(engine), engine, config, IngestConfig.defaults());
    }

    /**
     * Starts serving queries on an engine and taking rows in (line protocol and CSV over HTTP).
     *
     * @param store  the store whose tables are served and written (not closed by the server).
     * @param engine the engine over that store (not closed by the server).
     * @param config address, limits and token.
     * @param ingest ingest limits and policies.
     * @return the running server.
     */
    public static QueryServer start(final Store store, final QueryEngine engine, final ServerConfig config,
        final IngestConfig ingest) {
        return start(store, QueryService.of(engine), engine, config, ingest);
    }

    /**
     * Starts serving queries on any service (tests make queries slow or faulty); /metrics has no summary figures.
     *
     * @param store   the store whose tables are served (not closed by the server).
     * @param queries what answers queries.
     * @param config  address, limits and token.
     * @return the running server.
     */
    public static QueryServer start(final Store store, final QueryService queries, final ServerConfig config) {
        return start(store, queries, null, config, IngestConfig.defaults());
    }

    private static QueryServer start(final Store store, final QueryService queries, final QueryEngine engine,
        final ServerConfig config, final IngestConfig ingest) {
        final QueryServer s;
        try {
            s = new QueryServer(store, queries, engine, config, ingest);
        } catch (final IOException e) {
            throw new StoreException("cannot listen on " + config.bind() + ":" + config.port() + ": " + e.getMessage()
                + (config.port() != 0 ? "; is another server running there? choose another --port" : ""), e);
        }
        return s;
    }

    /** @return the address the server listens on (with the real port when 0 was asked for). */
    public InetSocketAddress address() {
        return front.address();
    }

    /**
     * @return the server's query workers, for another front end (the PostgreSQL wire protocol) to share: the same
     *     threads, admission bound, timeout, stop and metrics.
     */
    public QueryWorkers workers() {
        return admission;
    }

    /** @return the port the server listens on. */
    public int port() {
        return address().getPort();
    }

    /** @return total requests answered so far. */
    public long requestCount() {
        return admission.metrics().requestCount();
    }

    /** @return answer bytes handed to connections whose clients have not taken them yet (answers over 64 KiB). */
    long unreadAnswerBytes() {
        return admission.answers().heldAnswerBytes.get();
    }

    /** @return the Prometheus text of the metrics, as {@code GET /metrics} answers. */
    public String metricsText() {
        return admission.metrics().render();
    }

    /**
     * Stops: new requests get 503 while queries in flight finish and their answers reach the socket (up to
     * {@code grace}); past the grace every query still queued or running is cancelled and answered 503; then the
     * listener and every connection close and the server's table readers unmap. Returns once no worker runs a query
     * (or, for a query service that ignores its cancel, after a further wait, with a warning): the engine's own
     * {@link io.tradestore.query.QueryEngine#close()} waits for its queries before unmapping. Idempotent.
     *
     * @param grace how long in-flight queries may take to finish.
     */
    public void stop(final Duration grace) {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        final long startNs = System.nanoTime();
        admission.drain(grace);
        // ingest requests had the queries' grace to finish alongside them; those still running get what is left
        ingest.drain(Duration.ofNanos(Math.max(0, grace.toNanos() - (System.nanoTime() - startNs))));
        front.close();
    }

    /** Stops with the default grace of 5 seconds. */
    @Override
    public void close() {
        stop(Duration.ofSeconds(5));
    }
}
