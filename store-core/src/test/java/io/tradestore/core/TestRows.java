package io.tradestore.core;

import java.nio.file.Path;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.schema.SchemaCodec;
import io.tradestore.core.segment.Segment;

import static org.assertj.core.api.Assertions.assertThat;

/** Deterministic row content for the all-types schema: every value is a function of the row number. */
public final class TestRows {
    /** The all-types schema (8-row segments, 4-row blocks). */
    public static final Schema ALL_TYPES = SchemaCodec.resource("/io/tradestore/core/all_types.schema.json");

    /**
     * A value of column {@code l} far above every value {@link #write} gives it (and its negation far below), for tests
     * that store it and look for it in the zone maps.
     */
    public static final long BIG = 9_000_000_000_000_000_000L;

    private TestRows() {
    }

    /** @param layout layout. @param segmentRows rows per segment. @return the all-types schema with them. */
    public static Schema allTypes(final Layout layout, final int segmentRows) {
        return ALL_TYPES.with("all_types", layout, segmentRows, Math.min(segmentRows, 4));
    }

    /** @param row row number. @return whether this row holds nulls in every nullable column. */
    public static boolean nullRow(final long row) {
        return row % 5 == 3;
    }

    /** @param f flyweight at a fresh row. @param row its number. */
    public static void write(final AllTypesFlyweight f, final long row) {
        if (nullRow(row)) {
            f.ts(1_000_000_000L * row);
            return;
        }
        f.b((byte) (row * 7)).s((short) (row * 31)).i((int) (row * 1_000_003L)).l(row * 1_000_000_007L - 5)
            .d(row * 0.25).px(row * 10_001 - 3).ts(1_000_000_000L * row).sym("S" + (row % 13))
            .c((char) ('A' + row % 26))
            .sym2(row % 2 == 0 ? "even" : "odd");
    }

    /** @param f flyweight at a row. @param row its number. */
    public static void verify(final AllTypesFlyweight f, final long row) {
        assertThat(f.ts()).as("ts row=%d", row).isEqualTo(1_000_000_000L * row);
        if (nullRow(row)) {
            assertThat(f.b()).isEqualTo(Byte.MIN_VALUE);
            assertThat(f.s()).isEqualTo(Short.MIN_VALUE);
            assertThat(f.i()).isEqualTo(Integer.MIN_VALUE);
            assertThat(f.l()).isEqualTo(Long.MIN_VALUE);
            assertThat(f.d()).isNaN();
            assertThat(f.px()).isEqualTo(Long.MIN_VALUE);
            assertThat(f.sym()).isEqualTo(-1);
            assertThat(f.symValue()).isNull();
            assertThat(f.c()).isEqualTo((char) 0);
            return;
        }
        assertThat(f.b()).as("b row=%d", row).isEqualTo((byte) (row * 7));
        assertThat(f.s()).as("s row=%d", row).isEqualTo((short) (row * 31));
        assertThat(f.i()).as("i row=%d", row).isEqualTo((int) (row * 1_000_003L));
        assertThat(f.l()).as("l row=%d", row).isEqualTo(row * 1_000_000_007L - 5);
        assertThat(f.d()).as("d row=%d", row).isEqualTo(row * 0.25);
        assertThat(f.px()).as("px row=%d", row).isEqualTo(row * 10_001 - 3);
        assertThat(f.symValue()).as("sym row=%d", row).isEqualTo("S" + (row % 13));
        assertThat(f.c()).as("c row=%d", row).isEqualTo((char) ('A' + row % 26));
        assertThat(f.sym2Value()).as("sym2 row=%d", row).isEqualTo(row % 2 == 0 ? "even" : "odd");
    }

