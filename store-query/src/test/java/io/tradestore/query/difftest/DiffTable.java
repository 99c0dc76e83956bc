package io.tradestore.query.difftest;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.PartitionBy;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.gen.GenColumn;
import io.tradestore.query.gen.GenProfile;
import io.tradestore.query.gen.GenTable;

/**
 * One seeded random table of the differential test: its rows are generated once into Java arrays, then written to a
 * tradestore table (raw column writes through {@link TableWriter#columnAddress}) and appended to a DuckDB table of the
 * same name. DuckDB also gets {@code rid}, the row number, so that SQL can break timestamp ties the way the store's
 * row order does.
 *
 * <p>Every column except the designated timestamp {@code ts} holds nulls. Symbols are Zipf-skewed and interned in
 * order of first appearance (codes are not in string order). Timestamps are unique, tied, or out of order depending
 * on {@link TsMode}.
 */
final class DiffTable implements GenTable {
    /** How the designated timestamps are laid out. */
    enum TsMode {
        /** Strictly increasing: first/last are unambiguous. */
        UNIQUE,
        /** Non-decreasing with many equal neighbours: ties go to row order. */
        TIES,
        /** Random order within the span, with some duplicates. */
        JITTER,
        /**
         * Non-decreasing with ties, but about one row in 300 steps back in time: most blocks are in time order (the
         * engine's per-bucket runs, {@code BucketRuns}), some are not, and some sorted blocks overlap their neighbours.
         */
        PATCHY
    }

    /** 2026-11-16T00:00:00Z, a Monday. */
    static final long BASE_TS = 1_794_787_200_000_000_000L;
    static final long DAY_NS = 86_400_000_000_000L;

    /** The columns of every random table, in schema order. */
    static final List<GenColumn> COLUMNS = List.of(
        new GenColumn("ts", ColumnType.TIMESTAMP, 0, true, false),
        new GenColumn("sym", ColumnType.SYMBOL, 0, false, true),
        new GenColumn("venue", ColumnType.SYMBOL, 0, false, true),
        new GenColumn("side", ColumnType.CHAR, 0, false, true),
        new GenColumn("price", ColumnType.DECIMAL, 6, true, true),
        new GenColumn("quantity", ColumnType.I64, 0, true, true),
        new GenColumn("q32", ColumnType.I32, 0, false, true),
        new GenColumn("b", ColumnType.I8, 0, false, true),
        new GenColumn("s", ColumnType.I16, 0, false, true),
        new GenColumn("pnl", ColumnType.DECIMAL, 2, false, true),
        new GenColumn("f", ColumnType.F64, 0, false, false),
        new GenColumn("ts2", ColumnType.TIMESTAMP, 0, true, true),
        new GenColumn("id", ColumnType.I64, 0, true, true),
        new GenColumn("client", ColumnType.I64, 0, true, true));

    /** How the grammar fits these tables: every column and type, nudged literals, scans, the oracle's SQL. */
    static final GenProfile PROFILE = new GenProfile("ts", "ts2",
        // group keys, weighted towards the low-cardinality ones (a high-cardinality key makes every group a single row)
        List.of("sym", "sym", "sym", "venue", "venue", "venue", "side", "side", "b", "b", "client", "client",
            "ts2", "q32", "s", "pnl", "id", "price", "quantity"),
        Map.of("sym", 61L, "venue", 9L, "side", 3L, "b", 42L, "client", 2_000L),
        List.of("price", "quantity", "client", "id", "pnl", "q32", "b", "f"),
        List.of(List.of("price", "quantity"), List.of("price", "price"), List.of("quantity", "q32"),
            List.of("pnl", "b"), List.of("id", "q32"), List.of("f", "quantity"), List.of("f", "b"), List.of("s", "b")),
        List.of("sym", "venue", "side", "q32", "b", "s", "client"),
        List.of("sym", "venue", "client"),
        List.of("client", "sym"),
        Set.of(), 18, true, Long.MAX_VALUE, 1, 4 * DAY_NS, GenProfile.Dialect.ORACLE);

