package io.tradestore.server.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.tradestore.core.Store;
import io.tradestore.core.Table;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableCheck;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.SegmentDescriptor;

/**
 * Verifies one table against its own bookkeeping: the transaction record's checksum (checked on every read of it),
 * every segment holding committed rows exists, the zone maps' checksums (checked by the reader's snapshot), and what
 * {@link TableCheck} checks (dictionaries, symbol codes, zone maps against the data). Reads only; a writer may be
 * appending meanwhile (the check covers the commit it started from).
 */
final class TableChecker {
    /** Problems reported per table at most: a damaged file usually breaks many blocks the same way. */
    private static final int MAX_PROBLEMS = 100;
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
            problems.add(name + ": cannot read the committed state (transaction file, dictionaries, segments, "
                + "zone-map checksums): " + e.getMessage());
            return this;
        }
        try (reader) {
            final Schema schema = table.schema();
            // rows and segments held: retention may have dropped the first ones (their directories are gone)
            rows = snap.liveRows();
            segments = snap.segmentCount() - snap.firstSegment();
            final long expectedSegments = (snap.rowCount() + schema.segmentRows() - 1) / schema.segmentRows();
            if (expectedSegments != snap.segmentCount()) {
                problems.add(name + ": rowCount=" + snap.rowCount() + " needs " + expectedSegments + " segments but "
                    + snap.segmentCount() + " are mapped");
            }
            for (int i = snap.firstSegment(); i < snap.segmentCount(); i++) {
                final Path dir = SegmentDescriptor.directory(table.directory(), i);
                if (!Files.isDirectory(dir)) {
                    problems.add(name + ": segment " + i + " holds committed rows but " + dir + " is missing");
                }
            }
            final TableCheck check = new TableCheck(name, MAX_PROBLEMS).all(snap);
            problems.addAll(check.problems());
            valuesChecked += check.valuesChecked();
        }
        return this;
    }
}
