package io.tradestore.server.pg;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.Schema;

/**
 * The catalog relations tradestore answers, each with the columns PostgreSQL 15 gives it (those clients read; a
 * column not listed is refused by name, never answered as NULL), and how each is filled from the store.
 */
final class CatalogRelationSpecs {
    /** The OIDs of catalog relations that clients name in casts ({@code 'pg_class'::regclass}). */
    static final Map<String, Long> CATALOG_OIDS = Map.of("pg_class", 1259L, "pg_type", 1247L, "pg_attribute", 1249L,
        "pg_proc", 1255L, "pg_namespace", 2615L, "pg_description", 2609L, "pg_constraint", 2606L, "pg_index", 2610L,
        "pg_database", 1262L, "pg_trigger", 2620L);

    private static final Map<String, String> EMPTY = Map.ofEntries(
        Map.entry("pg_catalog.pg_description", "objoid:oid classoid:oid objsubid:int4 description:text"),
        Map.entry("pg_catalog.pg_attrdef", "oid:oid adrelid:oid adnum:int2 adbin:text"),
        Map.entry("pg_catalog.pg_index", "indexrelid:oid indrelid:oid indnatts:int2 indnkeyatts:int2 indisunique:bool"
            + " indisprimary:bool indisexclusion:bool indimmediate:bool indisclustered:bool indisvalid:bool"
            + " indcheckxmin:bool indisready:bool indislive:bool indisreplident:bool indkey:text indcollation:text"
            + " indclass:text indoption:text indexprs:text indpred:text indnullsnotdistinct:bool"),
        Map.entry("pg_catalog.pg_constraint", "oid:oid conname:name connamespace:oid contype:char condeferrable:bool"
            + " condeferred:bool convalidated:bool conrelid:oid contypid:oid conindid:oid conparentid:oid confrelid:oid"
            + " confupdtype:char confdeltype:char confmatchtype:char conislocal:bool coninhcount:int4"
            + " connoinherit:bool conkey:text confkey:text conpfeqop:text conppeqop:text conffeqop:text"
            + " confdelsetcols:text conexclop:text conbin:text"),
        Map.entry("pg_catalog.pg_inherits", "inhrelid:oid inhparent:oid inhseqno:int4 inhdetachpending:bool"),
        Map.entry("pg_catalog.pg_policy", "oid:oid polname:name polrelid:oid polcmd:char polpermissive:bool"
            + " polroles:text polqual:text polwithcheck:text"),
        Map.entry("pg_catalog.pg_statistic_ext", "oid:oid stxrelid:oid stxname:name stxnamespace:oid stxowner:oid"
            + " stxstattarget:int4 stxkeys:text stxkind:text stxexprs:text"),
        Map.entry("pg_catalog.pg_publication", "oid:oid pubname:name pubowner:oid puballtables:bool pubinsert:bool"
            + " pubupdate:bool pubdelete:bool pubtruncate:bool pubviaroot:bool"),
        Map.entry("pg_catalog.pg_publication_namespace", "oid:oid pnpubid:oid pnnspid:oid"),
        Map.entry("pg_catalog.pg_publication_rel", "oid:oid prpubid:oid prrelid:oid prqual:text prattrs:text"),
        Map.entry("pg_catalog.pg_trigger", "oid:oid tgrelid:oid tgparentid:oid tgname:name tgfoid:oid tgtype:int2"
            + " tgenabled:char tgisinternal:bool tgconstrrelid:oid tgconstrindid:oid tgconstraint:oid"
            + " tgdeferrable:bool tginitdeferred:bool tgnargs:int2 tgattr:text tgargs:text tgqual:text"
            + " tgoldtable:name tgnewtable:name"),
        Map.entry("pg_catalog.pg_rewrite", "oid:oid rulename:name ev_class:oid ev_type:char ev_enabled:char"
            + " is_instead:bool ev_qual:text ev_action:text"),
        Map.entry("pg_catalog.pg_foreign_table", "ftrelid:oid ftserver:oid ftoptions:text"),
        Map.entry("pg_catalog.pg_partitioned_table", "partrelid:oid partstrat:char partnatts:int2 partdefid:oid"
            + " partattrs:text partclass:text partcollation:text partexprs:text"),
        Map.entry("pg_catalog.pg_sequence", "seqrelid:oid seqtypid:oid seqstart:int8 seqincrement:int8 seqmax:int8"
            + " seqmin:int8 seqcache:int8 seqcycle:bool"),
        Map.entry("pg_catalog.pg_depend", "classid:oid objid:oid objsubid:int4 refclassid:oid refobjid:oid"
            + " refobjsubid:int4 deptype:char"),
        Map.entry("pg_catalog.pg_enum", "oid:oid enumtypid:oid enumsortorder:float4 enumlabel:name"),
        Map.entry("pg_catalog.pg_extension", "oid:oid extname:name extowner:oid extnamespace:oid"
            + " extrelocatable:bool extversion:text extconfig:text extcondition:text"),
        Map.entry("pg_catalog.pg_proc", "oid:oid proname:name pronamespace:oid proowner:oid prolang:oid"
            + " prokind:char prorettype:oid proargtypes:text proretset:bool"),
        Map.entry("pg_catalog.pg_opclass", "oid:oid opcmethod:oid opcname:name opcnamespace:oid opcowner:oid"
            + " opcfamily:oid opcintype:oid opcdefault:bool opckeytype:oid"),
        Map.entry("information_schema.views", "table_catalog:name table_schema:name table_name:name"
            + " view_definition:text check_option:text is_updatable:text is_insertable_into:text"),
        Map.entry("information_schema.table_constraints", "constraint_catalog:name constraint_schema:name"
            + " constraint_name:name table_catalog:name table_schema:name table_name:name constraint_type:text"
            + " is_deferrable:text initially_deferred:text enforced:text nulls_distinct:text"),
        Map.entry("information_schema.key_column_usage", "constraint_catalog:name constraint_schema:name"
            + " constraint_name:name table_catalog:name table_schema:name table_name:name column_name:name"
            + " ordinal_position:int4 position_in_unique_constraint:int4"));

