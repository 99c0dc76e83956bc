package io.tradestore.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.tradestore.core.memory.MappedFile;

/**
 * Retention by age, as QuestDB's TTL: whole sealed segments go when their newest row is older than a duration before
 * the <b>reference time</b>, the newest row of the table capped by the wall clock (a row stamped far in the future must
 * not empty the table). A table's TTL is kept in {@value #FILE} in its directory, outside the schema, so it can change.
 */
public final class RetentionRule {
    /** The TTL file in a table directory. */
    public static final String FILE = "_ttl";
    private static final Pattern SHORT = Pattern.compile("(\\d{1,9})\\s*([a-zA-Z]+)");

    private RetentionRule() {
    }

    /**
     * Reads a duration: a count and a unit ({@code 90m}, {@code 36h}, {@code 30d}, {@code 2w}; units s, m, h, d, w and
     * their names, singular or plural) or ISO-8601 ({@code PT36H}, {@code P30D}). Months and years are not fixed
     * lengths and are refused: say {@code 30d} or {@code 52w}.
     *
     * @param text the duration.
     * @return nanoseconds, above zero.
     * @throws IllegalArgumentException with what was wrong.
     */
    public static long parse(final String text) {
        final String t = text == null ? "" : text.trim();
        final Matcher m = SHORT.matcher(t);
        long nanos;
        if (m.matches()) {
            final TimeUnit unit = unit(m.group(2), t);
            nanos = unit.toNanos(Long.parseLong(m.group(1)));
            if (m.group(2).toLowerCase(Locale.ROOT).startsWith("w")) {
                nanos = nanos > Long.MAX_VALUE / 7 ? Long.MAX_VALUE : nanos * 7; // saturates, as toNanos does
            }
        } else {
            try {
                nanos = Duration.parse(t.toUpperCase(Locale.ROOT)).toNanos();
            } catch (final DateTimeParseException | ArithmeticException e) {
                throw new IllegalArgumentException("cannot read '" + StoreException.echo(t) + "' as a duration: give a "
                    + "count and a unit (90m, 36h, 30d, 2w) or ISO-8601 (PT36H, P30D)");
            }
        }
        if (nanos <= 0) {
            throw new IllegalArgumentException("duration '" + StoreException.echo(t) + "' must be above zero");
        }
        return nanos;
    }

    private static TimeUnit unit(final String name, final String text) {
        if ("M".equals(name)) { // QuestDB's shorthand for months; m (lower case) is minutes
            throw new IllegalArgumentException("'" + StoreException.echo(text) + "' reads as months: months and years "
                + "are not fixed lengths, say 30d or 52w (minutes are a lower-case m)");
        }
        switch (name.toLowerCase(Locale.ROOT)) {
            case "s": case "sec": case "second": case "seconds":
                return TimeUnit.SECONDS;
            case "m": case "min": case "minute": case "minutes":
                return TimeUnit.MINUTES;
            case "h": case "hour": case "hours":
                return TimeUnit.HOURS;
            case "d": case "day": case "days":
            case "w": case "week": case "weeks": // days, times 7 by the caller
                return TimeUnit.DAYS;
            default:
                throw new IllegalArgumentException("unknown unit '" + StoreException.echo(name) + "' in duration '"
                    + StoreException.echo(text) + "': use s, m, h, d or w (months and years are not fixed lengths: "
                    + "say 30d or 52w)");
        }
    }

    /** @param nanos a duration. @return it in the largest unit that divides it ({@code 30d}, {@code 36h}). */
    public static String format(final long nanos) {
        final long[] units = {TimeUnit.DAYS.toNanos(7), TimeUnit.DAYS.toNanos(1), TimeUnit.HOURS.toNanos(1),
            TimeUnit.MINUTES.toNanos(1), TimeUnit.SECONDS.toNanos(1)};
        final String[] names = {"w", "d", "h", "m", "s"};
        for (int i = 0; i < units.length; i++) {
            if (nanos % units[i] == 0) {
                return nanos / units[i] + names[i];
            }
        }
        return Duration.ofNanos(nanos).toString();
    }

