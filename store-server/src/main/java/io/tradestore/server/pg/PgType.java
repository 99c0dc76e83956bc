package io.tradestore.server.pg;

/**
 * The PostgreSQL types tradestore answers with, by their {@code pg_type} OID: the five its columns map to (int8,
 * numeric, float8, timestamptz, text) and the ones catalog answers need.
 */
public enum PgType {
    BOOL(16, 1, "bool"),
    NAME(19, 64, "name"),
    INT8(20, 8, "int8"),
    INT2(21, 2, "int2"),
    INT4(23, 4, "int4"),
    TEXT(25, -1, "text"),
    OID(26, 4, "oid"),
    FLOAT4(700, 4, "float4"),
    FLOAT8(701, 8, "float8"),
    CHAR(18, 1, "char"),
    VARCHAR(1043, -1, "varchar"),
    TIMESTAMP(1114, 8, "timestamp"),
    TIMESTAMPTZ(1184, 8, "timestamptz"),
    NUMERIC(1700, -1, "numeric");

    private final int oid;
    private final int length;
    private final String typeName;

    PgType(final int oid, final int length, final String typeName) {
        this.oid = oid;
        this.length = length;
        this.typeName = typeName;
    }

    /**
     * The type's OID, as {@code RowDescription} and {@code pg_type.oid} carry it.
     *
     * @return the OID.
     */
    public int oid() {
        return oid;
    }

    /**
     * The type's size in bytes as {@code pg_type.typlen} gives it: -1 for variable length.
     *
     * @return the size.
     */
    public int length() {
        return length;
    }

    /**
     * The type's name in {@code pg_type.typname}.
     *
     * @return the name.
     */
    public String typeName() {
        return typeName;
    }
}
