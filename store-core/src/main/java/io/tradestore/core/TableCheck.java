package io.tradestore.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.PartitionBy;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.Segment;
import io.tradestore.core.segment.SegmentDescriptor;

/**
 * Checks a snapshot's committed data against its own bookkeeping, reading only: every dictionary entry looks up to its
 * own code, every symbol code in the data lies inside its committed dictionary, and every zone map (per block and per
 * segment) covers the values it summarises. Column data carries no checksum, so a damaged value is found only when it
 * breaks one of these; what is found names the table, segment, block, column and file. Used by {@code tradestore check}
 * and by the query engine to explain a query that failed on damaged data.
 */
public final class TableCheck {
    private final String table;
    private final int maxProblems;
    private final List<String> problems = new ArrayList<>();
    private long valuesChecked;

    /**
     * @param table       the table's name, the first word of every problem.
     * @param maxProblems problems to collect at most (later ones are dropped; checks stop early once reached).
     */
    public TableCheck(final String table, final int maxProblems) {
        if (maxProblems < 1) {
            throw new IllegalArgumentException("maxProblems=" + maxProblems + " must be at least 1");
        }
        this.table = table;
        this.maxProblems = maxProblems;
    }

    /** @return what was found wrong so far, in the order found (at most maxProblems). */
    public List<String> problems() {
        return Collections.unmodifiableList(problems);
    }

    /** @return values compared against zone maps and dictionaries so far. */
    public long valuesChecked() {
        return valuesChecked;
    }

    /** @return whether maxProblems problems were found: further checks add nothing. */
    public boolean full() {
        return problems.size() >= maxProblems;
    }

    private void problem(final String what) {
        if (!full()) {
            problems.add(table + ": " + what);
        }
    }

    /**
     * Checks that every committed code of a symbol column's dictionary looks up to itself.
     *
     * @param snap the snapshot.
     * @param c    a symbol column of its schema.
     * @return this.
     */
    public TableCheck dictionary(final TableSnapshot snap, final Column c) {
        final int size = snap.dictionarySize(c.index());
        for (int code = 0; code < size && !full(); code++) {
            final String v = snap.symbolValue(c.index(), code);
            final int back = v == null ? -2 : snap.findSymbol(c.index(), v);
            valuesChecked++;
            if (back != code) {
                problem("dictionary of '" + c.name() + "': code " + code + " holds '" + v
                    + "' but that value looks up as " + back
                    + (back >= 0 ? " (a duplicate entry)" : " (missing from the hash table)"));
            }
        }
        return this;
    }