    static final String[] VENUES = {"XLON", "XPAR", "XETR", "XAMS", "XMIL", "XMAD", "XSWX", "XWBO"};

    final String name;
    final Layout layout;
    final int segmentRows;
    final int blockRows;
    final int rows;
    final double nullRate;
    final TsMode tsMode;
    final long seed;
    /** How the tradestore table is split by time (its segments ended early at each new period). */
    final PartitionBy partitionBy;
    /**
     * Per column: the raw stored value (f64 as raw bits, symbols and chars as an index into {@link #text}), or the null
     * sentinel / -1.
     */
    final long[][] raw;
    /** Per textual column: the strings its indexes refer to; null for other columns. */
    final String[][] text;
    /** Symbol strings interned into the dictionary before any row, never used by a row. */
    final List<String> unusedSymbols = new ArrayList<>();

    DiffTable(final String name, final Layout layout, final int segmentRows, final int blockRows, final int rows,
        final double nullRate,
              final TsMode tsMode, final long seed) {
        this(name, layout, segmentRows, blockRows, rows, nullRate, tsMode, seed, PartitionBy.NONE);
    }

    DiffTable(final String name, final Layout layout, final int segmentRows, final int blockRows, final int rows,
        final double nullRate, final TsMode tsMode, final long seed, final PartitionBy partitionBy) {
        this.partitionBy = partitionBy;
        this.name = name;
        this.layout = layout;
        this.segmentRows = segmentRows;
        this.blockRows = blockRows;
        this.rows = rows;
        this.nullRate = nullRate;
        this.tsMode = tsMode;
        this.seed = seed;
        this.raw = new long[COLUMNS.size()][rows];
        this.text = new String[COLUMNS.size()][];
        generate();
    }

