package io.tradestore.parquet;

import java.util.Locale;

import org.apache.parquet.schema.LogicalTypeAnnotation;

/** The unit of exported timestamps: nanoseconds (tradestore's own) or microseconds (what Spark reads by default). */
public enum TimestampUnit {
    /** TIMESTAMP(NANOS, UTC): every value as stored. */
    NANOS(1, LogicalTypeAnnotation.TimeUnit.NANOS),
    /** TIMESTAMP(MICROS, UTC): nanoseconds below the microsecond are dropped (rounded towards the past). */
    MICROS(1_000, LogicalTypeAnnotation.TimeUnit.MICROS);

    private final long nanos;
    private final LogicalTypeAnnotation.TimeUnit parquet;

    TimestampUnit(final long nanos, final LogicalTypeAnnotation.TimeUnit parquet) {
        this.nanos = nanos;
        this.parquet = parquet;
    }

    /** @return nanoseconds per unit. */
    public long nanos() {
        return nanos;
    }

    /** @return the Parquet time unit. */
    LogicalTypeAnnotation.TimeUnit parquet() {
        return parquet;
    }

    /** @param nanosSinceEpoch a stored timestamp. @return it in this unit (floor). */
    public long of(final long nanosSinceEpoch) {
        return Math.floorDiv(nanosSinceEpoch, nanos);
    }

    /**
     * @param text {@code nanos} or {@code micros} (case-insensitive).
     * @return the unit.
     * @throws IllegalArgumentException naming the allowed values.
     */
    public static TimestampUnit parse(final String text) {
        for (final TimestampUnit u : values()) {
            if (u.name().equalsIgnoreCase(text.trim())) {
                return u;
            }
        }
        throw new IllegalArgumentException("timestamp unit '" + text + "' is not one of nanos, micros");
    }

    /** @return the name used in options and the manifest. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
