package io.tradestore.core.schema;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

import io.tradestore.core.StoreException;
import io.tradestore.core.memory.NativeMemory;

/**
 * How a table's rows are split by time: a segment of a partitioned table holds rows of one UTC hour, day or month of
 * the designated timestamp, never two, so that retention drops whole periods and a time filter skips whole segments of
 * other periods. {@code NONE} keeps segments of a fixed row count whatever their times. A writer ends a segment early
 * when a row of another period comes (see {@code TableWriter#partition}).
 */
public enum PartitionBy {
    /** Segments of a fixed row count, whatever their times. */
    NONE(0),
    /** One UTC hour per segment at most. */
    HOUR(3_600_000_000_000L),
    /** One UTC day per segment at most. */
    DAY(86_400_000_000_000L),
    /** One UTC calendar month per segment at most. */
    MONTH(0);

    private static final long NANOS_PER_DAY = 86_400_000_000_000L;
    private static final DateTimeFormatter HOUR_NAME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH", Locale.ROOT)
        .withZone(ZoneOffset.UTC);
    private final long width;

    PartitionBy(final long width) {
        this.width = width;
    }

    /**
     * Returns the start of the period holding a time; the table's timestamp null ({@code Long.MIN_VALUE}) is a period
     * of its own.
     *
     * @param nanos epoch nanoseconds.
     * @return the first epoch nanosecond of its period ({@code Long.MIN_VALUE} for {@code NONE}).
     */
    public long floor(final long nanos) {
        switch (this) {
            case NONE:
                return Long.MIN_VALUE;
            case MONTH:
                if (nanos == Long.MIN_VALUE) {
                    return Long.MIN_VALUE;
                }
                final LocalDate d = LocalDate.ofEpochDay(Math.floorDiv(nanos, NANOS_PER_DAY));
                return Math.multiplyExact(d.withDayOfMonth(1).toEpochDay(), NANOS_PER_DAY);
            default:
                return nanos == Long.MIN_VALUE ? Long.MIN_VALUE : Math.floorDiv(nanos, width) * width;
        }
    }

    /**
     * Returns the start of the period after the one starting at {@code floor}.
     *
     * @param floor a value of {@link #floor}.
     * @return the next period's first nanosecond, {@code Long.MAX_VALUE} past the range or for {@code NONE} and the
     *     null's period.
     */
    public long next(final long floor) {
        if (this == NONE || floor == Long.MIN_VALUE) {
            return Long.MAX_VALUE;
        }
        if (this == MONTH) {
            final LocalDate d = LocalDate.ofEpochDay(Math.floorDiv(floor, NANOS_PER_DAY)).plusMonths(1);
            final long day = d.toEpochDay();
            return day > Long.MAX_VALUE / NANOS_PER_DAY ? Long.MAX_VALUE : day * NANOS_PER_DAY;
        }
        return floor > Long.MAX_VALUE - width ? Long.MAX_VALUE : floor + width;
    }

    /**
     * The cut retention drops below (see {@code TableWriter#dropOlderThan}): whole periods only, those that end at or
     * before {@code cut}.
     *
     * @param cut epoch nanoseconds.
     * @return the start of the period holding {@code cut}; {@code cut} itself unpartitioned or for the null.
     */
    public long wholePeriodsBefore(final long cut) {
        return this == NONE || cut == Long.MIN_VALUE ? cut : floor(cut);
    }

    /**
     * Measures a run of timestamps of one period, for bulk writers that place runs (see {@code TableWriter#partition}).
     *
     * @param timestamps native address of epoch-nanosecond timestamps, 8 bytes each.
     * @param count      how many there are (at least 1).
     * @return how many from the first on fall in the first one's period (nulls count in; a null first: 1).
     */
    public int run(final long timestamps, final int count) {
        final long first = NativeMemory.getLong(timestamps);
        if (first == Long.MIN_VALUE) {
            return 1;
        }
        final long lo = floor(first);
        final long hi = next(lo);
        int n = 1;
        while (n < count) {
            final long ts = NativeMemory.getLong(timestamps + 8L * n);
            if (ts != Long.MIN_VALUE && (ts < lo || ts >= hi)) {
                break;
            }
            n++;
        }
        return n;
    }

    /**
     * Names a period as users write it: {@code 2026-11-29T13}, {@code 2026-11-29}, {@code 2026-11}.
     *
     * @param floor a value of {@link #floor}.
     * @return its name.
     */
    public String label(final long floor) {
        if (this == NONE) {
            return "all";
        }
        if (floor == Long.MIN_VALUE) {
            return "null";
        }
        final Instant at = Instant.ofEpochSecond(Math.floorDiv(floor, 1_000_000_000L));
        switch (this) {
            case HOUR:
                return HOUR_NAME.format(at);
            case DAY:
                return at.atOffset(ZoneOffset.UTC).toLocalDate().toString();
            default:
                return at.atOffset(ZoneOffset.UTC).toLocalDate().toString().substring(0, 7);
        }
    }

    /**
     * Parses a name as in a schema or on the command line, case-insensitive.
     *
     * @param text  {@code NONE}, {@code HOUR}, {@code DAY} or {@code MONTH}.
     * @param where what to name in the error (a JSON path or an option).
     * @return the value.
     * @throws StoreException naming {@code where} for anything else.
     */
    public static PartitionBy parse(final String text, final String where) {
        if (text != null) {
            for (final PartitionBy p : values()) {
                if (p.name().equalsIgnoreCase(text.trim())) {
                    return p;
                }
            }
        }
        throw new StoreException(where + ": unknown partitioning '" + StoreException.echo(String.valueOf(text))
            + "'; use NONE, HOUR, DAY or MONTH");
    }
}
