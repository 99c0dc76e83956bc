package io.tradestore.query.difftest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import io.tradestore.core.FileDamage;
import io.tradestore.core.Store;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.PartitionBy;
import io.tradestore.query.gen.GenQuery;
import io.tradestore.query.gen.QueryGenerator;

/**
 * The random tables of the differential test, written to a tradestore store in a temporary directory and loaded into
 * an in-memory DuckDB, plus the seeded query stream over them. Replay one query with
 * {@code -Dtradestore.difftest.seed=S -Dtradestore.difftest.only=TABLE/INDEX}.
 */
final class DiffFixture implements AutoCloseable {
    /** The master seed: every table and query derives from it. */
    static final long SEED = Long.getLong("tradestore.difftest.seed", 20_261_121L);
    /** Total random queries per run (spread over the tables). */
    static final int QUERIES = Integer.getInteger("tradestore.difftest.queries", 640);
    /** {@code TABLE/INDEX} to run one query only, or null. */
    static final String ONLY = System.getProperty("tradestore.difftest.only");

    final Path dir;
    final Store store;
    final Connection duck;
    final List<DiffTable> tables = new ArrayList<>();
    /** Share of {@link #QUERIES} per table, in per mille. */
    private final List<Integer> shares = new ArrayList<>();

    DiffFixture() throws IOException, SQLException {
        final SplittableRandom r = new SplittableRandom(SEED);
        add(new DiffTable("t_col8", Layout.COLUMN, 8, 4, 300, 0.10, DiffTable.TsMode.TIES, r.nextLong()), 190);
        add(new DiffTable("t_row64", Layout.ROW, 64, 16, 2_500, 0.05, DiffTable.TsMode.UNIQUE, r.nextLong()), 190);
        add(new DiffTable("t_col_big", Layout.COLUMN, 16_384, 1_024, 40_000, 0.03, DiffTable.TsMode.TIES, r.nextLong()),
            240);
        add(new DiffTable("t_row_big", Layout.ROW, 4_096, 256, 20_000, 0.08, DiffTable.TsMode.JITTER, r.nextLong()),
            240);
        add(new DiffTable("t_sparse", Layout.COLUMN, 16, 16, 37, 0.6, DiffTable.TsMode.UNIQUE, r.nextLong()), 90);
        add(new DiffTable("t_empty", Layout.ROW, 8, 8, 0, 0.1, DiffTable.TsMode.UNIQUE, r.nextLong()), 50);
        add(new DiffTable("t_patchy", Layout.COLUMN, 4_096, 128, 12_000, 0.05, DiffTable.TsMode.PATCHY, r.nextLong()),
            120);
        // segments ended at every hour (and for late rows): the unused row numbers between them must never count
        add(new DiffTable("t_hourly", Layout.COLUMN, 1_024, 64, 6_000, 0.05, DiffTable.TsMode.PATCHY, r.nextLong(),
            PartitionBy.HOUR), 120);
        dir = Files.createTempDirectory("tradestore-difftest");
        store = Store.open(dir);
        duck = DriverManager.getConnection("jdbc:duckdb:");
        try (Statement st = duck.createStatement()) {
            st.execute("SET threads=2");
        }
        for (final DiffTable t : tables) {
            t.writeTo(store);
            t.loadInto(duck);
        }
    }

    private void add(final DiffTable t, final int share) {
        tables.add(t);
        shares.add(share);
    }

    /** @return every query of this run (or the one named by {@link #ONLY}). */
    List<GenQuery> queries() {
        final List<GenQuery> all = new ArrayList<>();
        for (int ti = 0; ti < tables.size(); ti++) {
            final DiffTable t = tables.get(ti);
            final int count = Math.max(1, QUERIES * shares.get(ti) / 1000);
            for (int i = 0; i < count; i++) {
                final String id = SEED + "/" + t.name + "/" + i;
                if (ONLY != null && !ONLY.equals(t.name + "/" + i)) {
                    continue;
                }
                all.add(new QueryGenerator(t, SEED * 1_000_003L + ti * 100_003L + i, id).next());
            }
        }
        return all;
    }

    /** @param name a table name. @return the table. */
    DiffTable table(final String name) {
        for (final DiffTable t : tables) {
            if (t.name.equals(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException(name);
    }

    @Override
    public void close() throws SQLException, IOException {
        try {
            duck.close();
        } finally {
            store.close();
            FileDamage.deleteTree(dir);
        }
    }
}
