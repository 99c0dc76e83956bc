package io.tradestore.core.ingest.line;

import java.util.Locale;

/** The unit of the timestamps at the end of lines, as the {@code precision} parameter of {@code /write} names it. */
public enum Precision {
    /** Nanoseconds (the default). */
    NANOS(1L),
    /** Microseconds. */
    MICROS(1_000L),
    /** Milliseconds. */
    MILLIS(1_000_000L),
    /** Seconds. */
    SECONDS(1_000_000_000L),
    /** Minutes. */
    MINUTES(60_000_000_000L),
    /** Hours. */
    HOURS(3_600_000_000_000L);

    private final long nanos;

    Precision(final long nanos) {
        this.nanos = nanos;
    }

    /** @return nanoseconds per unit. */
    public long nanos() {
        return nanos;
    }

    /**
     * Reads a precision parameter: {@code n ns u us ms s m h} (InfluxDB's and QuestDB's names); null is nanoseconds.
     *
     * @param value the parameter, or null.
     * @return the precision.
     * @throws IllegalArgumentException naming the accepted values.
     */
    public static Precision of(final String value) {
        if (value == null || value.isEmpty()) {
            return NANOS;
        }
        switch (value.toLowerCase(Locale.ROOT)) {
            case "n":
            case "ns":
                return NANOS;
            case "u":
            case "us":
                return MICROS;
            case "ms":
                return MILLIS;
            case "s":
                return SECONDS;
            case "m":
                return MINUTES;
            case "h":
                return HOURS;
            default:
                throw new IllegalArgumentException("precision '" + value + "' is not one of n, u, ms, s, m, h "
                    + "(nanoseconds, microseconds, milliseconds, seconds, minutes, hours)");
        }
    }
}
