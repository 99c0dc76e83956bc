package io.tradestore.server.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.tradestore.core.Store;
import io.tradestore.core.Table;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.Segment;
import io.tradestore.core.segment.SegmentDescriptor;

/**
 * Verifies one table against its own bookkeeping: the transaction record's checksum (checked on every read of it),
 * every dictionary entry maps back to its code, every segment holding committed rows exists, symbol codes in the data
 * lie inside their dictionaries, and each zone map (segment and block) covers the values it summarises. Reads only; a
 * writer may be appending meanwhile (the check covers the commit it started from).
 */
final class TableChecker {
    private final List<String> problems = new ArrayList<>();
    private long rows;
    private int segments;
    private long valuesChecked;

    /** @return what is wrong, empty when nothing is. */
    List<String> problems() {
        return problems;
    }

    /** @return committed rows checked. */
    long rows() {
        return rows;
    }

    /** @return segments checked. */
    int segments() {
        return segments;
    }

    /** @return values compared against zone maps and dictionaries. */
    long valuesChecked() {
        return valuesChecked;
    }

    /**
     * Checks a table.
     *
     * @param store the store.
     * @param name  the table.
     * @return this, with {@link #problems()} filled.
     */
    TableChecker check(final Store store, final String name) {
        final Table table;
        try {
            table = store.table(name);
        } catch (final RuntimeException e) {
            problems.add(name + ": cannot open the table: " + e.getMessage());
            return this;
        }
        final TableReader reader;
        final TableSnapshot snap;
        try {
            reader = table.reader();
            snap = reader.snapshot();
        } catch (final RuntimeException e) {
            problems.add(name + ": cannot read the committed state (transaction file, dictionaries, segments): " + e.getMessage());
            return this;
        }
        try (reader) {
            final Schema schema = table.schema();
            rows = snap.rowCount();
            segments = snap.segmentCount();
            final long expectedSegments = (rows + schema.segmentRows() - 1) / schema.segmentRows();
            if (expectedSegments != segments) {
                problems.add(name + ": rowCount=" + rows + " needs " + expectedSegments + " segments but " + segments + " are mapped");
            }
            for (int i = 0; i < segments; i++) {
                final Path dir = SegmentDescriptor.directory(table.directory(), i);
                if (!Files.isDirectory(dir)) {
                    problems.add(name + ": segment " + i + " holds committed rows but " + dir + " is missing");
                }
            }
            for (final Column c : schema.columns()) {
                if (c.type() == ColumnType.SYMBOL) {
                    checkDictionary(name, snap, c);
                }
            }
            for (int i = 0; i < segments; i++) {
                checkSegment(name, schema, snap, i);
            }
        }
        return this;
    }

    private void checkDictionary(final String table, final TableSnapshot snap, final Column c) {
        final int size = snap.dictionarySize(c.index());
        for (int code = 0; code < size; code++) {
            final String v = snap.symbolValue(c.index(), code);
            final int back = v == null ? -2 : snap.findSymbol(c.index(), v);
            valuesChecked++;
            if (back != code) {
                problems.add(table + ": dictionary of '" + c.name() + "': code " + code + " holds '" + v + "' but that value looks up as "
                    + back + (back >= 0 ? " (a duplicate entry)" : " (missing from the hash table)"));
                if (problems.size() > 100) {
                    return;
                }
            }
        }
    }

    private void checkSegment(final String table, final Schema schema, final TableSnapshot snap, final int index) {
        final Segment seg = snap.segment(index);
        final int n = snap.segmentRowCount(index);
        final int blockRows = schema.blockRows();
        for (final Column c : schema.columns()) {
            final boolean f64 = c.type() == ColumnType.F64;
            long segMin = f64 ? Double.doubleToRawLongBits(Double.POSITIVE_INFINITY) : Long.MAX_VALUE;
            long segMax = f64 ? Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY) : Long.MIN_VALUE;
            for (int from = 0, block = 0; from < n; from += blockRows, block++) {
                final int to = Math.min(n, from + blockRows);
                final long[] mm = seg.minMax(c, from, to);
                valuesChecked += to - from;
                if (!covers(f64, seg.zoneMin(block, c.index()), seg.zoneMax(block, c.index()), mm[0], mm[1])) {
                    problems.add(table + ": segment " + index + " block " + block + " column '" + c.name() + "': zone map ["
                        + show(f64, seg.zoneMin(block, c.index())) + ", " + show(f64, seg.zoneMax(block, c.index()))
                        + "] does not cover the data [" + show(f64, mm[0]) + ", " + show(f64, mm[1]) + "]");
                }
                if (f64) {
                    segMin = Double.doubleToRawLongBits(Math.min(Double.longBitsToDouble(segMin), Double.longBitsToDouble(mm[0])));
                    segMax = Double.doubleToRawLongBits(Math.max(Double.longBitsToDouble(segMax), Double.longBitsToDouble(mm[1])));
                } else {
                    segMin = Math.min(segMin, mm[0]);
                    segMax = Math.max(segMax, mm[1]);
                }
                if (c.type() == ColumnType.SYMBOL && mm[0] <= mm[1] && (mm[0] < 0 || mm[1] >= snap.dictionarySize(c.index()))) {
                    problems.add(table + ": segment " + index + " block " + block + " column '" + c.name() + "': codes [" + mm[0] + ", "
                        + mm[1] + "] fall outside the committed dictionary of " + snap.dictionarySize(c.index()) + " values");
                }
            }
            if (!covers(f64, seg.zoneMin(-1, c.index()), seg.zoneMax(-1, c.index()), segMin, segMax)) {
                problems.add(table + ": segment " + index + " column '" + c.name() + "': segment zone map ["
                    + show(f64, seg.zoneMin(-1, c.index())) + ", " + show(f64, seg.zoneMax(-1, c.index())) + "] does not cover the data ["
                    + show(f64, segMin) + ", " + show(f64, segMax) + "]");
            }
        }
    }

    private static boolean covers(final boolean f64, final long zoneMin, final long zoneMax, final long min, final long max) {
        if (f64) {
            final double lo = Double.longBitsToDouble(min);
            final double hi = Double.longBitsToDouble(max);
            return lo > hi || Double.longBitsToDouble(zoneMin) <= lo && Double.longBitsToDouble(zoneMax) >= hi;
        }
        return min > max || zoneMin <= min && zoneMax >= max;
    }

    private static String show(final boolean f64, final long v) {
        return f64 ? Double.toString(Double.longBitsToDouble(v)) : Long.toString(v);
    }
}
