package io.tradestore.parquet;

import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.Map;
import java.util.function.LongPredicate;
import java.util.stream.Stream;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import io.tradestore.core.StoreException;
import io.tradestore.core.Table;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.schema.SchemaCodec;

/**
 * Writes a table's committed rows as Parquet, partitioned by day the Hive way: {@code OUT/TABLE/date=YYYY-MM-DD/
 * SEGMENT.parquet}, one file per day per segment, so that a segment spanning midnight makes two files and a file never
 * changes once its segment is sealed. Each file is written under a hidden temporary name, synced and renamed; the
 * manifest ({@link ExportManifest}) is replaced after each segment, so a killed export leaves only whole files and the
 * next run writes what is missing. Columns go from the mapped segments to parquet-java's column writers in batches of
 * rows ({@link SegmentColumns}), with no object per row.
 */
public final class ParquetExport {
    /** The partition of rows whose designated timestamp is null (Hive's name for a null partition value). */
    static final String NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__";
    /** The day of a null timestamp, below every real day. */
    private static final long NULL_DAY = Long.MIN_VALUE;
    private static final String LOCK_NAME = "_tradestore_export.lock";

    private ParquetExport() {
    }

    /**
     * Exports a table into {@code options.out()/TABLE/}, writing only what its manifest lacks.
     *
     * @param table   the table.
     * @param options what to export and how.
     * @return what was written and kept.
     * @throws StoreException on a directory made by another table or unit, a decimal that does not fit, or I/O.
     */
    public static ExportResult export(final Table table, final ExportOptions options) {
        final Path dir = options.out().resolve(table.name());
        try {
            Files.createDirectories(dir);
        } catch (final IOException e) {
            throw new StoreException("cannot create " + dir + ": " + StoreException.reason(e), e);
        }
        try (FileChannel lockFile = FileChannel.open(dir.resolve(LOCK_NAME), StandardOpenOption.CREATE,
            StandardOpenOption.WRITE);
             FileLock lock = lockFile.tryLock()) {
            if (lock == null) {
                throw new StoreException("another export into " + dir + " is running; wait for it to finish");
            }
            removeTemporaries(dir);
            try (TableReader reader = table.reader()) {
                return export(reader.snapshot(), dir, options);
            }
        } catch (final IOException e) {
            throw new StoreException("cannot lock " + dir.resolve(LOCK_NAME) + ": " + StoreException.reason(e), e);
        }
    }

    private static ExportResult export(final TableSnapshot snap, final Path dir, final ExportOptions o) {
        final Schema schema = snap.schema();
        final int ts = schema.timestampIndex();
        if (ts < 0 && (o.fromNanos() != Long.MIN_VALUE || o.toNanos() != Long.MAX_VALUE)) {
            throw new StoreException("table '" + schema.name() + "' has no designated timestamp, so it is exported "
                + "whole, without day partitions: leave out --from and --to");
        }
        ExportManifest manifest = ExportManifest.read(dir);
        if (manifest != null) {
            if (manifest.schema.columnsHash() != schema.columnsHash()) {
                throw new StoreException(dir + " holds an export of table '" + manifest.table + "' with columns "
                    + manifest.schema.columnNames() + " (" + SchemaCodec.toJson(manifest.schema, false) + "), not "
                    + "those of the table now; export into another directory, or remove it");
            }
            if (manifest.unit != o.unit()) {
                throw new StoreException(dir + " holds timestamps in " + manifest.unit.label() + ", not "
                    + o.unit().label() + "; one directory holds one unit (--timestamp-unit " + manifest.unit.label()
                    + "), or export into another directory");
            }
        } else {
            manifest = new ExportManifest(schema, o.unit());
        }
        final long fromDay = o.fromNanos() == Long.MIN_VALUE ? Long.MIN_VALUE : o.fromNanos() / ExportOptions.DAY_NANOS;
        final long toDay = o.toNanos() == Long.MAX_VALUE ? Long.MAX_VALUE : o.toNanos() / ExportOptions.DAY_NANOS;
        final boolean ranged = fromDay != Long.MIN_VALUE || toDay != Long.MAX_VALUE;
        final SegmentColumns columns = new SegmentColumns(snap, o.unit(), metadata(schema));
        int written = 0;
        int kept = 0;
        long rowsWritten = 0;
        long bytesWritten = 0;
        for (int seg = snap.firstSegment(); seg < snap.segmentCount(); seg++) {
            final int count = snap.segmentRowCount(seg);
            final boolean sealed = snap.segmentSealed(seg);
            if (count == 0 || !sealed && !o.includeOpen()) {
                continue;
            }
            final long[] days = ts < 0 ? new long[] {NULL_DAY} : days(snap, seg, ts, count);
            boolean changed = false;
            for (final long day : days) {
                if (ts >= 0 && (day == NULL_DAY ? ranged : day < fromDay || day >= toDay)) {
                    continue;
                }
                final String date = ts < 0 ? null : day == NULL_DAY ? NULL_PARTITION : LocalDate.ofEpochDay(day)
                    .toString();
                final String name = String.format("%06d.parquet", seg);
                final String rel = date == null ? name : "date=" + date + "/" + name;
                final ExportManifest.FileEntry had = manifest.files.get(rel);
                if (had != null && had.segmentRows() == count && sameLength(dir.resolve(rel), had.bytes())) {
                    kept++;
                    continue;
                }
                final ExportManifest.FileEntry e = writeFile(dir, rel, date, columns, seg,
                    ts < 0 ? null : t -> dayOf(t) == day, count, sealed, o.compression());
                manifest.files.put(rel, e);
                written++;
                rowsWritten += e.rows();
                bytesWritten += e.bytes();
                changed = true;
            }
            if (changed) {
                manifest.commit = snap.sequence();
                manifest.write(dir);
            }
        }
        if (manifest.commit != snap.sequence() || !Files.exists(dir.resolve(ExportManifest.NAME))) {
            manifest.commit = snap.sequence();
            manifest.write(dir);
        }
        long exported = 0;
        for (final ExportManifest.FileEntry e : manifest.files()) {
            exported += e.rows();
        }
        return new ExportResult(dir, written, kept, rowsWritten, bytesWritten, snap.sequence(), exported);
    }

