package io.tradestore.server.pg;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.query.QueryResult;
import io.tradestore.server.http.ServerConfig;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Answers longer than a JSON page over the wire protocol: a scan without LIMIT sends every row (streamed as the engine
 * reads, in every mode the JDBC driver has), an ordered one too, a portal read in parts by a cursor holds them all,
 * and a client that stops reading is cut off at the write timeout, freeing the one worker for the next statement.
 */
class PgLongAnswersTest {
    private static final int ROWS = 300_000;
    private static final String[] MODES = {
        "prepareThreshold=5&binaryTransfer=false",
        "prepareThreshold=1&binaryTransfer=true",
        "preferQueryMode=simple",
    };

    @TempDir
    private static Path dir;
    private static PgServed served;

    @BeforeAll
    static void serve() {
        // one worker: a statement still held by a client that stopped reading would hold up every other one
        final ServerConfig.Limits l = ServerConfig.defaults().limits();
        served = new PgServed(dir, ROWS, new ServerConfig("127.0.0.1", 0, 1, 16, 1 << 20, 60_000, null)
            .withLimits(new ServerConfig.Limits(l.maxConnections(), l.requestTimeoutMs(), 2_000, l.maxAnswerBytes(),
                l.maxGroups(), l.allowedHosts())), 16, null);
    }

    @AfterAll
    static void stop() {
        served.close();
    }

    private static List<Long> engineIds(final String sql) {
        final QueryResult r = served.engine().executeSql(sql + " LIMIT 1000000");
        final List<Long> ids = new ArrayList<>(r.rowCount());
        for (int i = 0; i < r.rowCount(); i++) {
            ids.add(((Number) r.value(i, 0)).longValue());
        }
        return ids;
    }

    private static List<Long> ids(final ResultSet rs) throws Exception {
        final List<Long> ids = new ArrayList<>();
        while (rs.next()) {
            ids.add(rs.getLong(1));
        }
        return ids;
    }

    @Test
    void shouldSendEveryRowOfAScanWithoutLimit() throws Exception {
        final String scan = "SELECT trade_id, ts, price FROM trades WHERE quantity > 10";
        final String ordered = "SELECT trade_id, price FROM trades ORDER BY price DESC, trade_id";
        final List<Long> scanIds = engineIds(scan);
        final List<Long> orderedIds = engineIds(ordered);
        assertThat(scanIds).hasSizeGreaterThan(200_000);
        assertThat(orderedIds).hasSize(ROWS);
        for (final String mode : MODES) {
            try (Connection c = served.connect(mode); Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery(scan)) {
                    assertThat(ids(rs)).as(mode).isEqualTo(scanIds);
                }
                try (ResultSet rs = s.executeQuery(ordered)) {
                    assertThat(ids(rs)).as(mode).isEqualTo(orderedIds);
                }
            }
        }
    }

    @Test
    void shouldHoldTheWholeAnswerForAPortalReadInParts() throws Exception {
        final String scan = "SELECT trade_id FROM trades WHERE venue <> 'XLON'";
        final List<Long> expected = engineIds(scan);
        assertThat(expected).hasSizeGreaterThan(100_000);
        try (Connection c = served.connect("")) {
            c.setAutoCommit(false); // a fetch size only makes the driver read by Execute(maxRows) in a transaction
            try (Statement s = c.createStatement()) {
                s.setFetchSize(7_000);
                try (ResultSet rs = s.executeQuery(scan)) {
                    assertThat(ids(rs)).isEqualTo(expected);
                }
            }
            c.commit();
        }
    }

    @Test
    void shouldCutOffAClientThatStopsReadingAndFreeTheWorker() throws Exception {
        int dataRows = 0;
        try (PgRawClient stalled = new PgRawClient(served.pg().port(), 60_000)) {
            stalled.login();
            stalled.send(PgRawClient.query("SELECT * FROM trades"));
            // it reads nothing: the answer fills the socket buffers and two of the server's, and waits there; the one
            // worker is free again once the write timeout closes the connection
            try (Connection c = served.connect(""); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*) FROM trades")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(ROWS);
            }
            // what reached the socket before the cut ends short of the answer, with no CommandComplete
            try {
                for (PgRawClient.Message m = stalled.read(); m != null; m = stalled.read()) {
                    assertThat(m.type()).isIn('T', 'D');
                    dataRows += m.type() == 'D' ? 1 : 0;
                }
            } catch (final SocketTimeoutException e) {
                throw e;
            } catch (final IOException e) {
                // the connection closed inside a message, or was reset: the end as well
            }
        }
        assertThat(dataRows).isPositive().isLessThan(ROWS);
    }
}
