package io.tradestore.server.pg;

import java.util.ArrayList;
import java.util.List;

/** {@code pg_type}: the types of {@link PgType}, as PostgreSQL 15's {@code pg_type} rows describe them. */
final class CatalogPgType {
    private CatalogPgType() {
    }

    /**
     * @param name the relation's name.
     * @return {@code pg_type}.
     */
    static CatalogRelation relation(final String name) {
        final List<Object[]> rows = new ArrayList<>();
        for (final PgType t : PgType.values()) {
            rows.add(new Object[] {(long) t.oid(), t.typeName(), CatalogTables.PG_CATALOG_OID, CatalogTables.USER_OID,
                (long) t.length(), t.length() > 0 && t.length() <= 8, "b", category(t), preferred(t), true, ",", 0L,
                0L, arrayOid(t), t.typeName() + "in", t.typeName() + "out", t.typeName() + "recv",
                t.typeName() + "send", t.length() == 8 ? "d" : t.length() == 4 ? "i" : t.length() == 2 ? "s" : "c",
                t.length() > 0 ? "p" : "x", false, 0L, -1L, 0L, collation(t), null, null, null});
        }
        return CatalogRelationSpecs.relation(name, "oid:oid typname:name typnamespace:oid typowner:oid typlen:int2"
            + " typbyval:bool typtype:char typcategory:char typispreferred:bool typisdefined:bool typdelim:char"
            + " typrelid:oid typelem:oid typarray:oid typinput:text typoutput:text typreceive:text typsend:text"
            + " typalign:char typstorage:char typnotnull:bool typbasetype:oid typtypmod:int4 typndims:int4"
            + " typcollation:oid typdefaultbin:text typdefault:text typacl:text", rows);
    }

    private static String category(final PgType t) {
        switch (t) {
            case BOOL:
                return "B";
            case INT2:
            case INT4:
            case INT8:
            case OID:
            case FLOAT4:
            case FLOAT8:
            case NUMERIC:
                return "N";
            case TIMESTAMP:
            case TIMESTAMPTZ:
                return "D";
            default:
                return "S";
        }
    }

    private static boolean preferred(final PgType t) {
        return t == PgType.BOOL || t == PgType.FLOAT8 || t == PgType.TEXT || t == PgType.TIMESTAMPTZ
            || t == PgType.OID;
    }

    private static long collation(final PgType t) {
        return t == PgType.TEXT || t == PgType.VARCHAR || t == PgType.NAME ? 100L : 0L;
    }

    private static long arrayOid(final PgType t) {
        switch (t) {
            case BOOL:
                return 1000;
            case NAME:
                return 1003;
            case INT8:
                return 1016;
            case INT2:
                return 1005;
            case INT4:
                return 1007;
            case TEXT:
                return 1009;
            case OID:
                return 1028;
            case FLOAT4:
                return 1021;
            case FLOAT8:
                return 1022;
            case CHAR:
                return 1002;
            case VARCHAR:
                return 1015;
            case TIMESTAMP:
                return 1115;
            case TIMESTAMPTZ:
                return 1185;
            case NUMERIC:
                return 1231;
            default:
                return 0;
        }
    }
}
