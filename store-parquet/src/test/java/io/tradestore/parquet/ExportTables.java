package io.tradestore.parquet;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import io.tradestore.core.Store;
import io.tradestore.core.Table;
import io.tradestore.core.TableWriter;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

/**
 * A generated table of every column type for the export tests: nulls in every column, decimals at the edges of what
 * Parquet's DECIMAL(18, s) holds, timestamps across midnights and out of order, small segments. Rows are kept as Java
 * values (null for a null) in {@link #rows}, in row order.
 */
final class ExportTables {
    /** A day of nanoseconds. */
    static final long DAY = ExportOptions.DAY_NANOS;
    /** 2026-11-16T00:00:00Z. */
    static final long START = 20_773 * DAY;
    static final String[] SYMBOLS = {"XLON", "XNYS", "ünïcödé", "a,b", "SYM\"q", "x y"};

    static Schema schema(final String name, final Layout layout, final int segmentRows) {
        return Schema.builder(name).layout(layout).segmentRows(segmentRows).blockRows(Math.min(segmentRows, 64))
            .column("id", "i64").column("b", "i8").column("s", "i16").column("i", "i32").column("d", "f64")
            .column("px", "decimal(6)").column("whole", "decimal(0)").column("ts", "timestamp")
            .column("t2", "timestamp").column("sym", "symbol").column("c", "char").timestamp("ts").build();
    }

    final Table table;
    final List<Object[]> rows = new ArrayList<>();
    private final SplittableRandom random;

    ExportTables(final Store store, final Schema schema, final long seed) {
        this.table = store.createTable(schema);
        this.random = new SplittableRandom(seed);
    }

    /**
     * Appends and commits rows (in several commits) whose timestamps wander over {@code days} days from {@code
     * firstDay} days after {@link #START}, with some out of order.
     */
    void append(final int count, final int firstDay, final int days) {
        try (TableWriter w = table.writer()) {
            final Schema schema = table.schema();
            final int shift = schema.segmentShift();
            final int mask = schema.segmentRows() - 1;
            for (int k = 0; k < count; k++) {
                final Object[] v = values(rows.size(), firstDay, days, k, count);
                final long at = w.appendRow();
                final int seg = (int) (at >>> shift);
                final long in = at & mask;
                for (int c = 0; c < v.length; c++) {
                    store(w, seg, c, w.columnAddress(seg, c) + in * w.columnStride(c), v[c]);
                }
                rows.add(v);
                if (random.nextInt(97) == 0) {
                    w.commit();
                }
            }
            w.commit();
        }
    }

    private Object[] values(final long id, final int firstDay, final int days, final int k, final int count) {
        final boolean nulls = random.nextInt(9) == 0;
        final Object[] v = new Object[11];
        v[0] = nulls && random.nextBoolean() ? null : id;
        v[1] = nulls ? null : (byte) random.nextInt(-127, 128);
        v[2] = nulls ? null : (short) random.nextInt(-32767, 32768);
        v[3] = nulls ? null : random.nextInt(Integer.MIN_VALUE + 1, Integer.MAX_VALUE);
        v[4] = nulls ? null : random.nextInt(5) == 0 ? (double) random.nextInt(-1000, 1000) : random.nextDouble()
            * 1e6 - 5e5;
        final long edge = 999_999_999_999_999_999L;
        final int pick = random.nextInt(20);
        final long px = pick == 0 ? edge : pick == 1 ? -edge : random.nextLong(-10_000_000_000L, 10_000_000_000L);
        v[5] = nulls ? null : BigDecimal.valueOf(px, 6);
        v[6] = nulls ? null : BigDecimal.valueOf(pick == 2 ? -edge : random.nextLong(-1_000_000, 1_000_000));
        // a slow walk over the days with jitter backwards, so that midnights are crossed out of order
        final long base = START + firstDay * DAY + (long) ((double) k / count * days * DAY);
        long ts = base + random.nextLong(-3_600_000_000_000L, 3_600_000_000_000L) + random.nextInt(1000);
        if (ts < START + firstDay * DAY) {
            ts = START + firstDay * DAY + random.nextInt(1000);
        }
        v[7] = random.nextInt(211) == 0 ? null : ts;
        v[8] = nulls ? null : ts - random.nextLong(0, 1_000_000_000_000L);
        v[9] = nulls ? null : SYMBOLS[random.nextInt(SYMBOLS.length)];
        v[10] = nulls ? null : String.valueOf((char) ('A' + random.nextInt(26)));
        return v;
    }

    private static void store(final TableWriter w, final int seg, final int c, final long address, final Object v) {
        switch (c) {
            case 1:
                NativeMemory.putByte(address, v == null ? Byte.MIN_VALUE : (Byte) v);
                break;
            case 2:
                NativeMemory.putShort(address, v == null ? Short.MIN_VALUE : (Short) v);
                break;
            case 3:
                NativeMemory.putInt(address, v == null ? Integer.MIN_VALUE : (Integer) v);
                break;
            case 4:
                NativeMemory.putDouble(address, v == null ? Double.NaN : (Double) v);
                break;
            case 5:
            case 6:
                NativeMemory.putLong(address, v == null ? Long.MIN_VALUE : ((BigDecimal) v).unscaledValue()
                    .longValueExact());
                break;
            case 9:
                NativeMemory.putInt(address, v == null ? -1 : w.dictionary(c).intern((String) v));
                break;
            case 10:
                NativeMemory.putByte(address, v == null ? 0 : (byte) ((String) v).charAt(0));
                break;
            default:
                NativeMemory.putLong(address, v == null ? Long.MIN_VALUE : (Long) v);
                break;
        }
    }
}
