package io.tradestore.server.pg;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The captured client statements of {@code client-catalog-queries.sql}. */
final class ClientQueries {
    private static final String RESOURCE = "client-catalog-queries.sql";

    /**
     * One captured statement.
     *
     * @param client     the client and what it was doing.
     * @param parameters the values bound to {@code $1..$n}.
     * @param sql        the statement, with {@code ${trades_oid}} for the trades table's OID.
     */
    record Query(String client, List<String> parameters, String sql) {
        /**
         * @param tradesOid the trades table's OID.
         * @return the statement as the client sends it to this store.
         */
        String sql(final long tradesOid) {
            return sql.replace("${trades_oid}", Long.toString(tradesOid));
        }

        @Override
        public String toString() {
            final String oneLine = sql.replaceAll("\\s+", " ");
            return client + ": " + (oneLine.length() > 70 ? oneLine.substring(0, 70) + "..." : oneLine);
        }
    }

    private ClientQueries() {
    }

    /** @return every captured statement, in the order the clients sent them. */
    static List<Query> all() {
        final String text;
        try (InputStream in = ClientQueries.class.getResourceAsStream(RESOURCE)) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (final IOException e) {
            throw new IllegalStateException(e);
        }
        final List<Query> queries = new ArrayList<>();
        String client = null;
        List<String> parameters = new ArrayList<>();
        StringBuilder sql = new StringBuilder();
        for (final String line : text.split("\n", -1)) {
            if (line.startsWith("-- @@ ")) {
                if (client != null) {
                    queries.add(new Query(client, parameters, sql.toString().strip()));
                }
                client = line.substring(6);
                parameters = new ArrayList<>();
                sql = new StringBuilder();
            } else if (line.startsWith("-- @param ")) {
                parameters.add(line.substring(10));
            } else if (client != null) {
                sql.append(line).append('\n');
            }
        }
        if (client != null) {
            queries.add(new Query(client, parameters, sql.toString().strip()));
        }
        return queries;
    }
}