    private static ExportManifest.FileEntry writeFile(final Path dir, final String rel, final String date,
        final SegmentColumns columns, final int segment, final LongPredicate keep, final int count,
        final boolean sealed, final CompressionCodecName codec) {
        final Path target = dir.resolve(rel);
        final Path tmp = target.resolveSibling("." + target.getFileName() + ".tmp");
        long rows = 0;
        final StreamOutputFile out;
        try {
            Files.createDirectories(target.getParent());
            try (FileOutputStream fos = new FileOutputStream(tmp.toFile())) {
                final BufferedOutputStream buffered = new BufferedOutputStream(fos, 1 << 16);
                out = new StreamOutputFile(buffered);
                try (SegmentColumns.File f = columns.open(out, codec)) {
                    rows = f.write(segment, keep);
                }
                buffered.flush();
                fos.getFD().sync();
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (final IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (final IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            if (e instanceof StoreException) {
                throw (StoreException) e;
            }
            throw new StoreException("cannot write " + target + ": " + StoreException.reason(e), e);
        }
        MappedFile.syncDirectory(target.getParent());
        return new ExportManifest.FileEntry(rel, segment, date, count, sealed, rows, out.length(),
            out.crc32c());
    }

    /**
     * Streams one Parquet file of the table's committed rows whose designated timestamp is in [from, to) (every row
     * for the full range), the open segment's included, to {@code out}, which it flushes but does not close.
     *
     * @param table     the table.
     * @param fromNanos first timestamp, or {@link Long#MIN_VALUE}.
     * @param toNanos   end timestamp (exclusive), or {@link Long#MAX_VALUE}.
     * @param unit      the unit of timestamps in the file.
     * @param codec     its compression.
     * @param out       where the bytes go.
     * @return rows written.
     * @throws UncheckedIOException when {@code out} fails (a client that went away).
     */
    public static long stream(final Table table, final long fromNanos, final long toNanos, final TimestampUnit unit,
        final CompressionCodecName codec, final OutputStream out) {
        try (TableReader reader = table.reader()) {
            final TableSnapshot snap = reader.snapshot();
            final int ts = snap.schema().timestampIndex();
            final boolean all = fromNanos == Long.MIN_VALUE && toNanos == Long.MAX_VALUE;
            if (ts < 0 && !all) {
                throw new StoreException("table '" + table.name() + "' has no designated timestamp: export it "
                    + "without from and to");
            }
            final SegmentColumns columns = new SegmentColumns(snap, unit, metadata(snap.schema()));
            final LongPredicate keep = all ? null : t -> t != Long.MIN_VALUE && t >= fromNanos && t < toNanos;
            long rows = 0;
            try (SegmentColumns.File f = columns.open(new StreamOutputFile(out), codec)) {
                for (int seg = snap.firstSegment(); seg < snap.segmentCount(); seg++) {
                    rows += f.write(seg, keep);
                }
            }
            return rows;
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Key-value metadata in every file's footer: what wrote it and the table's schema (no time, so runs repeat). */
    private static Map<String, String> metadata(final Schema schema) {
        return Map.of("tradestore.table", schema.name(), "tradestore.schema", SchemaCodec.toJson(schema, false));
    }

    /** @return the distinct days of the segment's rows, ascending ({@link #NULL_DAY} for null timestamps). */
    private static long[] days(final TableSnapshot snap, final int seg, final int ts, final int count) {
        final long base = snap.columnAddress(seg, ts);
        final int stride = snap.columnStride(ts);
        long[] days = new long[4];
        int n = 0;
        long last = 0;
        for (int r = 0; r < count; r++) {
            final long day = dayOf(NativeMemory.getLong(base + (long) r * stride));
            if (n > 0 && day == last) {
                continue;
            }
            last = day;
            boolean seen = false;
            for (int k = 0; k < n; k++) {
                if (days[k] == day) {
                    seen = true;
                    break;
                }
            }
            if (!seen) {
                if (n == days.length) {
                    days = Arrays.copyOf(days, n * 2);
                }
                days[n++] = day;
            }
        }
        final long[] sorted = Arrays.copyOf(days, n);
        Arrays.sort(sorted);
        return sorted;
    }

    private static long dayOf(final long nanos) {
        return nanos == Long.MIN_VALUE ? NULL_DAY : Math.floorDiv(nanos, ExportOptions.DAY_NANOS);
    }

    private static boolean sameLength(final Path file, final long bytes) {
        try {
            return Files.size(file) == bytes;
        } catch (final IOException e) {
            return false;
        }
    }

    /** Deletes the hidden temporary files a killed export left ({@code .NAME.tmp}), at any depth. */
    private static void removeTemporaries(final Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir, 2)) {
            for (final Path p : (Iterable<Path>) s::iterator) {
                final String n = p.getFileName().toString();
                if (n.startsWith(".") && n.endsWith(".tmp") && Files.isRegularFile(p)) {
                    Files.delete(p);
                }
            }
        }
    }
}
