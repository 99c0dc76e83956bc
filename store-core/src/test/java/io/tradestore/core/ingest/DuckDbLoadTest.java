package io.tradestore.core.ingest;

import java.math.BigInteger;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableReader;
import io.tradestore.core.TestRows;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.sample.TradeGenerator;

import static org.assertj.core.api.Assertions.assertThat;

/** Generated CSV loaded by tradestore and read by DuckDB's read_csv: counts, sums and dictionaries must agree. */
@ExtendWith(TestRows.NoLeaks.class)
class DuckDbLoadTest {
    private static final int ROWS = 100_000;

    @TempDir
    Path dir;

    @Test
    void shouldMatchDuckDbReadCsvOfTheSameFile() throws Exception {
        final Path csv = dir.resolve("trades.csv");
        TradeGenerator.writeCsv(csv, ROWS, 2026);
        final LoadResult r =
            IngestFixtures.load(dir.resolve("store"), LoadOptions.defaults().withThreads(2).withChunkBytes(64 << 10),
            csv);
        assertThat(r.rowsLoaded()).isEqualTo(ROWS);
        final IngestFixtures.Summary ours = IngestFixtures.summarise(dir.resolve("store"));
        final Map<String, long[]> perInstrument = new TreeMap<>();
        try (Store store = Store.open(dir.resolve("store")); TableReader reader = store.table("trades").reader()) {
            final TradeFlyweight f = new TradeFlyweight().bind(reader.snapshot());
            while (f.next()) {
                final long[] a = perInstrument
                    .computeIfAbsent(f.instrumentValue() + "|" + f.venueValue(), k -> new long[3]);
                a[0]++;
                a[1] += f.quantity();
                a[2] += f.price();
            }
        }
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
            st.execute("SET threads=2");
            st.execute("CREATE TABLE t AS SELECT *, row_number() OVER () AS rn FROM read_csv('" + csv
                + "', header=true, columns={"
                + "'trade_id':'BIGINT','ts':'VARCHAR','client_id':'BIGINT','venue':'VARCHAR','instrument':'VARCHAR','s"
                + "ide':'VARCHAR',"
                + "'price':'DECIMAL(18,6)','quantity':'BIGINT'})");
            try (ResultSet rs = st
                .executeQuery("SELECT count(*), sum(trade_id), sum(epoch_us(CAST(ts AS TIMESTAMPTZ)) * 1000),"
                + " sum(client_id), CAST(sum(price) * 1000000 AS HUGEINT), sum(quantity), count(*) FILTER (WHERE side "
                + "= 'B') FROM t")) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(ours.rows());
                assertThat(wrap(rs.getString(2))).isEqualTo(ours.sumTradeId());
                assertThat(wrap(rs.getString(3))).isEqualTo(ours.sumTs());
                assertThat(wrap(rs.getString(4))).isEqualTo(ours.sumClient());
                assertThat(wrap(rs.getString(5))).isEqualTo(ours.sumPrice());
                assertThat(wrap(rs.getString(6))).isEqualTo(ours.sumQuantity());
                assertThat(rs.getLong(7)).isEqualTo(ours.buys());
            }
            assertThat(firstAppearance(st, "venue")).isEqualTo(ours.venues()).hasSize(8);
            assertThat(firstAppearance(st, "instrument")).isEqualTo(ours.instruments())
                .hasSize(TradeGenerator.INSTRUMENTS);
            final Map<String, long[]> theirs = new TreeMap<>();
            try (ResultSet rs = st.executeQuery("SELECT instrument || '|' || venue, count(*), sum(quantity),"
                + " CAST(sum(price) * 1000000 AS BIGINT) FROM t GROUP BY 1")) {
                while (rs.next()) {
                    theirs.put(rs.getString(1), new long[] {rs.getLong(2), rs.getLong(3), rs.getLong(4)});
                }
            }
            assertThat(theirs.keySet()).isEqualTo(perInstrument.keySet());
            for (final Map.Entry<String, long[]> e : perInstrument.entrySet()) {
                assertThat(theirs.get(e.getKey())).as(e.getKey()).containsExactly(e.getValue());
            }
        }
    }

    private static long wrap(final String hugeint) {
        return new BigInteger(hugeint).longValue();
    }

    private static List<String> firstAppearance(final Statement st, final String column) throws Exception {
        final List<String> values = new ArrayList<>();
        try (ResultSet rs = st.executeQuery("SELECT " + column + " FROM t GROUP BY " + column + " ORDER BY min(rn)")) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }
}
