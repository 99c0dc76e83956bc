package io.tradestore.server.http;

import java.nio.file.Path;

import io.tradestore.core.Store;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.TestStores;

/**
 * Small trades served over real HTTP by the real engine (2 query threads, 10 s timeout), for the end-to-end tests of a
 * class; closing it stops the server, then closes the engine and the store.
 */
final class ServedEngine implements AutoCloseable {
    private final Store store;
    private final QueryEngine engine;
    private final QueryServer server;
    private final Http http;

    /** @param dir an empty directory for the store. @param rows trades written. @param seed their seed. */
    ServedEngine(final Path dir, final int rows, final long seed) {
        TestStores.writeTrades(dir, rows, seed);
        store = Store.open(dir);
        engine = new QueryEngine(store, 2);
        server = QueryServer.start(store, engine, new ServerConfig("127.0.0.1", 0, 2, 16, 1 << 20, 10_000, null));
        http = new Http(server.port());
    }

    QueryEngine engine() {
        return engine;
    }

    QueryServer server() {
        return server;
    }

    Http http() {
        return http;
    }

    @Override
    public void close() {
        server.close();
        engine.close();
        store.close();
    }
}
