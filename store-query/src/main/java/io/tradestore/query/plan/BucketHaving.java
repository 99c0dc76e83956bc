package io.tradestore.query.plan;

import io.tradestore.query.QueryException;
import io.tradestore.query.exec.group.CalendarMonths;
import io.tradestore.query.model.Filter;

/**
 * A having range on a time bucket key ({@code having bk >= '2026-11-20T10:27:00Z'} over buckets of a day) as a range
 * on the timestamp column: a bucket's start is at or after X exactly when its rows' timestamps are at or after the
 * first bucket start at or after X. The rows of the buckets it drops are then never read, and the range prunes by
 * time as the query's time range does.
 */
final class BucketHaving {
    /** Timestamps beyond this magnitude are left to the having alone (bucket starts there are clamped). */
    private static final long SAFE = 1L << 62;

    private BucketHaving() {
    }

    /**
     * @param term   a having term on a bucket key: a range, or an equality.
     * @param col    the bucketed column's name.
     * @param width  the bucket width in nanoseconds, or 0 for calendar months.
     * @param months months per bucket, or 0.
     * @param path   the term's JSON path.
     * @return the same condition as a range on the column, or null when it does not translate (another kind of
     *     term, a bound that does not bind, a bound near the ends of time).
     */
    static Filter onColumn(final Filter term, final String col, final long width, final int months,
        final String path) {
        try {
            if (term instanceof Filter.Eq e) {
                final long x = bound(e.value(), path + "/value");
                // a value that is no bucket's start matches no bucket: an empty range
                return new Filter.Range(col, null, x, null, ceil(x, width, months) == x ? next(x, width, months) : x);
            }
            if (!(term instanceof Filter.Range r)) {
                return null;
            }
            Long from = null;
            Long to = null;
            if (r.gte() != null) {
                from = ceil(bound(r.gte(), path + "/gte"), width, months);
            }
            if (r.gt() != null) {
                from = max(from, next(bound(r.gt(), path + "/gt"), width, months));
            }
            if (r.lt() != null) {
                to = ceil(bound(r.lt(), path + "/lt"), width, months);
            }
            if (r.lte() != null) {
                to = min(to, next(bound(r.lte(), path + "/lte"), width, months));
            }
            return from == null && to == null ? null : new Filter.Range(col, null, from, to, null);
        } catch (final QueryException | ArithmeticException e) {
            return null;
        }
    }

    private static long bound(final Object v, final String path) {
        final long x = Literals.timestamp(v, path);
        if (x <= -SAFE || x >= SAFE) {
            throw new ArithmeticException("near the ends of time");
        }
        return x;
    }

    /** @return the start of the bucket holding t. */
    private static long floor(final long t, final long width, final int months) {
        if (width > 0) {
            return Math.floorDiv(t, width) * width;
        }
        return CalendarMonths.start(Math.floorDiv(CalendarMonths.of(t), months) * months);
    }

    /** @return the first bucket start after t. */
    private static long next(final long t, final long width, final int months) {
        if (width > 0) {
            return Math.addExact(floor(t, width, months), width);
        }
        return CalendarMonths.start(Math.floorDiv(CalendarMonths.of(t), months) * months + months);
    }

    /** @return the first bucket start at or after t. */
    private static long ceil(final long t, final long width, final int months) {
        return floor(t, width, months) == t ? t : next(t, width, months);
    }

    private static Long max(final Long a, final long b) {
        return a == null ? b : Math.max(a, b);
    }

    private static Long min(final Long a, final long b) {
        return a == null ? b : Math.min(a, b);
    }
}
