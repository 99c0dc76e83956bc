package io.tradestore.server.pg;

import io.tradestore.core.schema.Column;

/**
 * How tradestore's column types appear in the catalog, as the wire layer sends their values: every integer type
 * ({@code i8} to {@code i64}) as {@code int8}, {@code decimal(s)} as
 * {@code numeric(18,s)} (a long mantissa holds 18 digits), {@code f64} as {@code float8}, {@code timestamp} as
 * {@code timestamptz} (nanoseconds since the epoch, UTC), {@code symbol} and {@code char} as {@code text}.
 */
final class CatalogTypes {
    /** Digits a decimal column's long mantissa always holds. */
    static final int DECIMAL_PRECISION = 18;
    /** PostgreSQL's {@code atttypmod} header: a type modifier counts these 4 bytes. */
    private static final int VARHDRSZ = 4;

    private CatalogTypes() {
    }

    /**
     * @param column a store column.
     * @return its PostgreSQL type.
     */
    static PgType type(final Column column) {
        switch (column.type()) {
            case I8:
            case I16:
            case I32:
            case I64:
                return PgType.INT8;
            case F64:
                return PgType.FLOAT8;
            case DECIMAL:
                return PgType.NUMERIC;
            case TIMESTAMP:
                return PgType.TIMESTAMPTZ;
            default:
                return PgType.TEXT;
        }
    }

    /**
     * @param column a store column.
     * @return its {@code atttypmod}: {@code ((18 << 16) | scale) + 4} for a decimal, else -1.
     */
    static int typmod(final Column column) {
        return type(column) == PgType.NUMERIC ? (DECIMAL_PRECISION << 16 | column.scale()) + VARHDRSZ : -1;
    }

    /**
     * @param oid    a type's OID.
     * @param typmod its modifier, or -1.
     * @return {@code format_type(oid, typmod)}: {@code bigint}, {@code numeric(18,6)}, {@code timestamp with time
     *         zone}...; {@code ???} for a type tradestore does not know, as PostgreSQL writes it.
     */
    static String formatType(final long oid, final long typmod) {
        for (final PgType t : PgType.values()) {
            if (t.oid() == oid) {
                return formatType(t, typmod);
            }
        }
        return "???";
    }

    private static String formatType(final PgType t, final long typmod) {
        switch (t) {
            case BOOL:
                return "boolean";
            case INT2:
                return "smallint";
            case INT4:
                return "integer";
            case INT8:
                return "bigint";
            case FLOAT4:
                return "real";
            case FLOAT8:
                return "double precision";
            case CHAR:
                return "\"char\"";
            case VARCHAR:
                return "character varying";
            case TIMESTAMP:
                return "timestamp without time zone";
            case TIMESTAMPTZ:
                return "timestamp with time zone";
            case NUMERIC:
                if (typmod < VARHDRSZ) {
                    return "numeric";
                }
                final long m = typmod - VARHDRSZ;
                return "numeric(" + (m >> 16) + "," + (m & 0xffff) + ")";
            default:
                return t.typeName();
        }
    }
}
