package io.tradestore.core;

import java.nio.file.Path;
import java.util.SplittableRandom;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.Segment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Zone maps against the data: after any sequence of appends, commits, rollbacks and reopens, with the writer idle,
 * every block and segment entry is exactly the min/max of its committed non-null values (blocks without any: the
 * empty range), as ZoneMapDescriptor documents.
 */
class ZoneMapTest {
    @TempDir
    Path dir;

    @AfterEach
    void noLeaks() {
        TestRows.assertNoNativeLeaks();
    }

    @ParameterizedTest
    @CsvSource({"COLUMN,8,4,1", "ROW,8,2,2", "COLUMN,64,16,3", "ROW,64,64,4", "COLUMN,16,1,5"})
    void shouldKeepZoneMapsExactThroughCommitsRollbacksAndReopens(final Layout layout, final int segmentRows, final int blockRows,
                                                                  final long seed) {
        final Schema schema = TestRows.ALL_TYPES.with("all_types", layout, segmentRows, blockRows);
        final SplittableRandom random = new SplittableRandom(seed);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            TableWriter w = table.writer();
            try (TableReader reader = table.reader()) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                for (int step = 0; step < 60; step++) {
                    final int n = random.nextInt(0, segmentRows * 2);
                    for (int i = 0; i < n; i++) {
                        TestRows.write(w.append(f), w.pendingRows() - 1);
                    }
                    final int op = random.nextInt(10);
                    if (op < 6) {
                        w.commit();
                    } else if (op < 9) {
                        w.rollback();
                    } else {
                        w.close();
                        w = table.writer();
                    }
                    final TableSnapshot snap = reader.snapshot();
                    assertThat(snap.rowCount()).isEqualTo(w.committedRows());
                    assertZonesExact(snap);
                }
                TestRows.verifyRows(reader.snapshot(), 0, w.committedRows());
            } finally {
                w.close();
            }
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
            mm[b] = f64 ? new long[] {Double.doubleToRawLongBits(Double.POSITIVE_INFINITY), Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY)}
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
    static void assertZonesExact(final TableSnapshot snap) {
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
    static void assertZonesContainRows(final TableSnapshot snap, final long fromRow) {
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
                            inside = Double.longBitsToDouble(s.zoneMin(b, c)) <= d && d <= Double.longBitsToDouble(s.zoneMax(b, c));
                        } else {
                            inside = s.zoneMin(b, c) <= v && v <= s.zoneMax(b, c);
                        }
                        if (!inside) {
                            throw new AssertionError("row " + (start + r) + " column " + schema.column(c).name() + " value " + v
                                + " outside zone of segment " + seg + " block " + b + ": [" + s.zoneMin(b, c) + ", " + s.zoneMax(b, c) + "]");
                        }
                    }
                }
            }
        }
    }
}
