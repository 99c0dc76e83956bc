package io.tradestore.bench;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.tradestore.core.schema.ColumnType;
import io.tradestore.query.gen.GenColumn;
import io.tradestore.query.gen.GenProfile;
import io.tradestore.query.gen.GenTable;
import io.tradestore.query.gen.QueryGenerator;

/**
 * The benchmark's {@code trades} table as the query grammar sees it ({@link GenTable}): the columns of the default
 * trades schema, every {@code step}-th trade by {@code trade_id} as the sample literals are drawn from (a sampled
 * row's value sits at a uniformly drawn quantile of its column, so a range between two drawn values selects anything
 * from nothing to nearly all rows, and an eq on a symbol picks popular symbols as often as they trade), and a profile
 * that keeps the shapes meaningful on 50M rows: aggregates only, no absent literals, at most
 * {@link #MAX_GROUPS} groups, DuckDB written as its users write it ({@link GenProfile.Dialect#NATIVE}).
 */
final class ShapeTable implements GenTable {
    /** Rows in the literals' sample. */
    static final int SAMPLE_ROWS = 4096;
    /** Group keys are redrawn while their estimated groups exceed this. */
    static final long MAX_GROUPS = 100_000;
    /** The default schema's columns, in order. */
    static final List<GenColumn> COLUMNS = List.of(
        new GenColumn("trade_id", ColumnType.I64, 0, true, false),
        new GenColumn("ts", ColumnType.TIMESTAMP, 0, true, false),
        new GenColumn("client_id", ColumnType.I64, 0, true, true),
        new GenColumn("venue", ColumnType.SYMBOL, 0, false, true),
        new GenColumn("instrument", ColumnType.SYMBOL, 0, false, true),
        new GenColumn("side", ColumnType.CHAR, 0, false, true),
        new GenColumn("price", ColumnType.DECIMAL, 6, true, true),
        new GenColumn("quantity", ColumnType.I64, 0, true, true));
    /**
     * The grammar fitted to the trades: keys on the symbols, the char and the two integer columns users group by;
     * percentiles of price and quantity; the notional product most often; no countDistinct of a unique column.
     */
    static final GenProfile PROFILE = new GenProfile("ts", "ts",
        List.of("instrument", "instrument", "instrument", "venue", "venue", "venue", "side", "side", "client_id",
            "client_id", "quantity"),
        Map.of("instrument", 500L, "venue", 8L, "side", 2L, "client_id", 10_000L, "quantity", 2_000L),
        List.of("price", "quantity"),
        List.of(List.of("price", "quantity"), List.of("price", "quantity"), List.of("price", "price"),
            List.of("quantity", "trade_id")),
        List.of("instrument", "venue", "side", "client_id"),
        List.of("instrument", "venue", "client_id"),
        List.of("client_id", "instrument"),
        Set.of("trade_id", "ts"), 0, false, MAX_GROUPS, 1_000, 5 * QueryGenerator.DAY_NS,
        GenProfile.Dialect.NATIVE);

    private final long rows;
    private final List<Object[]> sample;

    private ShapeTable(final long rows, final List<Object[]> sample) {
        this.rows = rows;
        this.sample = sample;
    }

    /**
     * Samples DuckDB's {@code trades} table: the trades whose {@code trade_id} is a multiple of rows / {@link
     * #SAMPLE_ROWS}.
     *
     * @param duck a connection with the table (VARCHAR or ENUM symbols, TIMESTAMP ts).
     * @return the table.
     * @throws SQLException when DuckDB fails.
     */
    static ShapeTable sample(final Connection duck) throws SQLException {
        final long rows = Long.parseLong(BenchCommand.scalar(duck, "SELECT count(*) FROM trades"));
        final long step = Math.max(1, rows / SAMPLE_ROWS);
        final List<Object[]> sample = new ArrayList<>();
        try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery("SELECT trade_id, epoch_ns(ts), "
            + "client_id, venue::VARCHAR, instrument::VARCHAR, side::VARCHAR, price, quantity FROM trades WHERE "
            + "trade_id % " + step + " = 0 ORDER BY trade_id LIMIT " + SAMPLE_ROWS)) {
            while (rs.next()) {
                sample.add(new Object[] {rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getString(4),
                    rs.getString(5), rs.getString(6), rs.getBigDecimal(7), rs.getLong(8)});
            }
        }
        return new ShapeTable(rows, sample);
    }

    /**
     * The same sample taken from generated trades without loading them (the rows {@link #sample(Connection)} picks
     * from the table {@link QueryBenchmark} loads from the same generator).
     *
     * @param rows trades generated.
     * @param seed the generator's seed.
     * @return the table.
     */
    static ShapeTable sample(final long rows, final long seed) {
        final long step = Math.max(1, rows / SAMPLE_ROWS);
        final BenchTrades gen = new BenchTrades(rows, seed);
        final BenchTrades.Batch b = new BenchTrades.Batch(1 << 16);
        final List<Object[]> sample = new ArrayList<>();
        while (gen.fill(b) > 0 && sample.size() < SAMPLE_ROWS) {
            for (int i = 0; i < b.size && sample.size() < SAMPLE_ROWS; i++) {
                if (b.tradeId[i] % step == 0) {
                    sample.add(new Object[] {b.tradeId[i], b.tsMicros[i] * 1_000L, b.clientId[i],
                        BenchTrades.VENUES[b.venue[i]], BenchTrades.instrument(b.instrument[i]),
                        String.valueOf((char) b.side[i]), BigDecimal.valueOf(b.price[i], 6), b.quantity[i]});
                }
            }
        }
        return new ShapeTable(rows, sample);
    }

    @Override
    public String name() {
        return "trades";
    }

    @Override
    public List<GenColumn> columns() {
        return COLUMNS;
    }

    @Override
    public int sampleRows() {
        return sample.size();
    }

    @Override
    public long rows() {
        return rows;
    }

    @Override
    public Object value(final int column, final int row) {
        return sample.get(row)[column];
    }

    @Override
    public List<String> unusedSymbols() {
        return List.of();
    }

    @Override
    public GenProfile profile() {
        return PROFILE;
    }
}
