package io.tradestore.server.http;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/** The routes the server answers, each with the label its metrics carry (a route template, never a raw path). */
enum Endpoint {
    HEALTH("/health"),
    METRICS("/metrics"),
    QUERY("/v1/query"),
    SQL("/v1/sql"),
    TABLES("/v1/tables"),
    TABLE("/v1/tables/{name}"),
    /** Line protocol, at InfluxDB's and QuestDB's paths ({@code /write}, {@code /api/v2/write}). */
    WRITE("/write"),
    /** CSV into a table. */
    IMPORT("/v1/tables/{name}/import"),
    /** A table's rows as one Parquet file, streamed. */
    EXPORT("/v1/tables/{name}/export"),
    /** The settings QuestDB's clients ask for before they send line protocol. */
    SETTINGS("/settings"),
    /** InfluxDB's liveness check, which its clients send first. */
    PING("/ping"),
    /** A running query cancelled by the id its client gave it ({@code DELETE /v1/queries/{id}}). */
    QUERIES("/v1/queries/{id}"),
    /** The browser console: its page at {@code /} and its files under {@code /console/}. */
    CONSOLE("console"),
    /** A statement over the PostgreSQL wire protocol, counted with the HTTP status its outcome would have had. */
    PG("pg"),
    /** Any other path (answered 404), and a request that could not be read far enough to know its path. */
    OTHER("other");

    /** Where {@link #QUERIES} is. */
    static final String QUERIES_PREFIX = "/v1/queries/";
    /** How many endpoints there are. */
    static final int COUNT = values().length;
    /** Every endpoint in the order of its label, as the metrics are rendered. */
    static final List<Endpoint> BY_LABEL = sortedByLabel();

    private final String label;

    Endpoint(final String label) {
        this.label = label;
    }

    /** @return the metrics label. */
    String label() {
        return label;
    }

    /**
     * @param target a request target in origin form, its query (after '?') included or not.
     * @return the endpoint that answers it.
     */
    static Endpoint ofTarget(final String target) {
        final int q = target.indexOf('?');
        return of(q < 0 ? target : target.substring(0, q));
    }

    /**
     * @param path a request's raw path.
     * @return the endpoint that answers it.
     */
    static Endpoint of(final String path) {
        switch (path) {
            case "/health":
                return HEALTH;
            case "/metrics":
                return METRICS;
            case "/v1/query":
                return QUERY;
            case "/v1/sql":
                return SQL;
            case "/v1/tables":
                return TABLES;
            case "/write":
            case "/api/v2/write":
                return WRITE;
            case "/settings":
                return SETTINGS;
            case "/ping":
                return PING;
            case "/":
                return CONSOLE;
            default:
                if (path.startsWith("/v1/tables/")) {
                    return path.endsWith("/import") ? IMPORT : path.endsWith("/export") ? EXPORT : TABLE;
                }
                if (path.startsWith(QUERIES_PREFIX)) {
                    return QUERIES;
                }
                return ConsoleAssets.isConsole(path) ? CONSOLE : OTHER;
        }
    }

    private static List<Endpoint> sortedByLabel() {
        final Endpoint[] e = values();
        Arrays.sort(e, Comparator.comparing(Endpoint::label));
        return List.of(e);
    }
}