    /**
     * The cut below which segments go.
     *
     * @param newestNanos the table's newest designated timestamp.
     * @param nowNanos    the wall clock, epoch nanoseconds.
     * @param olderThan   the duration kept.
     * @return epoch nanoseconds: {@code min(newest, now) - olderThan}, or {@code Long.MIN_VALUE} (nothing goes) when
     *     that is before the epoch range.
     */
    public static long cut(final long newestNanos, final long nowNanos, final long olderThan) {
        final long reference = Math.min(newestNanos, nowNanos);
        return reference < Long.MIN_VALUE + olderThan ? Long.MIN_VALUE : reference - olderThan;
    }

    /**
     * Drops what is older than a duration before the reference time (see the class comment), read from a reader
     * opened for the call.
     *
     * @param table     the table.
     * @param writer    its writer.
     * @param olderThan nanoseconds kept.
     * @param nowNanos  the wall clock, epoch nanoseconds.
     * @return what was dropped.
     */
    public static Retention apply(final Table table, final TableWriter writer, final long olderThan,
                                  final long nowNanos) {
        final long cut;
        try (TableReader r = table.reader()) {
            cut = cut(r.snapshot(), olderThan, nowNanos);
        }
        return writer.dropOlderThan(cut);
    }

    /**
     * The cut of a snapshot: {@link #cut(long, long, long)} of its newest designated timestamp.
     *
     * @param s         a snapshot of the table.
     * @param olderThan nanoseconds kept.
     * @param nowNanos  the wall clock, epoch nanoseconds.
     * @return epoch nanoseconds, or {@code Long.MIN_VALUE} when the table holds no row; for a partitioned table, the
     *     start of the period holding the cut, so that only whole periods go.
     */
    public static long cut(final TableSnapshot s, final long olderThan, final long nowNanos) {
        final int ts = s.schema().timestampIndex();
        if (ts < 0) {
            throw new StoreException("table '" + s.schema().name() + "' has no designated timestamp; retention drops "
                + "by time");
        }
        long newest = Long.MIN_VALUE;
        for (int i = s.firstSegment(); i < s.segmentCount(); i++) {
            newest = Math.max(newest, s.segment(i).zoneMax(-1, ts));
        }
        if (newest == Long.MIN_VALUE) {
            return Long.MIN_VALUE;
        }
        // a partitioned table loses whole periods, as the writer's drop does
        return s.schema().partitionBy().wholePeriodsBefore(cut(newest, nowNanos, olderThan));
    }

    /**
     * Tells whether {@link TableWriter#dropOlderThan} would drop anything at a cut: a caller without the writer open (a
     * schedule) opens it only then, since opening a writer maps every segment and may create the next one.
     *
     * @param s   a snapshot of the table.
     * @param cut the cut.
     * @return whether the first segment held is sealed and its newest row before the cut.
     */
    public static boolean due(final TableSnapshot s, final long cut) {
        final int first = s.firstSegment();
        return first < s.segmentCount() && s.segmentSealed(first)
            && s.segment(first).zoneMax(-1, s.schema().timestampIndex()) < cut;
    }

    /** @param tableDir a table directory. @return its TTL in nanoseconds, 0 when it has none. */
    static long read(final Path tableDir) {
        final Path f = tableDir.resolve(FILE);
        try {
            return Files.exists(f) ? parse(Files.readString(f, StandardCharsets.UTF_8)) : 0;
        } catch (final IOException | IllegalArgumentException e) {
            throw new StoreException("cannot read the TTL of " + tableDir + " from " + f + ": "
                + StoreException.reason(e), e);
        }
    }

    /**
     * Sets a table's TTL, or removes it (0): written to a scratch file, synced and renamed into place.
     *
     * @param tableDir the table directory.
     * @param nanos    the TTL, 0 for none.
     */
    static void write(final Path tableDir, final long nanos) {
        final Path f = tableDir.resolve(FILE);
        try {
            if (nanos == 0) {
                Files.deleteIfExists(f);
            } else {
                final Path tmp = tableDir.resolve(FILE + ".tmp");
                Files.writeString(tmp, format(nanos) + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE, StandardOpenOption.SYNC);
                try {
                    Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (final AtomicMoveNotSupportedException e) {
                    Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING);
                }
            }
            MappedFile.syncDirectory(tableDir);
        } catch (final IOException e) {
            throw new StoreException("cannot write the TTL of " + tableDir + ": " + StoreException.reason(e), e);
        }
    }
}