    private CatalogRelationSpecs() {
    }

    /**
     * @param qualified the relation's schema-qualified name in lower case.
     * @param tables    the catalog, for the store's tables.
     * @return the relation, or {@code null} when tradestore has no such relation.
     */
    static CatalogRelation build(final String qualified, final CatalogTables tables) {
        final String empty = EMPTY.get(qualified);
        if (empty != null) {
            return relation(qualified, empty, List.of());
        }
        switch (qualified) {
            case "pg_catalog.pg_namespace":
                return relation(qualified, "oid:oid nspname:name nspowner:oid nspacl:text", List.of(
                    new Object[] {CatalogTables.PG_CATALOG_OID, "pg_catalog", CatalogTables.USER_OID, null},
                    new Object[] {CatalogTables.PUBLIC_OID, "public", CatalogTables.USER_OID, null},
                    new Object[] {CatalogTables.INFORMATION_SCHEMA_OID, "information_schema", CatalogTables.USER_OID,
                        null}));
            case "pg_catalog.pg_class":
                return pgClass(qualified, tables.schemas());
            case "pg_catalog.pg_attribute":
                return pgAttribute(qualified, tables.schemas());
            case "pg_catalog.pg_type":
                return CatalogPgType.relation(qualified);
            case "pg_catalog.pg_am":
                return relation(qualified, "oid:oid amname:name amhandler:text amtype:char", List.of(
                    new Object[] {2L, "heap", "heap_tableam_handler", "t"},
                    new Object[] {403L, "btree", "bthandler", "i"}));
            case "pg_catalog.pg_database":
                return relation(qualified, "oid:oid datname:name datdba:oid encoding:int4 datlocprovider:char"
                    + " datistemplate:bool datallowconn:bool datconnlimit:int4 dattablespace:oid datcollate:text"
                    + " datctype:text daticulocale:text datcollversion:text datacl:text", List.<Object[]>of(
                        new Object[] {16_383L, CatalogFunctions.DATABASE, CatalogTables.USER_OID, 6L, "c", false, true,
                            -1L, 1663L, "C.UTF-8", "C.UTF-8", null, null, null}));
            case "pg_catalog.pg_roles":
            case "pg_catalog.pg_user":
                return roles(qualified);
            case "pg_catalog.pg_tablespace":
                return relation(qualified, "oid:oid spcname:name spcowner:oid spcacl:text spcoptions:text", List.of(
                    new Object[] {1663L, "pg_default", CatalogTables.USER_OID, null, null},
                    new Object[] {1664L, "pg_global", CatalogTables.USER_OID, null, null}));
            case "pg_catalog.pg_collation":
                return relation(qualified, "oid:oid collname:name collnamespace:oid collowner:oid collprovider:char"
                    + " collisdeterministic:bool collencoding:int4 collcollate:text collctype:text", List.<Object[]>of(
                        new Object[] {100L, "default", CatalogTables.PG_CATALOG_OID, CatalogTables.USER_OID, "d", true,
                            -1L, null, null}));
            case "pg_catalog.pg_settings":
                return settings(qualified, tables.settings());
            default:
                return CatalogInformationSchema.build(qualified, tables);
        }
    }

