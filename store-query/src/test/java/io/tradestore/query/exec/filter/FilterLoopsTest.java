package io.tradestore.query.exec.filter;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongPredicate;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The filter loops chosen per segment give the rows a plain comparison gives: the sign-bit range test (8-byte values
 * within +-2^62 by the zone map, and its fallback beyond), the one-word test of values within 63 of each other (and
 * its fallback for wider segments), nulls, negation, bounds at the extremes, ANDs whose argument order each worker
 * learns and ORs united in bit masks, {@code in} lists too wide for a bitset, nested. Segments alternate between
 * narrow values and extreme ones, so both loops of each filter run in one query.
 */
class FilterLoopsTest {
    private static final int SEGMENT_ROWS = 256;
    private static final int SEGMENTS = 12;
    private static final int ROWS = SEGMENTS * SEGMENT_ROWS - 37;
    private static final long[] EXTREMES = {Long.MIN_VALUE + 1, -(1L << 62) - 1, -(1L << 62), -(1L << 62) + 1, -1, 0,
        1, (1L << 62) - 1, 1L << 62, (1L << 62) + 1, Long.MAX_VALUE - 1, Long.MAX_VALUE};
    private static final String[] SYMBOLS = new String[100];

    static {
        for (int i = 0; i < SYMBOLS.length; i++) {
            SYMBOLS[i] = "S" + i;
        }
    }

    @TempDir
    Path dir;

    /** Per column of the table: values per row as stored (symbols as codes, chars as their byte), or null. */
    private final long[][] values = new long[5][ROWS];
    private final boolean[][] nulls = new boolean[5][ROWS];
    private static final String[] COLUMNS = {"x", "i", "b", "sym", "c"};

    @Test
    void shouldSelectTheRowsAPlainComparisonSelects() {
        final SplittableRandom r = new SplittableRandom(20_261_128L);
        generate(r);
        try (Store store = Store.open(dir)) {
            write(store);
            try (QueryEngine scanning = new QueryEngine(store, 2); QueryEngine indexed = new QueryEngine(store, 2)) {
                scanning.useIndexes(false);
                indexed.indexes().minSegmentRows(1);
                for (int q = 0; q < 600; q++) {
                    final List<String> json = new ArrayList<>();
                    final List<LongPredicateAt> preds = new ArrayList<>();
                    tree(r, 2, json, preds);
                    final String filter = json.get(0);
                    final LongPredicateAt pred = preds.get(0);
                    long expected = 0;
                    for (int row = 0; row < ROWS; row++) {
                        expected += pred.test(row) ? 1 : 0;
                    }
                    final String query = "{\"table\":\"t\",\"filter\":" + filter
                        + ",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
                        + "{\"name\":\"s\",\"op\":\"sum\",\"col\":\"i\"}]}";
                    assertThat(scanning.execute(query).value(0, 0)).as(query).isEqualTo(expected);
                    assertThat(indexed.execute(query).value(0, 0)).as(query).isEqualTo(expected);
                }
            }
        }
    }

