package io.tradestore.query.sql;

import java.util.List;
import java.util.Locale;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExtractExpression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.operators.arithmetic.Division;
import net.sf.jsqlparser.expression.operators.arithmetic.Multiplication;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;

import io.tradestore.core.StoreException;
import io.tradestore.query.ErrorCode;

/**
 * Time buckets in the spellings people use: DuckDB's {@code time_bucket(INTERVAL '5 minutes', ts[, origin])},
 * PostgreSQL's {@code date_trunc('hour', ts)} and QuestDB's {@code SAMPLE BY 5m}, as the model's bucket widths. The
 * engine aligns fixed widths on the epoch and months on January 1970; a spelling whose alignment differs for the
 * width asked (DuckDB aligns {@code time_bucket} on 2000-01-03, Monday) is refused rather than answered differently.
 */
final class SqlBuckets {
    /** Months from January 1970 to January 2000, DuckDB's origin of month buckets. */
    private static final long DUCKDB_MONTH_ORIGIN = 360;

    private SqlBuckets() {
    }

    /**
     * A bucket key.
     *
     * @param width  the model's width ({@code 300000000000ns}, {@code P1M}).
     * @param col    the timestamp column.
     * @param colPos where the column is.
     * @param pos    where the width is.
     * @param secondsScale for Grafana's {@code floor(extract(epoch from ts)/N)*N}, whose value is the bucket's start
     *                     in epoch seconds: the scale of that number (0 for whole seconds, 9 for fractions); -1 for
     *                     a bucket whose value is a timestamp.
     */
    record Bucket(String width, String col, SqlPos colPos, SqlPos pos, int secondsScale) {
        Bucket(final String width, final String col, final SqlPos colPos, final SqlPos pos) {
            this(width, col, colPos, pos, -1);
        }
    }

    /**
     * @param e        an expression.
     * @param columns  resolves the column.
     * @param fallback where to point when the parser kept no place.
     * @return the bucket, or null when e is not a bucket function.
     */
    static Bucket of(final Expression e, final SqlAggregates.Columns columns, final SqlPos fallback) {
        if (e instanceof Multiplication m) {
            return epochGroup(m, columns, fallback);
        }
        if (!(e instanceof Function f) || f.getParameters() == null) {
            return null;
        }
        final String name = f.getName().toLowerCase(Locale.ROOT);
        final SqlPos pos = SqlPos.of(e, fallback);
        final List<? extends Expression> args = f.getParameters();
        if (name.equals("time_bucket")) {
            if (args.size() < 2 || args.size() > 3) {
                throw new SqlException(ErrorCode.INVALID_QUERY, "time_bucket takes (INTERVAL '5 minutes', ts) or "
                    + "(INTERVAL '5 minutes', ts, TIMESTAMP '1970-01-01') (" + pos + ")", pos);
            }
            final SqlPos widthPos = SqlPos.of(args.get(0), pos);
            // TimescaleDB's spelling, which Grafana's $__timeGroup writes: time_bucket('300.000s', ts)
            final SqlValues.Interval i = args.get(0) instanceof StringValue s
                ? SqlValues.interval(SqlValues.text(s).toLowerCase(Locale.ROOT), widthPos)
                : SqlValues.interval(args.get(0), widthPos);
            final SqlPos colPos = SqlPos.of(args.get(1), pos);
            final String col = columns.argument(args.get(1), colPos);
            checkOrigin(i, args.size() == 3 ? args.get(2) : null, pos);
            return new Bucket(i.bucket(), col, colPos, widthPos);
        }
        if (name.equals("date_trunc") || name.equals("datetrunc")) {
            if (args.size() != 2 || !(args.get(0) instanceof StringValue unit)) {
                throw new SqlException(ErrorCode.INVALID_QUERY, "date_trunc takes ('hour', ts) (" + pos + ")", pos);
            }
            final SqlPos unitPos = SqlPos.of(unit, pos);
            final SqlPos colPos = SqlPos.of(args.get(1), pos);
            return new Bucket(truncation(SqlValues.text(unit).toLowerCase(Locale.ROOT), unitPos),
                columns.argument(args.get(1), colPos), colPos, unitPos);
        }
        return null;
    }

