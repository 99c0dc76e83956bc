package io.tradestore.server.pg;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

import io.tradestore.core.Store;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.TestStores;
import io.tradestore.server.http.QueryServer;
import io.tradestore.server.http.QueryService;
import io.tradestore.server.http.ServerConfig;

/**
 * Small trades served by the real engine over HTTP and the PostgreSQL wire protocol on free loopback ports, sharing
 * the HTTP server's workers, for the end-to-end tests of a class; closing it stops both, then closes the engine and the
 * store.
 */
final class PgServed implements AutoCloseable {
    private final Store store;
    private final QueryEngine engine;
    private final QueryServer http;
    private final PgServer pg;

    /**
     * @param dir     an empty directory for the store.
     * @param rows    trades written.
     * @param config  the HTTP server's configuration (threads, queue, timeout, token).
     * @param maxConnections the PostgreSQL connection bound.
     * @param wrap    wraps the engine's query service (tests make queries slow), or null.
     */
    PgServed(final Path dir, final int rows, final ServerConfig config, final int maxConnections,
        final java.util.function.UnaryOperator<QueryService> wrap) {
        TestStores.writeTrades(dir, rows, 7);
        store = Store.open(dir);
        engine = new QueryEngine(store, 2);
        final QueryService service = wrap == null ? QueryService.of(engine) : wrap.apply(QueryService.of(engine));
        http = QueryServer.start(store, service, config);
        pg = PgServer.start(PgConfig.of(config, 0, maxConnections), service, new StoreCatalog(store), http.workers());
    }

    /** @param dir an empty directory. @param rows trades written. */
    PgServed(final Path dir, final int rows) {
        this(dir, rows, new ServerConfig("127.0.0.1", 0, 2, 16, 1 << 20, 10_000, null), 16, null);
    }

    QueryEngine engine() {
        return engine;
    }

    QueryServer http() {
        return http;
    }

    PgServer pg() {
        return pg;
    }

    /**
     * @param options JDBC URL options, such as {@code prepareThreshold=1&binaryTransfer=true}, or "".
     * @return a new connection as user tradestore with any password.
     * @throws SQLException when the driver cannot connect.
     */
    Connection connect(final String options) throws SQLException {
        return connect(options, "anything");
    }

    Connection connect(final String options, final String password) throws SQLException {
        final Properties p = new Properties();
        p.setProperty("user", "tradestore");
        p.setProperty("password", password);
        return DriverManager.getConnection(url(options), p);
    }

    String url(final String options) {
        return "jdbc:postgresql://127.0.0.1:" + pg.port() + "/tradestore?sslmode=disable&connectTimeout=30"
            + "&socketTimeout=60" + (options.isEmpty() ? "" : "&" + options);
    }

    @Override
    public void close() {
        http.close();
        pg.close();
        engine.close();
        store.close();
    }
}