    @Override
    public String toString() {
        return name + "{layout=" + layout + " segmentRows=" + segmentRows + " blockRows=" + blockRows + " rows=" + rows
            + " nullRate="
            + nullRate + " ts=" + tsMode + " seed=" + seed + " partitionBy=" + partitionBy + "}";
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<GenColumn> columns() {
        return COLUMNS;
    }

    @Override
    public int sampleRows() {
        return rows;
    }

    @Override
    public long rows() {
        return rows;
    }

    @Override
    public List<String> unusedSymbols() {
        return unusedSymbols;
    }

    @Override
    public GenProfile profile() {
        return PROFILE;
    }

    /** @param column a column name. @return its index. */
    static int index(final String column) {
        for (int i = 0; i < COLUMNS.size(); i++) {
            if (COLUMNS.get(i).name().equals(column)) {
                return i;
            }
        }
        throw new IllegalArgumentException("no column " + column);
    }

    /** @return the tradestore schema of this table. */
    Schema schema() {
        final Schema.Builder b = Schema.builder(name).layout(layout).segmentRows(segmentRows).blockRows(blockRows)
            .timestamp("ts").partitionBy(partitionBy);
        for (final GenColumn c : COLUMNS) {
            b.column(c.name(), c.schemaType());
        }
        return b.build();
    }

    private void generate() {
        final SplittableRandom r = new SplittableRandom(seed);
        final String[] syms = new String[60];
        for (int i = 0; i < syms.length; i++) {
            syms[i] = String.format("S%02d", (i * 37) % syms.length);
        }
        text[index("sym")] = syms;
        text[index("venue")] = VENUES.clone();
        text[index("side")] = new String[] {"B", "S"};
        final double[] symCdf = zipfCdf(syms.length, 1.1);
        final double[] venueCdf = zipfCdf(VENUES.length, 0.6);
        final double[] clientCdf = zipfCdf(2000, 1.0);
        unusedSymbols.add("ZUNUSED1");
        unusedSymbols.add("ZUNUSED2");
        final long span = 3 * DAY_NS;
        long ts = BASE_TS + r.nextLong(3_600_000_000_000L);
        final long meanGap = span / Math.max(1, rows);
        for (int row = 0; row < rows; row++) {
            switch (tsMode) {
                case UNIQUE:
                    ts += 1 + r.nextLong(2 * meanGap + 1);
                    break;
                case TIES:
                    ts += r.nextInt(3) == 0 ? 0 : r.nextLong(3 * meanGap + 1) / 1_000_000 * 1_000_000;
                    break;
                case PATCHY:
                    ts += r.nextInt(4) == 0 ? 0 : r.nextLong(2 * meanGap + 1);
                    if (r.nextInt(300) == 0) {
                        ts -= r.nextLong(20 * meanGap + 1);
                    }
                    break;
                case JITTER:
                    ts = r.nextInt(10) == 0 && row > 0 ? raw[0][r.nextInt(row)] : BASE_TS + r.nextLong(span);
                    break;
                default:
                    throw new IllegalStateException();
            }
            raw[0][row] = ts;
            for (int c = 1; c < COLUMNS.size(); c++) {
                final GenColumn col = COLUMNS.get(c);
                if (r.nextDouble() < nullRate) {
                    raw[c][row] = col.textual() ? -1 : col.type().nullBits();
                    continue;
                }
                final long v;
                switch (col.name()) {
                    case "sym":
                        v = sample(symCdf, r);
                        break;
                    case "venue":
                        v = sample(venueCdf, r);
                        break;
                    case "side":
                        v = r.nextInt(2);
                        break;
                    case "price":
                        // 0.000001 .. ~2000, log-uniform-ish, with six fraction digits
                        v = (long) Math.exp(r.nextDouble() * Math.log(2e9))
                            + (r.nextInt(50) == 0 ? 0 : r.nextInt(1000));
                        break;
                    case "quantity":
                        v = 1 + (long) Math.floor(Math.pow(r.nextDouble(), 4) * 1_000_000);
                        break;
                    case "q32":
                        v = r.nextInt(2_000_001) - 1_000_000;
                        break;
                    case "b":
                        v = r.nextInt(41) - 20;
                        break;
                    case "s":
                        v = r.nextInt(65_535) - 32_767;
                        break;
                    case "pnl":
                        v = r.nextLong(2_000_000_000_001L) - 1_000_000_000_000L;
                        break;
                    case "f":
                        v = Double.doubleToRawLongBits((r.nextInt(8_000_001) - 4_000_000) / 4.0);
                        break;
                    case "ts2":
                        v = ts + r.nextLong(2 * DAY_NS) - DAY_NS / 2;
                        break;
                    case "id":
                        v = 1_000_000_000_000_000L + row * 7_919L + r.nextInt(7_919);
                        break;
                    case "client":
                        v = 10_000 + sample(clientCdf, r);
                        break;
                    default:
                        throw new IllegalStateException(col.name());
                }
                raw[c][row] = v;
            }
        }
    }

    private static double[] zipfCdf(final int n, final double s) {
        final double[] cdf = new double[n];
        double sum = 0;
        for (int k = 0; k < n; k++) {
            sum += 1.0 / Math.pow(k + 1, s);
            cdf[k] = sum;
        }
        for (int k = 0; k < n; k++) {
            cdf[k] /= sum;
        }
        return cdf;
    }

    private static int sample(final double[] cdf, final SplittableRandom r) {
        final int i = Arrays.binarySearch(cdf, r.nextDouble());
        return Math.min(cdf.length - 1, i >= 0 ? i : -i - 1);
    }

    /** @param c column index. @param row row. @return whether the value is null. */
    boolean isNull(final int c, final int row) {
        final GenColumn col = COLUMNS.get(c);
        if (col.textual()) {
            return raw[c][row] < 0;
        }
        if (col.type() == ColumnType.F64) {
            return Double.isNaN(Double.longBitsToDouble(raw[c][row]));
        }
        return raw[c][row] == col.type().nullBits();
    }

    /**
     * Returns a value as the engine would report it.
     *
     * @param c   column index.
     * @param row row.
     * @return null, a Long (integers, timestamps), a BigDecimal (decimals), a Double (f64) or a String.
     */
    @Override
    public Object value(final int c, final int row) {
        if (isNull(c, row)) {
            return null;
        }
        final GenColumn col = COLUMNS.get(c);
        final long v = raw[c][row];
        switch (col.type()) {
            case SYMBOL:
            case CHAR:
                return text[c][(int) v];
            case F64:
                return Double.longBitsToDouble(v);
            case DECIMAL:
                return BigDecimal.valueOf(v, col.scale());
            default:
                return v;
        }
    }

    /**
     * Writes the rows into a new table of the store, committing at random points.
     *
     * @param store the store.
     */
    void writeTo(final Store store) {
        final Schema schema = schema();
        final SplittableRandom r = new SplittableRandom(seed ^ 0x5DEECE66DL);
        try (TableWriter w = store.createTable(schema).writer()) {
            final int symCol = index("sym");
            for (final String u : unusedSymbols) {
                w.dictionary(symCol).intern(u);
            }
            final int shift = schema.segmentShift();
            final int mask = schema.segmentRows() - 1;
            int nextCommit = 1 + r.nextInt(500);
            for (int row = 0; row < rows; row++) {
                // a partitioned table's writer places the row by its period (the raw write below stores it again)
                final long at = w.appendRow(raw[index("ts")][row]);
                final int seg = (int) (at >>> shift);
                final long inSeg = at & mask;
                for (int c = 0; c < COLUMNS.size(); c++) {
                    final GenColumn col = COLUMNS.get(c);
                    final long address = w.columnAddress(seg, c) + inSeg * w.columnStride(c);
                    final long v = raw[c][row];
                    switch (col.type()) {
                        case I8:
                            NativeMemory.putByte(address, (byte) v);
                            break;
                        case CHAR:
                            NativeMemory.putByte(address, v < 0 ? 0 : (byte) text[c][(int) v].charAt(0));
                            break;
                        case I16:
                            NativeMemory.putShort(address, (short) v);
                            break;
                        case I32:
                            NativeMemory.putInt(address, (int) v);
                            break;
                        case SYMBOL:
                            NativeMemory.putInt(address, v < 0 ? -1 : w.dictionary(c).intern(text[c][(int) v]));
                            break;
                        default:
                            NativeMemory.putLong(address, v);
                            break;
                    }
                }
                if (row + 1 == nextCommit) {
                    w.commit();
                    nextCommit += 1 + r.nextInt(500);
                }
            }
            w.commit();
            if (partitionBy != PartitionBy.NONE && w.committedRows() <= rows) {
                throw new IllegalStateException(name + ": no segment was ended early, so nothing is tested of that");
            }
        }
    }

    /**
     * Creates the DuckDB table (plus {@code rid}) and appends the same rows.
     *
     * @param conn a DuckDB connection.
     * @throws SQLException when DuckDB fails.
     */
    void loadInto(final Connection conn) throws SQLException {
        final StringBuilder ddl = new StringBuilder("CREATE TABLE ").append(name).append(" (rid BIGINT");
        for (final GenColumn c : COLUMNS) {
            ddl.append(", ").append(c.name()).append(' ').append(c.duckType());
        }
        ddl.append(')');
        try (Statement st = conn.createStatement()) {
            st.execute(ddl.toString());
        }
        try (DuckDBAppender a = conn.unwrap(DuckDBConnection.class)
            .createAppender(DuckDBConnection.DEFAULT_SCHEMA, name)) {
            for (int row = 0; row < rows; row++) {
                a.beginRow();
                a.append((long) row);
                for (int c = 0; c < COLUMNS.size(); c++) {
                    final Object v = value(c, row);
                    if (v == null) {
                        a.appendNull();
                        continue;
                    }
                    switch (COLUMNS.get(c).type()) {
                        case I8:
                            a.append((byte) raw[c][row]);
                            break;
                        case I16:
                            a.append((short) raw[c][row]);
                            break;
                        case I32:
                            a.append((int) raw[c][row]);
                            break;
                        case F64:
                            a.append((double) (Double) v);
                            break;
                        case DECIMAL:
                            a.append((BigDecimal) v);
                            break;
                        case SYMBOL:
                        case CHAR:
                            a.append((String) v);
                            break;
                        default:
                            a.append(raw[c][row]);
                            break;
                    }
                }
                a.endRow();
            }
        }
    }
}