    /**
     * Checks one column of one segment's committed rows: symbol codes inside the committed dictionary, block and
     * segment zone maps covering the data.
     *
     * @param snap    the snapshot.
     * @param segment the segment index.
     * @param c       a column of its schema.
     * @return this.
     */
    public TableCheck segment(final TableSnapshot snap, final int segment, final Column c) {
        final Schema schema = snap.schema();
        final Segment seg = snap.segment(segment);
        final int n = snap.segmentRowCount(segment);
        final int blockRows = schema.blockRows();
        final String file = seg.directory().resolve(SegmentDescriptor.fileName(schema, c)).toString();
        final boolean f64 = c.type() == ColumnType.F64;
        long segMin = f64 ? Double.doubleToRawLongBits(Double.POSITIVE_INFINITY) : Long.MAX_VALUE;
        long segMax = f64 ? Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY) : Long.MIN_VALUE;
        for (int from = 0, block = 0; from < n && !full(); from += blockRows, block++) {
            final int to = Math.min(n, from + blockRows);
            final long[] mm = seg.minMax(c, from, to);
            valuesChecked += to - from;
            if (c.type() == ColumnType.SYMBOL && mm[0] <= mm[1]
                && (mm[0] < 0 || mm[1] >= snap.dictionarySize(c.index()))) {
                problem(where(segment, block, c, file, from, to) + ": codes [" + mm[0] + ", " + mm[1]
                    + "] fall outside the committed dictionary of "
                    + snap.dictionarySize(c.index()) + " values");
            }
            if (!covers(f64, seg.zoneMin(block, c.index()), seg.zoneMax(block, c.index()), mm[0], mm[1])) {
                problem(where(segment, block, c, file, from, to) + ": zone map ["
                    + show(f64, seg.zoneMin(block, c.index())) + ", "
                    + show(f64, seg.zoneMax(block, c.index())) + "] does not cover the data [" + show(f64, mm[0]) + ", "
                    + show(f64, mm[1]) + "]");
            }
            if (f64) {
                segMin = Double.doubleToRawLongBits(
                    Math.min(Double.longBitsToDouble(segMin), Double.longBitsToDouble(mm[0])));
                segMax = Double.doubleToRawLongBits(
                    Math.max(Double.longBitsToDouble(segMax), Double.longBitsToDouble(mm[1])));
            } else {
                segMin = Math.min(segMin, mm[0]);
                segMax = Math.max(segMax, mm[1]);
            }
        }
        final PartitionBy by = schema.partitionBy();
        if (c.index() == schema.timestampIndex() && segMin <= segMax && by.floor(segMin) != by.floor(segMax)) {
            problem("segment " + segment + " (" + file + ") holds rows of " + by.label(by.floor(segMin)) + " and "
                + by.label(by.floor(segMax)) + ", but the table is partitioned by " + by);
        }
        if (!full() && !covers(f64, seg.zoneMin(-1, c.index()), seg.zoneMax(-1, c.index()), segMin, segMax)) {
            problem("segment " + segment + " column '" + c.name() + "' (" + file + "): segment zone map ["
                + show(f64, seg.zoneMin(-1, c.index()))
                + ", " + show(f64, seg.zoneMax(-1, c.index())) + "] does not cover the data [" + show(f64, segMin)
                + ", " + show(f64, segMax)
                + "]");
        }
        return this;
    }

    /**
     * Checks that every segment file a snapshot maps is still at least as long as its mapping, asking the file system
     * for lengths only, never reading the data: a file cut short under a reader makes reads past its end fault (an
     * {@link InternalError} from the JVM), and this names it, safely, right after such a fault.
     *
     * @param snap the snapshot.
     * @return this.
     */
    public TableCheck fileLengths(final TableSnapshot snap) {
        return fileLengths(snap, snap.firstSegment(), snap.segmentCount());
    }

    /**
     * {@link #fileLengths(TableSnapshot)} over some of a snapshot's segments.
     *
     * @param snap the snapshot.
     * @param from first segment (at least the snapshot's first).
     * @param to   end segment (exclusive, at most the snapshot's count).
     * @return this.
     */
    public TableCheck fileLengths(final TableSnapshot snap, final int from, final int to) {
        for (int i = from; i < to && !full(); i++) {
            final String cut = snap.segment(i).truncatedFile();
            if (cut != null) {
                problem("segment " + i + " file " + cut
                    + " (truncated while mapped); restore the table from a copy, or reload it");
            }
        }
        return this;
    }

    private static String where(final int segment, final int block, final Column c, final String file, final int from,
        final int to) {
        return "segment " + segment + " block " + block + " column '" + c.name() + "' (" + file + ", rows " + from + "-"
            + (to - 1) + " of the segment)";
    }

    /**
     * Checks every committed dictionary and every column of every segment of a snapshot: the dictionaries and the
     * symbol columns first (a code outside its dictionary is what breaks queries), then the other columns.
     *
     * @param snap the snapshot.
     * @return this.
     */
    public TableCheck all(final TableSnapshot snap) {
        for (final Column c : snap.schema().columns()) {
            if (c.type() == ColumnType.SYMBOL) {
                dictionary(snap, c);
            }
        }
        segments(snap, true);
        segments(snap, false);
        return this;
    }

    /** Checks, segment by segment, the symbol columns or the others. */
    private void segments(final TableSnapshot snap, final boolean symbols) {
        for (int i = snap.firstSegment(); i < snap.segmentCount(); i++) {
            for (final Column c : snap.schema().columns()) {
                if ((c.type() == ColumnType.SYMBOL) == symbols) {
                    segment(snap, i, c);
                }
            }
        }
    }

    private static boolean covers(final boolean f64, final long zoneMin, final long zoneMax, final long min,
        final long max) {
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
