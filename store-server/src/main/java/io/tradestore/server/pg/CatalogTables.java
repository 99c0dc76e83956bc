package io.tradestore.server.pg;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.tradestore.core.Store;
import io.tradestore.core.StoreException;
import io.tradestore.core.schema.Schema;

/**
 * The catalog relations of one catalog query, built from the store when the query reads them: {@code pg_class},
 * {@code pg_attribute}, {@code information_schema.columns} and the rest describe the store's tables, one schema
 * ({@code public}), one database and one user; the relations of features tradestore does not have (indexes,
 * constraints, defaults, comments, inheritance, policies, publications) are there and empty, so a client's query of
 * them answers no rows, as PostgreSQL does for a table without them. {@link CatalogRelationSpecs} lists them all.
 */
final class CatalogTables {
    /** {@code pg_catalog}'s OID. */
    static final long PG_CATALOG_OID = 11;
    /** {@code public}'s OID. */
    static final long PUBLIC_OID = 2200;
    /** {@code information_schema}'s OID. */
    static final long INFORMATION_SCHEMA_OID = 13_000;
    /** The one user's OID (PostgreSQL's bootstrap superuser has 10). */
    static final long USER_OID = 10;
    /** The first table's OID: the store's tables, sorted by name, take the OIDs from here on. */
    static final long FIRST_TABLE_OID = 16_384;

    private final Store store;
    private final SessionSettings settings;
    private final Map<String, CatalogRelation> built = new HashMap<>();
    private List<Schema> schemas;

    /**
     * @param store    the store described.
     * @param settings the session's parameters ({@code pg_settings}, {@code current_setting}).
     */
    CatalogTables(final Store store, final SessionSettings settings) {
        this.store = store;
        this.settings = settings;
    }

    /** @return the parameters of the session whose query this is. */
    SessionSettings settings() {
        return settings;
    }

    /**
     * @param name a table's name.
     * @return whether it is one of the store's tables.
     */
    boolean isStoreTable(final String name) {
        return store.hasTable(name);
    }

    /**
     * @param schema the relation's schema in lower case ({@code pg_catalog}, {@code information_schema}), or
     *               {@code null} when the query does not name one.
     * @param name   the relation's name in lower case.
     * @return the relation, or {@code null} when the catalog has no such relation.
     */
    CatalogRelation relation(final String schema, final String name) {
        final String qualified = schema != null ? schema + "." + name
            : name.startsWith("pg_") ? "pg_catalog." + name : "information_schema." + name;
        CatalogRelation r = built.get(qualified);
        if (r == null) {
            r = CatalogRelationSpecs.build(qualified, this);
            if (r != null) {
                built.put(qualified, r);
            }
        }
        return r;
    }

    /** @return the schemas of the store's tables, sorted by name; a table whose schema cannot be read is left out. */
    List<Schema> schemas() {
        if (schemas == null) {
            schemas = new ArrayList<>();
            for (final String name : store.tableNames()) {
                try {
                    schemas.add(store.table(name).schema());
                } catch (final StoreException e) {
                    continue;
                }
            }
        }
        return schemas;
    }

    /**
     * @param index a table's place in {@link #schemas()}.
     * @return its OID.
     */
    static long tableOid(final int index) {
        return FIRST_TABLE_OID + index;
    }

    /**
     * The value of a cast to {@code regclass}, {@code regtype} or {@code regnamespace}: a name becomes its OID, and
     * an OID its name (as the cast's text form shows it).
     *
     * @param type  {@code regclass}, {@code regtype}, {@code regnamespace} or {@code regproc}.
     * @param value the value cast.
     * @return the OID or the name.
     */
    Object reg(final String type, final Object value) {
        final boolean byOid = value instanceof Number || CatalogValues.text(value).matches("\\d+");
        switch (type) {
            case "regclass":
                return byOid ? className(CatalogValues.toLong(value)) : classOid(CatalogValues.text(value));
            case "regnamespace":
                return byOid ? namespaceName(CatalogValues.toLong(value)) : namespaceOid(CatalogValues.text(value));
            case "regtype":
                return byOid ? CatalogTypes.formatType(CatalogValues.toLong(value), -1) : typeOid(value);
            default:
                final String proc = CatalogValues.text(value).strip();
                return proc.startsWith("pg_catalog.") ? proc.substring("pg_catalog.".length()) : proc;
        }
    }

    private Object className(final long oid) {
        final List<Schema> s = schemas();
        final long i = oid - FIRST_TABLE_OID;
        if (i >= 0 && i < s.size()) {
            return s.get((int) i).name();
        }
        for (final Map.Entry<String, Long> e : CatalogRelationSpecs.CATALOG_OIDS.entrySet()) {
            if (e.getValue() == oid) {
                return e.getKey();
            }
        }
        return String.valueOf(oid);
    }

    private Object classOid(final String text) {
        String name = text.strip().replace("\"", "").toLowerCase(Locale.ROOT);
        final int dot = name.lastIndexOf('.');
        name = dot < 0 ? name : name.substring(dot + 1);
        final List<Schema> s = schemas();
        for (int i = 0; i < s.size(); i++) {
            if (s.get(i).name().equals(name)) {
                return tableOid(i);
            }
        }
        final Long oid = CatalogRelationSpecs.CATALOG_OIDS.get(name);
        if (oid == null) {
            throw new io.tradestore.query.QueryException(io.tradestore.query.ErrorCode.UNKNOWN_TABLE,
                "relation \"" + text + "\" does not exist", "");
        }
        return oid;
    }

    private static Object namespaceName(final long oid) {
        return oid == PG_CATALOG_OID ? "pg_catalog" : oid == PUBLIC_OID ? "public"
            : oid == INFORMATION_SCHEMA_OID ? "information_schema" : String.valueOf(oid);
    }

    private static Object namespaceOid(final String name) {
        switch (name.strip().toLowerCase(Locale.ROOT)) {
            case "pg_catalog":
                return PG_CATALOG_OID;
            case "public":
                return PUBLIC_OID;
            case "information_schema":
                return INFORMATION_SCHEMA_OID;
            default:
                throw CatalogQueries.refuse("schema \"" + name + "\" does not exist");
        }
    }

    private static Object typeOid(final Object name) {
        final String n = CatalogValues.text(name).strip().toLowerCase(Locale.ROOT);
        for (final PgType t : PgType.values()) {
            if (t.typeName().equals(n) || CatalogTypes.formatType(t.oid(), -1).equals(n)) {
                return (long) t.oid();
            }
        }
        throw CatalogQueries.refuse("type \"" + n + "\" does not exist");
    }
}
