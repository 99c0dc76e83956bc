package io.tradestore.core.schema;

/**
 * The storage types. Every type is a fixed-width little-endian primitive; a missing value is a sentinel.
 *
 * <pre>
 * type       width  java   null sentinel
 * i8         1      byte   Byte.MIN_VALUE
 * i16        2      short  Short.MIN_VALUE
 * i32        4      int    Integer.MIN_VALUE
 * i64        8      long   Long.MIN_VALUE
 * f64        8      double NaN
 * decimal(s) 8      long   Long.MIN_VALUE  (mantissa; value = mantissa / 10^s)
 * timestamp  8      long   Long.MIN_VALUE  (nanoseconds since 1970-01-01T00:00:00Z)
 * symbol     4      int    -1              (code in the column's dictionary)
 * char       1      byte   0               (one ASCII character)
 * </pre>
 */
public enum ColumnType {
    /** Signed 8-bit integer. */
    I8("i8", 1, Byte.MIN_VALUE),
    /** Signed 16-bit integer. */
    I16("i16", 2, Short.MIN_VALUE),
    /** Signed 32-bit integer. */
    I32("i32", 4, Integer.MIN_VALUE),
    /** Signed 64-bit integer. */
    I64("i64", 8, Long.MIN_VALUE),
    /** IEEE double. */
    F64("f64", 8, Double.doubleToRawLongBits(Double.NaN)),
    /** Fixed-point decimal: a long mantissa with the column's scale. */
    DECIMAL("decimal", 8, Long.MIN_VALUE),
    /** Nanoseconds since the epoch, UTC. */
    TIMESTAMP("timestamp", 8, Long.MIN_VALUE),
    /** A dictionary code; the strings live once in the column's dictionary. */
    SYMBOL("symbol", 4, -1),
    /** One ASCII character. */
    CHAR("char", 1, 0);

    private final String label;
    private final int width;
    private final long nullBits;

    ColumnType(final String label, final int width, final long nullBits) {
        this.label = label;
        this.width = width;
        this.nullBits = nullBits;
    }

    /** @return the name used in schema JSON (without the scale of a decimal). */
    public String label() {
        return label;
    }

    /** @return width in bytes. */
    public int width() {
        return width;
    }

    /** @return the raw bits of the null sentinel, sign-extended to a long (doubles: the NaN bits). */
    public long nullBits() {
        return nullBits;
    }

    /** @return whether values are integers read as long (every type but f64). */
    public boolean isIntegral() {
        return this != F64;
    }
}
