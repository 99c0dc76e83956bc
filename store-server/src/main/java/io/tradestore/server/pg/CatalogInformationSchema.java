package io.tradestore.server.pg;

import java.util.ArrayList;
import java.util.List;

import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.Schema;

/** {@code information_schema.tables}, {@code columns} and {@code schemata}, built from the store's tables. */
final class CatalogInformationSchema {
    private CatalogInformationSchema() {
    }

    /**
     * @param qualified the relation's schema-qualified name in lower case.
     * @param tables    the catalog.
     * @return the relation, or {@code null} when tradestore has no such relation.
     */
    static CatalogRelation build(final String qualified, final CatalogTables tables) {
        switch (qualified) {
            case "information_schema.schemata":
                final List<Object[]> schemata = new ArrayList<>();
                for (final String s : List.of("information_schema", "pg_catalog", "public")) {
                    schemata.add(new Object[] {CatalogFunctions.DATABASE, s, CatalogFunctions.USER, null, null, null,
                        null});
                }
                return CatalogRelationSpecs.relation(qualified, "catalog_name:name schema_name:name schema_owner:name"
                    + " default_character_set_catalog:name default_character_set_schema:name"
                    + " default_character_set_name:name sql_path:text", schemata);
            case "information_schema.tables":
                return tables(qualified, tables.schemas());
            case "information_schema.columns":
                return columns(qualified, tables.schemas());
            default:
                return null;
        }
    }

    private static CatalogRelation tables(final String name, final List<Schema> schemas) {
        final List<Object[]> rows = new ArrayList<>();
        for (final Schema s : schemas) {
            rows.add(new Object[] {CatalogFunctions.DATABASE, "public", s.name(), "BASE TABLE", null, null, null,
                null, null, "NO", "NO", null});
        }
        return CatalogRelationSpecs.relation(name, "table_catalog:name table_schema:name table_name:name"
            + " table_type:text self_referencing_column_name:name reference_generation:text"
            + " user_defined_type_catalog:name user_defined_type_schema:name user_defined_type_name:name"
            + " is_insertable_into:text is_typed:text commit_action:text", rows);
    }

    private static CatalogRelation columns(final String name, final List<Schema> schemas) {
        final List<Object[]> rows = new ArrayList<>();
        for (final Schema s : schemas) {
            for (final Column c : s.columns()) {
                final PgType t = CatalogTypes.type(c);
                final boolean numeric = t == PgType.NUMERIC;
                final boolean integral = t == PgType.INT2 || t == PgType.INT4 || t == PgType.INT8;
                final Long precision = numeric ? (Long) (long) CatalogTypes.DECIMAL_PRECISION
                    : integral ? (Long) (long) (t.length() * 8 - 1) : t == PgType.FLOAT8 ? (Long) 53L : null;
                final Long radix = numeric ? (Long) 10L : integral || t == PgType.FLOAT8 ? (Long) 2L : null;
                rows.add(new Object[] {CatalogFunctions.DATABASE, "public", s.name(), c.name(), (long) c.index() + 1,
                    null, "YES", dataType(t), null, t == PgType.TEXT ? (Long) 1_073_741_824L : null, precision, radix,
                    numeric ? (Long) (long) c.scale() : integral ? (Long) 0L : null,
                    t == PgType.TIMESTAMPTZ ? (Long) 6L : null, null, null, CatalogFunctions.DATABASE, "pg_catalog",
                    t.typeName(), "NO", "NEVER", "NO"});
            }
        }
        return CatalogRelationSpecs.relation(name, "table_catalog:name table_schema:name table_name:name"
            + " column_name:name ordinal_position:int4 column_default:text is_nullable:text data_type:text"
            + " character_maximum_length:int4 character_octet_length:int4 numeric_precision:int4"
            + " numeric_precision_radix:int4 numeric_scale:int4 datetime_precision:int4 interval_type:text"
            + " interval_precision:int4 udt_catalog:name udt_schema:name udt_name:name is_identity:text"
            + " is_generated:text is_updatable:text", rows);
    }

    private static String dataType(final PgType t) {
        return CatalogTypes.formatType(t.oid(), -1);
    }
}