    /**
     * Checks a row without building assertion messages (fast enough for millions of rows); call {@link #verify} on a
     * mismatch to get the message.
     *
     * @param f   flyweight at a row.
     * @param row its number.
     * @return whether every field holds the value {@link #write} gives it.
     */
    public static boolean matches(final AllTypesFlyweight f, final long row) {
        if (f.ts() != 1_000_000_000L * row) {
            return false;
        }
        if (nullRow(row)) {
            return f.b() == Byte.MIN_VALUE && f.s() == Short.MIN_VALUE && f.i() == Integer.MIN_VALUE && f
                .l() == Long.MIN_VALUE
                && Double.isNaN(f.d()) && f.px() == Long.MIN_VALUE && f.sym() == -1 && f.c() == 0 && f.sym2() == -1;
        }
        return f.b() == (byte) (row * 7) && f.s() == (short) (row * 31) && f.i() == (int) (row * 1_000_003L)
            && f.l() == row * 1_000_000_007L - 5 && f.d() == row * 0.25 && f.px() == row * 10_001 - 3
            && f.c() == (char) ('A' + row % 26) && symbolMatches(f.symValue(), row)
            && (row % 2 == 0 ? "even" : "odd").equals(f.sym2Value());
    }

    private static boolean symbolMatches(final String sym, final long row) {
        final int n = (int) (row % 13);
        return sym != null && sym.length() == (n < 10 ? 2 : 3) && sym.charAt(0) == 'S'
            && Integer.parseInt(sym, 1, sym.length(), 10) == n;
    }

    /**
     * Verifies rows {@code [from, to)} of a snapshot.
     *
     * @param snap the snapshot.
     * @param from first row.
     * @param to   end row.
     */
    public static void verifyRows(final TableSnapshot snap, final long from, final long to) {
        if (from >= to) {
            return;
        }
        final AllTypesFlyweight f = new AllTypesFlyweight().bind(snap);
        f.wrap(from);
        for (long r = from; r < to; r++) {
            if (r > from) {
                assertThat(f.next()).as("next() at row %d of %d", r, to).isTrue();
            }
            if (!matches(f, r)) {
                verify(f, r);
            }
        }
    }

    /**
     * After every test of a class ({@code @ExtendWith(TestRows.NoLeaks.class)}): asserts that nothing tradestore
     * allocated or mapped is still live ({@link #assertNoNativeLeaks()}).
     */
    public static final class NoLeaks implements AfterEachCallback {
        @Override
        public void afterEach(final ExtensionContext context) {
            assertNoNativeLeaks();
        }
    }

    /** Asserts that nothing tradestore allocated or mapped is still live. */
    public static void assertNoNativeLeaks() {
        assertThat(NativeMemory.allocatedBytes()).as("native bytes allocated").isZero();
        assertThat(MappedFile.mappingCount()).as("live mappings").isZero();
        assertThat(MappedFile.mappedBytes()).as("bytes mapped").isZero();
    }

    /**
     * A system property set for the length of a try block: {@code try (TemporaryProperty p = new TemporaryProperty(k,
     * v)) {}}.
     */
    public static final class TemporaryProperty implements AutoCloseable {
        private final String key;
        private final String saved;

        /** @param key the property. @param value its value until {@link #close()}, which restores the one before. */
        public TemporaryProperty(final String key, final String value) {
            this.key = key;
            this.saved = System.setProperty(key, value);
        }

