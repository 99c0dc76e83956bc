package io.tradestore.parquet;

import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Locale;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import io.tradestore.core.StoreException;

/**
 * What {@link ParquetExport#export} writes.
 *
 * @param out         the export directory: the table's files go to {@code out/TABLE/}.
 * @param fromNanos   first day exported, as nanoseconds at a UTC midnight, or {@link Long#MIN_VALUE} for all.
 * @param toNanos     the day after the last one exported, at a UTC midnight, or {@link Long#MAX_VALUE} for all.
 * @param includeOpen whether the committed rows of the segment still being written are exported too.
 * @param unit        the unit of timestamps in the files.
 * @param compression the files' compression codec.
 */
public record ExportOptions(Path out, long fromNanos, long toNanos, boolean includeOpen, TimestampUnit unit,
    CompressionCodecName compression) {
    /** Nanoseconds in a day. */
    public static final long DAY_NANOS = 86_400_000_000_000L;

    /** Checks the range: whole UTC days, from before to. */
    public ExportOptions {
        if (out == null || unit == null || compression == null) {
            throw new StoreException("an export needs a directory, a timestamp unit and a compression");
        }
        if (fromNanos != Long.MIN_VALUE && Math.floorMod(fromNanos, DAY_NANOS) != 0) {
            throw new StoreException("--from " + Instant.ofEpochSecond(0, fromNanos) + " is not a UTC midnight: "
                + "exports are partitioned by whole days, so give a date (YYYY-MM-DD)");
        }
        if (toNanos != Long.MAX_VALUE && Math.floorMod(toNanos, DAY_NANOS) != 0) {
            throw new StoreException("--to " + Instant.ofEpochSecond(0, toNanos) + " is not a UTC midnight: "
                + "exports are partitioned by whole days, so give a date (YYYY-MM-DD)");
        }
        if (fromNanos != Long.MIN_VALUE && toNanos != Long.MAX_VALUE && fromNanos >= toNanos) {
            throw new StoreException("--from must be before --to (the range is [from, to))");
        }
    }

    /**
     * @param out the export directory.
     * @return every sealed segment, nanosecond timestamps, ZSTD.
     */
    public static ExportOptions defaults(final Path out) {
        return new ExportOptions(out, Long.MIN_VALUE, Long.MAX_VALUE, false, TimestampUnit.NANOS,
            CompressionCodecName.ZSTD);
    }

    /** @return these options with the range [fromNanos, toNanos). */
    public ExportOptions withRange(final long from, final long to) {
        return new ExportOptions(out, from, to, includeOpen, unit, compression);
    }

    /** @return these options with the open segment's committed rows included or not. */
    public ExportOptions withIncludeOpen(final boolean value) {
        return new ExportOptions(out, fromNanos, toNanos, value, unit, compression);
    }

    /** @return these options with another timestamp unit. */
    public ExportOptions withUnit(final TimestampUnit value) {
        return new ExportOptions(out, fromNanos, toNanos, includeOpen, value, compression);
    }

    /** @return these options with another codec. */
    public ExportOptions withCompression(final CompressionCodecName value) {
        return new ExportOptions(out, fromNanos, toNanos, includeOpen, unit, value);
    }

    /**
     * @param text a date ({@code 2026-11-17}) or an ISO-8601 instant at a UTC midnight.
     * @return nanoseconds since the epoch.
     * @throws IllegalArgumentException when it is neither.
     */
    public static long parseDay(final String text) {
        final String t = text.trim();
        try {
            if (t.length() == 10) {
                return LocalDate.parse(t).atStartOfDay(ZoneOffset.UTC).toEpochSecond() * 1_000_000_000L;
            }
            final Instant i = Instant.parse(t);
            return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000_000L), i.getNano());
        } catch (final java.time.format.DateTimeParseException | ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' is not a date (2026-11-17) or an instant "
                + "(2026-11-17T00:00:00Z)");
        }
    }

    /**
     * @param text uncompressed, snappy, gzip, lz4_raw or zstd (case-insensitive).
     * @return the codec.
     * @throws IllegalArgumentException naming the allowed values.
     */
    public static CompressionCodecName parseCompression(final String text) {
        switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "uncompressed":
            case "none":
                return CompressionCodecName.UNCOMPRESSED;
            case "snappy":
                return CompressionCodecName.SNAPPY;
            case "gzip":
                return CompressionCodecName.GZIP;
            case "lz4_raw":
                return CompressionCodecName.LZ4_RAW;
            case "zstd":
                return CompressionCodecName.ZSTD;
            default:
                throw new IllegalArgumentException("compression '" + text + "' is not one of uncompressed, snappy, "
                    + "gzip, lz4_raw, zstd");
        }
    }
}
