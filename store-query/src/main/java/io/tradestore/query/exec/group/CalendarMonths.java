package io.tradestore.query.exec.group;

/**
 * Calendar months of UTC timestamps (epoch nanoseconds), for buckets of whole months and years ({@code P1M},
 * {@code P3M}, {@code P1Y}): a month's index counts months from January 1970 (negative before it), in the proleptic
 * Gregorian calendar as {@code java.time} reckons it. The arithmetic is H. Hinnant's {@code civil_from_days} and
 * {@code days_from_civil}: integer operations only, no allocation.
 */
public final class CalendarMonths {
    private static final long DAY_NS = 86_400_000_000_000L;
    /** The earliest day whose midnight is a long of nanoseconds (1677-09-22). */
    private static final long FIRST_DAY = -(Long.MAX_VALUE / DAY_NS);

    private CalendarMonths() {
    }

    /** @param nanos a timestamp. @return the index of its month: (year - 1970) * 12 + month - 1. */
    public static long of(final long nanos) {
        final long z = Math.floorDiv(nanos, DAY_NS) + 719_468;
        final long era = Math.floorDiv(z, 146_097);
        final long doe = z - era * 146_097;
        final long yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
        final long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        final long mp = (5 * doy + 2) / 153;
        final long month = mp < 10 ? mp + 3 : mp - 9;
        final long year = yoe + era * 400 + (month <= 2 ? 1 : 0);
        return (year - 1970) * 12 + month - 1;
    }

    /**
     * @param index a month's index.
     * @return the timestamp of its first instant, or {@code Long.MIN_VALUE + 1} (the smallest timestamp) for a month
     *     that starts before it, as fixed-width buckets report the first bucket of the range.
     */
    public static long start(final long index) {
        final long year = 1970 + Math.floorDiv(index, 12);
        final long month = Math.floorMod(index, 12) + 1;
        final long yy = month <= 2 ? year - 1 : year;
        final long era = Math.floorDiv(yy, 400);
        final long yoe = yy - era * 400;
        final long doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5;
        final long day = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
        return day < FIRST_DAY ? Long.MIN_VALUE + 1 : day * DAY_NS;
    }
}