        @Override
        public void close() {
            if (saved == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, saved);
            }
        }
    }

    /**
     * Appends one row whose columns are all 8 bytes wide (i64, timestamp, decimal) and stores its values, in column
     * order, straight into the mapped columns.
     *
     * @param w      the writer.
     * @param values one per column.
     */
    public static void appendLongs(final TableWriter w, final long... values) {
        final long at = w.appendRow();
        final int seg = (int) (at >>> w.schema().segmentShift());
        final long in = at & (w.schema().segmentRows() - 1);
        for (int c = 0; c < values.length; c++) {
            io.tradestore.core.memory.NativeMemory.putLong(w.columnAddress(seg, c) + in * w.columnStride(c),
                values[c]);
        }
    }

    /**
     * Appends one row and stores its values, in column order, straight into the mapped columns, each at its column's
     * width (a narrow column takes the value's low bytes).
     *
     * @param w      the writer.
     * @param values one per column.
     */
    public static void appendAtWidths(final TableWriter w, final long... values) {
        final long at = w.appendRow();
        final int seg = (int) (at >>> w.schema().segmentShift());
        final long in = at & (w.schema().segmentRows() - 1);
        for (int c = 0; c < values.length; c++) {
            final long a = w.columnAddress(seg, c) + in * w.columnStride(c);
            switch (w.schema().column(c).width()) {
                case 1 -> io.tradestore.core.memory.NativeMemory.putByte(a, (byte) values[c]);
                case 2 -> io.tradestore.core.memory.NativeMemory.putShort(a, (short) values[c]);
                case 4 -> io.tradestore.core.memory.NativeMemory.putInt(a, (int) values[c]);
                default -> io.tradestore.core.memory.NativeMemory.putLong(a, values[c]);
            }
        }
    }

    /** @param dir store directory. @param schema schema. @param rows rows to write and commit. */
    public static void fill(final Path dir, final Schema schema, final long rows) {
        try (Store store = Store.open(dir); TableWriter w = store.openOrCreate(schema).writer()) {
            append(w, new AllTypesFlyweight(), w.pendingRows(), rows);
            w.commit();
        }
    }

    /**
     * Opens a writer with its staging area set by the writer's system properties (read when a writer opens; restored
     * afterwards), as a test of the staged append wants it.
     *
     * @param table      the table.
     * @param durability its durability.
     * @param stageRows  rows per staging window (a power of two; small, so that tests cross many windows).
     * @param staging    whether row appends go through the staging area at all.
     * @param thread     whether full windows are copied by the writer's stage flusher thread.
     * @return the writer.
     */
    public static TableWriter stagedWriter(final Table table, final Durability durability, final int stageRows,
        final boolean staging,
                                           final boolean thread) {
        final String[] keys =
            {TableWriter.STAGE_ROWS_PROPERTY, TableWriter.STAGING_PROPERTY, TableWriter.STAGE_THREAD_PROPERTY};
        final String[] values = {Integer.toString(stageRows), Boolean.toString(staging), Boolean.toString(thread)};
        final String[] saved = new String[keys.length];
        for (int i = 0; i < keys.length; i++) {
            saved[i] = System.setProperty(keys[i], values[i]);
        }
        try {
            return table.writer(durability);
        } finally {
            for (int i = 0; i < keys.length; i++) {
                if (saved[i] == null) {
                    System.clearProperty(keys[i]);
                } else {
                    System.setProperty(keys[i], saved[i]);
                }
            }
        }
    }

    /**
     * Opens a writer that appends in one of the ways a writer can (staging windows of 8 rows where it stages).
     *
     * @param table    the table (empty when {@code how} is {@code columnAddress} or {@code reserve}).
     * @param how      {@code staged} or {@code staged-thread}: through the staging area (windows copied on this thread
     *                 or by the stage flusher); {@code staging-off}: through the mappings (the staging property off, as
     *                 without posix write(2)); {@code columnAddress} or {@code reserve}: a staging writer that switched
     *                 to the mappings for good when asked for mapped addresses, after row 0 was written through
     *                 {@code appender}.
     * @param appender the flyweight the test appends with (left on row 0 then, as an appender would be).
     * @return the writer.
     */
    public static TableWriter appendingWriter(final Table table, final String how, final AllTypesFlyweight appender) {
        switch (how) {
            case "staged":
            case "staged-thread":
                return stagedWriter(table, Durability.NONE, 8, true, "staged-thread".equals(how));
            case "staging-off":
                return stagedWriter(table, Durability.NONE, 8, false, false);
            case "columnAddress":
            case "reserve":
                final TableWriter w = stagedWriter(table, Durability.NONE, 8, true, false);
                if ("columnAddress".equals(how)) {
                    append(w, appender, 0, 1);
                    w.columnAddress(0, 0);
                } else {
                    assertThat(w.reserve(1)).isEqualTo(1);
                    // reserved rows hold unspecified bytes: row 0 is not a null row, so this writes every column
                    write(appender.bind(w).wrap(0), 0);
                }
                return w;
            default:
                throw new IllegalArgumentException("how=" + how);
        }
    }

    /**
     * Appends rows {@code [from, to)} through a flyweight, each with the values {@link #write} gives its number.
     *
     * @param w    the writer, at {@code from} pending rows.
     * @param f    the appending flyweight.
     * @param from first row.
     * @param to   end row.
     */
    public static void append(final TableWriter w, final AllTypesFlyweight f, final long from, final long to) {
        for (long r = from; r < to; r++) {
            write(w.append(f), r);
        }
    }

    /**
     * Interns a table's symbols in another writer in code order, so that codes copied from the one mean the same
     * strings in the other.
     *
     * @param src the source snapshot.
     * @param w   the writer of a table with the same columns and empty dictionaries.
     */
    public static void copyDictionaries(final TableSnapshot src, final TableWriter w) {
        for (final Column c : src.schema().columns()) {
            if (c.type() == ColumnType.SYMBOL) {
                for (int code = 0; code < src.dictionarySize(c.index()); code++) {
                    assertThat(w.dictionary(c.index()).intern(src.symbolValue(c.index(), code))).isEqualTo(code);
                }
            }
        }
    }

    /**
     * Appends source rows {@code [from, to)} through {@link TableWriter#reserve} and {@link TableWriter#writeColumn}
     * (column writes on), at most {@code run} rows per reserve, each run piece by piece where it crosses a segment end.
     *
     * @param src  the source snapshot (COLUMN layout, dictionaries copied by {@link #copyDictionaries}).
     * @param w    the writer.
     * @param from first source row.
     * @param to   end source row.
     * @param run  rows per reserve at the most.
     */
    public static void copyColumns(final TableSnapshot src, final TableWriter w, final long from, final long to,
        final int run) {
        final int shift = src.schema().segmentShift();
        final long mask = src.schema().segmentRows() - 1L;
        long r = from;
        while (r < to) {
            final long row = w.pendingRows();
            final int n = w.reserve((int) Math.min(run, to - r));
            // a run of the source may cross its segment boundary: copy piece by piece
            int done = 0;
            while (done < n) {
                final long s = r + done;
                final int piece = (int) Math.min(n - done, (mask + 1) - (s & mask));
                for (final Column c : src.schema().columns()) {
                    final long address = src.columnAddress((int) (s >>> shift), c.index()) + (s & mask) * c.width();
                    w.writeColumn((int) ((row + done) >>> shift), c.index(), (int) ((row + done) & mask), address,
                        piece);
                }
                done += piece;
            }
            r += n;
        }
    }

    /** Value of column {@code c} of the all-types row under {@code f} as a zone map stores it; null: {@code null}. */
    private static Long value(final AllTypesFlyweight f, final int c) {
        switch (c) {
            case 0:
                return orNull(f.b(), Byte.MIN_VALUE);
            case 1:
                return orNull(f.s(), Short.MIN_VALUE);
            case 2:
                return orNull(f.i(), Integer.MIN_VALUE);
            case 3:
                return orNull(f.l(), Long.MIN_VALUE);
            case 4:
                return Double.isNaN(f.d()) ? null : Double.doubleToRawLongBits(f.d());
            case 5:
                return orNull(f.px(), Long.MIN_VALUE);
            case 6:
                return orNull(f.ts(), Long.MIN_VALUE);
            case 7:
                return orNull(f.sym(), -1);
            case 8:
                return orNull(f.c(), 0);
            case 9:
                return orNull(f.sym2(), -1);
            default:
                throw new IllegalArgumentException("column " + c);
        }
    }

    private static Long orNull(final long v, final long nullValue) {
        return v == nullValue ? null : v;
    }

    /** Exact min/max per block (index 1..) and segment (index 0) of one column of one segment's committed rows. */
    private static long[][] expected(final TableSnapshot snap, final int seg, final int column) {
        final Schema schema = snap.schema();
        final boolean f64 = schema.column(column).type() == ColumnType.F64;
        final int blocks = schema.blocksPerSegment();
        final long[][] mm = new long[blocks + 1][];
        for (int b = 0; b <= blocks; b++) {
            mm[b] = f64 ? new long[] {Double.doubleToRawLongBits(Double.POSITIVE_INFINITY),
                Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY)}
                : new long[] {Long.MAX_VALUE, Long.MIN_VALUE};
        }
        final AllTypesFlyweight f = new AllTypesFlyweight().bind(snap);
        final long start = (long) seg * schema.segmentRows();
        for (int r = 0; r < snap.segmentRowCount(seg); r++) {
            final Long v = value(f.wrap(start + r), column);
            if (v == null) {
                continue;
            }
            for (final long[] e : new long[][] {mm[0], mm[1 + r / schema.blockRows()]}) {
                if (f64) {
                    final double d = Double.longBitsToDouble(v);
                    e[0] = Double.doubleToRawLongBits(Math.min(Double.longBitsToDouble(e[0]), d));
                    e[1] = Double.doubleToRawLongBits(Math.max(Double.longBitsToDouble(e[1]), d));
                } else {
                    e[0] = Math.min(e[0], v);
                    e[1] = Math.max(e[1], v);
                }
            }
        }
        return mm;
    }

    /**
     * Asserts that every block and segment entry equals the min/max of the committed rows it covers.
     *
     * @param snap a snapshot taken while the writer is idle (or closed).
     */
    public static void assertZonesExact(final TableSnapshot snap) {
        final Schema schema = snap.schema();
        for (int seg = 0; seg < snap.segmentCount(); seg++) {
            final Segment s = snap.segment(seg);
            for (int c = 0; c < schema.columnCount(); c++) {
                final long[][] mm = expected(snap, seg, c);
                for (int b = -1; b < schema.blocksPerSegment(); b++) {
                    assertThat(new long[] {s.zoneMin(b, c), s.zoneMax(b, c)})
                        .as("segment %d block %d column %s (rows %d)", seg, b, schema.column(c).name(), snap.rowCount())
                        .containsExactly(mm[b + 1]);
                }
            }
        }
    }

    /**
     * Asserts that every committed non-null value lies within its block's and its segment's zone (conservative maps).
     *
     * @param snap    a snapshot, possibly taken while a writer appends.
     * @param fromRow first row to check (earlier rows were checked before and never change).
     */
    public static void assertZonesContainRows(final TableSnapshot snap, final long fromRow) {
        final Schema schema = snap.schema();
        final AllTypesFlyweight f = new AllTypesFlyweight().bind(snap);
        for (int seg = (int) (fromRow / schema.segmentRows()); seg < snap.segmentCount(); seg++) {
            final Segment s = snap.segment(seg);
            final long start = (long) seg * schema.segmentRows();
            for (int r = (int) Math.max(0, fromRow - start); r < snap.segmentRowCount(seg); r++) {
                f.wrap(start + r);
                for (int c = 0; c < schema.columnCount(); c++) {
                    final Long v = value(f, c);
                    if (v == null) {
                        continue;
                    }
                    for (final int b : new int[] {-1, r / schema.blockRows()}) {
                        final boolean inside;
                        if (schema.column(c).type() == ColumnType.F64) {
                            final double d = Double.longBitsToDouble(v);
                            inside = Double.longBitsToDouble(s.zoneMin(b, c)) <= d
                                && d <= Double.longBitsToDouble(s.zoneMax(b, c));
                        } else {
                            inside = s.zoneMin(b, c) <= v && v <= s.zoneMax(b, c);
                        }
                        if (!inside) {
                            throw new AssertionError("row " + (start + r) + " column " + schema.column(c).name()
                                + " value " + v
                                + " outside zone of segment " + seg + " block " + b + ": [" + s.zoneMin(b, c) + ", " + s
                                .zoneMax(b, c) + "]");
                        }
                    }
                }
            }
        }
    }
}