    /**
     * Narrow ranges on the 8-byte column, which (nearly) no row of a batch's first 64 passes: the loop that tests four
     * rows at a time must still return each row that passes, wherever it stands among the four.
     */
    @Test
    void shouldFindTheRareRowsOfANarrowRange() {
        // batches longer than the 64-row sample (blocks of 1,024 rows), values within +-1000
        final SplittableRandom r = new SplittableRandom(20_261_129L);
        final int rows = 9_000;
        final long[] x = new long[rows];
        final long[] i = new long[rows];
        final Schema schema = Schema.builder("u").layout(Layout.COLUMN).segmentRows(4096).blockRows(1024)
            .column("x", "i64").column("i", "i32").build();
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.createTable(schema).writer()) {
                for (int row = 0; row < rows; row++) {
                    x[row] = r.nextLong(-1000, 1000);
                    i[row] = r.nextInt(1, 1000);
                    final long at = w.appendRow();
                    final int seg = (int) (at >>> schema.segmentShift());
                    final long off = at & (schema.segmentRows() - 1);
                    NativeMemory.putLong(w.columnAddress(seg, 0) + off * w.columnStride(0), x[row]);
                    NativeMemory.putInt(w.columnAddress(seg, 1) + off * w.columnStride(1), (int) i[row]);
                }
                w.commit();
            }
            try (QueryEngine scanning = new QueryEngine(store, 2)) {
                scanning.useIndexes(false);
                for (int q = 0; q < 400; q++) {
                    final long v = x[r.nextInt(rows)];
                    final long lo = v - r.nextInt(3);
                    final long hi = v + r.nextInt(3);
                    long expected = 0;
                    long sum = 0;
                    for (int row = 0; row < rows; row++) {
                        if (x[row] >= lo && x[row] <= hi) {
                            expected++;
                            sum += i[row];
                        }
                    }
                    final String query = "{\"table\":\"u\",\"filter\":{\"op\":\"range\",\"col\":\"x\","
                        + "\"gte\":" + lo + ",\"lte\":" + hi + "},\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
                        + "{\"name\":\"s\",\"op\":\"sum\",\"col\":\"i\"}]}";
                    final QueryResult res = scanning.execute(query);
                    assertThat(res.value(0, 0)).as(query).isEqualTo(expected);
                    assertThat(((Number) res.value(0, 1)).longValue()).as(query).isEqualTo(sum);
                }
            }
        }
    }

    /** A predicate on one row of the generated values. */
    @FunctionalInterface
    private interface LongPredicateAt {
        boolean test(int row);
    }

    /** A leaf, or an AND or OR of two or three subtrees, nested up to {@code depth} levels. */
    private void tree(final SplittableRandom r, final int depth, final List<String> json,
        final List<LongPredicateAt> preds) {
        if (depth == 0 || r.nextInt(3) == 0) {
            leaf(r, json, preds);
            return;
        }
        final boolean and = r.nextBoolean();
        final List<String> args = new ArrayList<>();
        final List<LongPredicateAt> tests = new ArrayList<>();
        for (int i = 0, n = 2 + r.nextInt(2); i < n; i++) {
            tree(r, depth - 1, args, tests);
        }
        json.add("{\"op\":\"" + (and ? "and" : "or") + "\",\"args\":[" + String.join(",", args) + "]}");
        preds.add(row -> {
            for (final LongPredicateAt t : tests) {
                if (t.test(row) != and) {
                    return !and;
                }
            }
            return and;
        });
    }

    private void leaf(final SplittableRandom r, final List<String> json, final List<LongPredicateAt> preds) {
        final int col = r.nextInt(COLUMNS.length);
        final boolean negate = r.nextBoolean();
        final String name = COLUMNS[col];
        String leaf;
        final LongPredicate p;
        if (col == 3 || col == 2 && r.nextBoolean()) {
            // eq / in on a symbol or the i8 column
            final int count = 1 + r.nextInt(4);
            final long[] set = new long[count];
            final StringBuilder vs = new StringBuilder();
            for (int i = 0; i < count; i++) {
                set[i] = col == 3 ? r.nextInt(SYMBOLS.length) : r.nextInt(0, 60);
                vs.append(i == 0 ? "" : ",").append(col == 3 ? "\"" + SYMBOLS[(int) set[i]] + "\"" : set[i]);
            }
            leaf = count == 1 ? "{\"op\":\"eq\",\"col\":\"" + name + "\",\"value\":" + vs + "}"
                : "{\"op\":\"in\",\"col\":\"" + name + "\",\"values\":[" + vs + "]}";
            p = v -> LongStream.of(set).anyMatch(x -> x == v);
        } else if (col == 0 && r.nextInt(3) == 0) {
            // in on the 8-byte column: values spread too far apart for a bitset, compared one by one (up to eight)
            // or searched (more), drawn from the rows so that some pass
            final int count = 1 + r.nextInt(12);
            final long[] set = new long[count];
            final StringBuilder vs = new StringBuilder();
            for (int i = 0; i < count; i++) {
                set[i] = r.nextInt(4) == 0 ? EXTREMES[r.nextInt(EXTREMES.length)] : values[0][r.nextInt(ROWS)];
                vs.append(i == 0 ? "" : ",").append(set[i]);
            }
            leaf = "{\"op\":\"in\",\"col\":\"x\",\"values\":[" + vs + "]}";
            p = v -> LongStream.of(set).anyMatch(x -> x == v);
        } else if (col == 4) {
            final char ch = (char) ('A' + r.nextInt(26));
            leaf = "{\"op\":\"eq\",\"col\":\"c\",\"value\":\"" + ch + "\"}";
            p = v -> v == ch;
        } else {
            final long a = bound(r, col);
            final long b = r.nextInt(4) == 0 ? a : bound(r, col);
            final long lo = Math.min(a, b);
            final long hi = Math.max(a, b);
            leaf = "{\"op\":\"range\",\"col\":\"" + name + "\",\"gte\":" + lo + ",\"lte\":" + hi + "}";
            p = v -> v >= lo && v <= hi;
        }
        if (negate) {
            leaf = "{\"op\":\"not\",\"arg\":" + leaf + "}";
        }
        json.add(leaf);
        // SQL's reading: null passes neither a comparison nor its negation
        preds.add(row -> !nulls[col][row] && p.test(values[col][row]) != negate);
    }

    private static long bound(final SplittableRandom r, final int col) {
        if (col == 0) {
            final long e = EXTREMES[r.nextInt(EXTREMES.length)];
            return r.nextBoolean() ? e : r.nextLong(-1000, 1000);
        }
        if (col == 1) {
            return r.nextInt(5) == 0 ? (r.nextBoolean() ? Integer.MIN_VALUE + 1 : Integer.MAX_VALUE)
                : r.nextInt(-1000, 1000);
        }
        return r.nextInt(-127, 128);
    }

    private void generate(final SplittableRandom r) {
        for (int row = 0; row < ROWS; row++) {
            // odd segments hold extreme and wide values, even ones narrow values: both loops of each filter run
            final boolean wide = (row / SEGMENT_ROWS) % 2 == 1;
            for (int c = 0; c < COLUMNS.length; c++) {
                nulls[c][row] = r.nextInt(10) == 0;
            }
            values[0][row] = wide && r.nextInt(3) == 0 ? EXTREMES[r.nextInt(EXTREMES.length)] : r.nextLong(-1000, 1000);
            values[1][row] = wide && r.nextInt(3) == 0 ? (r.nextBoolean() ? Integer.MIN_VALUE + 1 : Integer.MAX_VALUE)
                : r.nextInt(-1000, 1000);
            // narrow: within 63 of each other, with null (-128) shifted past them: the one-word test
            values[2][row] = wide ? r.nextInt(-127, 128) : r.nextInt(10, 50);
            values[3][row] = wide ? r.nextInt(SYMBOLS.length) : r.nextInt(8);
            values[4][row] = wide ? 'A' + r.nextInt(26) : 'B' + 17 * r.nextInt(2);
        }
    }

    private void write(final Store store) {
        final Schema schema = Schema.builder("t").layout(Layout.COLUMN).segmentRows(SEGMENT_ROWS).blockRows(64)
            .column("x", "i64").column("i", "i32").column("b", "i8").column("sym", "symbol").column("c", "char")
            .build();
        final ColumnType[] types = {ColumnType.I64, ColumnType.I32, ColumnType.I8, ColumnType.SYMBOL, ColumnType.CHAR};
        try (TableWriter w = store.createTable(schema).writer()) {
            for (final String s : SYMBOLS) {
                w.dictionary(3).intern(s); // code i is SYMBOLS[i]
            }
            final int shift = schema.segmentShift();
            final int mask = schema.segmentRows() - 1;
            for (int row = 0; row < ROWS; row++) {
                final long at = w.appendRow();
                for (int c = 0; c < COLUMNS.length; c++) {
                    final long address = w.columnAddress((int) (at >>> shift), c) + (at & mask) * w.columnStride(c);
                    final long v = nulls[c][row] ? types[c].nullBits() : values[c][row];
                    switch (types[c].width()) {
                        case 8:
                            NativeMemory.putLong(address, v);
                            break;
                        case 4:
                            NativeMemory.putInt(address, (int) v);
                            break;
                        default:
                            NativeMemory.putByte(address, (byte) v);
                            break;
                    }
                }
                if (row % 300 == 299) {
                    w.commit();
                }
            }
            w.commit();
        }
    }
}