    /**
     * @param name    the relation's name.
     * @param columns its columns as {@code name:type} words ({@code oid name text bool char int2 int4 int8 float4}).
     * @param rows    its rows.
     * @return the relation.
     */
    static CatalogRelation relation(final String name, final String columns, final List<Object[]> rows) {
        final List<PgColumn> cols = new ArrayList<>();
        for (final String c : columns.split(" ")) {
            final int colon = c.indexOf(':');
            cols.add(new PgColumn(c.substring(0, colon), pgType(c.substring(colon + 1))));
        }
        return new CatalogRelation(name, cols, rows);
    }

    private static PgType pgType(final String name) {
        for (final PgType t : PgType.values()) {
            if (t.typeName().equals(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("no PgType " + name);
    }

    private static CatalogRelation pgClass(final String name, final List<Schema> schemas) {
        final List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < schemas.size(); i++) {
            final Schema s = schemas.get(i);
            rows.add(new Object[] {CatalogTables.tableOid(i), s.name(), CatalogTables.PUBLIC_OID, 0L, 0L,
                CatalogTables.USER_OID, 2L, 0L, 0L, -1.0, 0L, false, false, "p", "r", (long) s.columnCount(), 0L,
                false, false, false, false, false, true, "d", false, null, null, null});
        }
        return relation(name, "oid:oid relname:name relnamespace:oid reltype:oid reloftype:oid relowner:oid"
            + " relam:oid reltablespace:oid relpages:int4 reltuples:float4 reltoastrelid:oid relhasindex:bool"
            + " relisshared:bool relpersistence:char relkind:char relnatts:int2 relchecks:int2 relhasrules:bool"
            + " relhastriggers:bool relhassubclass:bool relrowsecurity:bool relforcerowsecurity:bool"
            + " relispopulated:bool relreplident:char relispartition:bool relacl:text reloptions:text"
            + " relpartbound:text", rows);
    }

    private static CatalogRelation pgAttribute(final String name, final List<Schema> schemas) {
        final List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < schemas.size(); i++) {
            for (final Column c : schemas.get(i).columns()) {
                final PgType t = CatalogTypes.type(c);
                rows.add(new Object[] {CatalogTables.tableOid(i), c.name(), (long) t.oid(), -1L, (long) t.length(),
                    (long) c.index() + 1, 0L, (long) CatalogTypes.typmod(c), t.length() > 0, t == PgType.TEXT ? "x"
                    : "p", false, false, false, "", "", false, true, 0L, t == PgType.TEXT ? 100L : 0L, null, null});
            }
        }
        return relation(name, "attrelid:oid attname:name atttypid:oid attstattarget:int4 attlen:int2 attnum:int2"
            + " attndims:int4 atttypmod:int4 attbyval:bool attstorage:char attnotnull:bool atthasdef:bool"
            + " atthasmissing:bool attidentity:char attgenerated:char attisdropped:bool attislocal:bool"
            + " attinhcount:int4 attcollation:oid attacl:text attoptions:text", rows);
    }

    private static CatalogRelation roles(final String name) {
        if (name.endsWith("pg_user")) {
            return relation(name, "usename:name usesysid:oid usecreatedb:bool usesuper:bool userepl:bool"
                + " usebypassrls:bool passwd:text valuntil:timestamptz useconfig:text", List.<Object[]>of(
                    new Object[] {CatalogFunctions.USER, CatalogTables.USER_OID, false, false, false, false,
                        "********", null, null}));
        }
        return relation(name, "oid:oid rolname:name rolsuper:bool rolinherit:bool rolcreaterole:bool"
            + " rolcreatedb:bool rolcanlogin:bool rolreplication:bool rolconnlimit:int4 rolpassword:text"
            + " rolvaliduntil:timestamptz rolbypassrls:bool rolconfig:text", List.<Object[]>of(
                new Object[] {CatalogTables.USER_OID, CatalogFunctions.USER, false, true, false, false, true, false,
                    -1L, "********", null, false, null}));
    }

    private static CatalogRelation settings(final String name, final SessionSettings settings) {
        final List<Object[]> rows = new ArrayList<>();
        for (final String key : SessionSettings.names()) {
            final String value = settings.value(key);
            final String reset = settings.resetValue(key);
            rows.add(new Object[] {SessionSettings.name(key), value, null, "", "", null, "user", "string",
                value.equals(reset) ? "default" : "session", null, null, null, reset, reset, null, null, false});
        }
        return relation(name, "name:text setting:text unit:text category:text short_desc:text extra_desc:text"
            + " context:text vartype:text source:text min_val:text max_val:text enumvals:text boot_val:text"
            + " reset_val:text sourcefile:text sourceline:int4 pending_restart:bool", rows);
    }
}