    /**
     * Grafana's {@code $__timeGroup(ts, '5m')}, which it expands to {@code floor(extract(epoch from ts)/300)*300}:
     * epoch seconds bucketed by 300, which is the engine's epoch-aligned bucket of 300 seconds, shown in seconds.
     */
    private static Bucket epochGroup(final Multiplication m, final SqlAggregates.Columns columns,
        final SqlPos fallback) {
        final Expression by = m.getRightExpression();
        if (!(m.getLeftExpression() instanceof Function floor) || !floor.getName().equalsIgnoreCase("floor")
            || floor.getParameters() == null || floor.getParameters().size() != 1
            || !(unwrap(floor.getParameters().get(0)) instanceof Division d)
            || !(unwrap(d.getLeftExpression()) instanceof ExtractExpression x) || !x.getName().equalsIgnoreCase("epoch")
            || !SqlValues.isNumber(by) || !SqlValues.isNumber(d.getRightExpression())) {
            return null;
        }
        final SqlPos pos = SqlPos.of(m, fallback);
        final java.math.BigDecimal seconds = new java.math.BigDecimal(String.valueOf(by));
        if (seconds.compareTo(new java.math.BigDecimal(String.valueOf(d.getRightExpression()))) != 0
            || seconds.signum() <= 0) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "floor(extract(epoch from ts)/N)*N takes the same "
                + "positive N twice, as Grafana's $__timeGroup writes it (" + pos + ")", pos);
        }
        final java.math.BigDecimal nanos = seconds.movePointRight(9);
        if (nanos.stripTrailingZeros().scale() > 0
            || nanos.compareTo(java.math.BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "a bucket of " + seconds.toPlainString() + " seconds is "
                + "not a whole number of nanoseconds (" + pos + ")", pos);
        }
        final SqlPos colPos = SqlPos.of(x.getExpression(), pos);
        final String col = columns.argument(x.getExpression(), colPos);
        final long n = nanos.longValueExact();
        return new Bucket(n + "ns", col, colPos, SqlPos.of(by, pos), n % 1_000_000_000L == 0 ? 0 : 9);
    }

    private static Expression unwrap(final Expression e) {
        return e instanceof ParenthesedExpressionList<?> p && p.size() == 1 ? unwrap(p.get(0)) : e;
    }

    /**
     * @param width QuestDB's {@code SAMPLE BY} width: a number and one of {@code U T s m h d M y} (micro, milli,
     *              second, minute, hour, day, month, year).
     * @param pos   where it is.
     * @return the model's width.
     */
    static String sampleBy(final String width, final SqlPos pos) {
        int digits = 0;
        while (digits < width.length() && Character.isDigit(width.charAt(digits))) {
            digits++;
        }
        final String unit = width.substring(digits);
        final String n = width.substring(0, digits);
        switch (unit) {
            case "U":
                return n + "us";
            case "T":
                return n + "ms";
            case "s":
            case "m":
            case "h":
            case "d":
                return n + unit;
            case "M":
                return "P" + n + "M";
            case "y":
                return "P" + n + "Y";
            default:
                throw new SqlException(ErrorCode.INVALID_QUERY, "SAMPLE BY " + StoreException.echo(width)
                    + " is not a width; write a number and one of U T s m h d M y (SAMPLE BY 5m) (" + pos + ")", pos);
        }
    }

    private static String truncation(final String unit, final SqlPos pos) {
        switch (unit) {
            case "microsecond":
            case "microseconds":
                return "1us";
            case "millisecond":
            case "milliseconds":
                return "1ms";
            case "second":
                return "1s";
            case "minute":
                return "1m";
            case "hour":
                return "1h";
            case "day":
                return "1d";
            case "month":
                return "P1M";
            case "quarter":
                return "P3M";
            case "year":
                return "P1Y";
            default:
                throw new SqlException(ErrorCode.INVALID_QUERY, "date_trunc('" + StoreException.echo(unit) + "', ...)"
                    + " is not supported; the units are microsecond, millisecond, second, minute, hour, day, month, "
                    + "quarter and year (weeks start on Monday, which the engine's epoch-aligned buckets do not) ("
                    + pos + ")", pos);
        }
    }

    private static void checkOrigin(final SqlValues.Interval i, final Expression origin, final SqlPos pos) {
        final boolean aligned;
        if (origin == null) {
            aligned = i.months() > 0 ? DUCKDB_MONTH_ORIGIN % i.months() == 0
                : SqlValues.DUCKDB_ORIGIN_NANOS % i.nanos() == 0;
        } else {
            final SqlPos at = SqlPos.of(origin, pos);
            if (!SqlValues.isTimestamp(origin)) {
                throw new SqlException(ErrorCode.INVALID_QUERY, "the origin of time_bucket is a timestamp such as "
                    + "TIMESTAMP '1970-01-01' (" + at + ")", at);
            }
            final long nanos = SqlValues.timestamp(origin, at);
            if (i.months() > 0) {
                final java.time.LocalDateTime t = java.time.LocalDateTime.ofEpochSecond(Math.floorDiv(nanos,
                    1_000_000_000L), (int) Math.floorMod(nanos, 1_000_000_000L), java.time.ZoneOffset.UTC);
                final long months = (t.getYear() - 1970L) * 12 + t.getMonthValue() - 1;
                aligned = t.getDayOfMonth() == 1 && t.toLocalTime().equals(java.time.LocalTime.MIDNIGHT)
                    && Math.floorMod(months, i.months()) == 0;
            } else {
                aligned = Math.floorMod(nanos, i.nanos()) == 0;
            }
        }
        if (!aligned) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "the engine's buckets of this width start at the epoch "
                + "(1970-01-01), and this time_bucket's origin (DuckDB's default is 2000-01-03 for widths without "
                + "months, 2000-01-01 with them) falls between two of them; give the origin TIMESTAMP '1970-01-01' "
                + "as a third argument (" + pos + ")", pos);
        }
    }
}
