package io.tradestore.server.pg;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The functions catalog queries call, as PostgreSQL 15 answers them for tradestore's catalog: one database
 * ({@code tradestore}), one user, one schema of tables ({@code public}), no comments, defaults, indexes or
 * privileges to hide anything. A function not here is refused with its name.
 */
final class CatalogFunctions {
    /** The one database's name, as {@code current_database()} and {@code pg_database} give it. */
    static final String DATABASE = "tradestore";
    /** The one user's name. */
    static final String USER = "tradestore";

    private CatalogFunctions() {
    }

    /**
     * @param name        the function's name in lower case, without {@code pg_catalog.}.
     * @param args        its arguments' values.
     * @param expressions the evaluator (for the catalog's relations).
     * @return its value.
     */
    static Object call(final String name, final List<Object> args, final CatalogExpressions expressions) {
        switch (name) {
            case "version":
                return "PostgreSQL " + SessionSettings.SERVER_VERSION + ", tradestore off-heap columnar trade store";
            case "current_database":
            case "current_catalog":
                return DATABASE;
            case "current_schema":
                return "public";
            case "current_schemas":
                return List.of("pg_catalog", "public");
            case "current_user":
            case "session_user":
            case "user":
            case "current_role":
            case "pg_get_userbyid":
                return USER;
            case "current_setting":
                return setting(args, expressions.tables().settings());
            case "pg_backend_pid":
                return 1L;
            case "pg_is_in_recovery":
            case "pg_relation_is_publishable":
                return false;
            case "pg_table_is_visible":
            case "pg_type_is_visible":
            case "pg_function_is_visible":
            case "has_table_privilege":
            case "has_schema_privilege":
            case "has_database_privilege":
            case "has_column_privilege":
                return true;
            case "obj_description":
            case "col_description":
            case "shobj_description":
            case "pg_get_expr":
            case "pg_get_indexdef":
            case "pg_get_constraintdef":
            case "pg_get_triggerdef":
            case "pg_get_viewdef":
            case "pg_tablespace_location":
                return null;
            case "pg_encoding_to_char":
                return "UTF8";
            case "format_type":
                return args.get(0) == null ? null : CatalogTypes.formatType(CatalogValues.toLong(args.get(0)),
                    args.size() < 2 || args.get(1) == null ? -1 : CatalogValues.toLong(args.get(1)));
            default:
                return more(name, args, expressions);
        }
    }

    private static Object more(final String name, final List<Object> args, final CatalogExpressions expressions) {
        switch (name) {
            case "to_regtype":
            case "to_regclass":
            case "to_regnamespace":
                return toReg(name.substring(3), args.get(0), expressions);
            case "parse_ident":
                return args.get(0) == null ? null : parseIdent(CatalogValues.text(args.get(0)));
            case "string_to_array":
                return args.get(0) == null ? null
                    : List.of((Object[]) CatalogValues.text(args.get(0)).split(Pattern.quote(
                        CatalogValues.text(args.get(1))), -1));
            case "array_lower":
                return args.get(0) instanceof List<?> l && !l.isEmpty() ? (Object) 1L : null;
            case "quote_ident":
                return args.get(0) == null ? null : quoteIdent(CatalogValues.text(args.get(0)));
            case "lower":
                return args.get(0) == null ? null : CatalogValues.text(args.get(0)).toLowerCase(Locale.ROOT);
            case "upper":
                return args.get(0) == null ? null : CatalogValues.text(args.get(0)).toUpperCase(Locale.ROOT);
            case "coalesce":
                for (final Object a : args) {
                    if (a != null) {
                        return a;
                    }
                }
                return null;
            case "nullif":
                return Boolean.TRUE.equals(CatalogValues.equal(args.get(0), args.get(1))) ? null : args.get(0);
            case "array":
                return args.get(0);
            case "array_to_string":
                return arrayToString(args);
            case "array_upper":
            case "array_length":
                return args.get(0) instanceof List<?> l && !l.isEmpty() ? (Object) (long) l.size() : null;
            case "replace":
                return args.get(0) == null ? null : CatalogValues.text(args.get(0))
                    .replace(CatalogValues.text(args.get(1)), CatalogValues.text(args.get(2)));
            case "concat":
                final StringBuilder s = new StringBuilder();
                for (final Object a : args) {
                    s.append(a == null ? "" : CatalogValues.text(a));
                }
                return s.toString();
            case "length":
            case "char_length":
                return args.get(0) == null ? null : (Object) (long) CatalogValues.text(args.get(0)).length();
            case "now":
            case "current_timestamp":
            case "transaction_timestamp":
            case "statement_timestamp":
                return java.time.OffsetDateTime.now(java.time.ZoneOffset.UTC).toString();
            default:
                throw CatalogQueries.refuse("the function " + name + "() is not supported in catalog queries");
        }
    }

    /**
     * @param name a function's name in lower case.
     * @return the type of its value.
     */
    static PgType type(final String name) {
        switch (name) {
            case "pg_table_is_visible":
            case "pg_type_is_visible":
            case "pg_function_is_visible":
            case "has_table_privilege":
            case "has_schema_privilege":
            case "has_database_privilege":
            case "has_column_privilege":
            case "pg_is_in_recovery":
            case "pg_relation_is_publishable":
                return PgType.BOOL;
            case "to_regtype":
            case "to_regclass":
            case "to_regnamespace":
                return PgType.OID;
            case "pg_backend_pid":
            case "length":
            case "char_length":
            case "array_upper":
            case "array_length":
                return PgType.INT4;
            case "current_database":
            case "current_catalog":
            case "current_schema":
            case "current_user":
            case "session_user":
            case "user":
            case "current_role":
            case "pg_get_userbyid":
            case "pg_encoding_to_char":
                return PgType.NAME;
            case "now":
            case "current_timestamp":
                return PgType.TIMESTAMPTZ;
            default:
                return PgType.TEXT;
        }
    }

    /**
     * Casts a value as {@code ::type} does, for the types catalog queries cast to.
     *
     * @param v      the value.
     * @param type   the type's name in lower case ({@code regclass}, {@code text}, {@code int4[]}).
     * @param tables the catalog, for {@code regclass}, {@code regtype} and {@code regnamespace}.
     * @return the cast value.
     */
    static Object cast(final Object v, final String type, final CatalogTables tables) {
        if (v == null) {
            return null;
        }
        switch (type) {
            case "regclass":
            case "regtype":
            case "regnamespace":
            case "regproc":
                return tables.reg(type, v);
            case "oid":
            case "int":
            case "int2":
            case "int4":
            case "int8":
            case "integer":
            case "smallint":
            case "bigint":
                return CatalogValues.toLong(v);
            case "bool":
            case "boolean":
                return CatalogValues.truth(v);
            case "text":
            case "name":
            case "varchar":
            case "char":
            case "\"char\"":
            case "character varying":
                return CatalogValues.text(v);
            default:
                if (type.endsWith("[]")) {
                    return v instanceof List<?> ? v : List.of(v);
                }
                throw CatalogQueries.refuse("a cast to " + type + " is not supported in catalog queries");
        }
    }

    /**
     * @param type a cast's type name in lower case.
     * @return the type of the cast's value.
     */
    static PgType castType(final String type) {
        switch (type) {
            case "oid":
            case "regclass":
            case "regtype":
            case "regnamespace":
                return type.equals("oid") ? PgType.OID : PgType.TEXT;
            case "int2":
            case "smallint":
                return PgType.INT2;
            case "int":
            case "int4":
            case "integer":
                return PgType.INT4;
            case "int8":
            case "bigint":
                return PgType.INT8;
            case "bool":
            case "boolean":
                return PgType.BOOL;
            case "name":
                return PgType.NAME;
            default:
                return PgType.TEXT;
        }
    }

    private static Object toReg(final String type, final Object name, final CatalogExpressions expressions) {
        if (name == null) {
            return null;
        }
        try {
            return expressions.tables().reg(type, name);
        } catch (final io.tradestore.query.QueryException e) {
            return null;
        }
    }

    private static List<Object> parseIdent(final String name) {
        final List<Object> parts = new ArrayList<>();
        final StringBuilder part = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < name.length(); i++) {
            final char c = name.charAt(i);
            if (c == '"') {
                if (quoted && i + 1 < name.length() && name.charAt(i + 1) == '"') {
                    part.append('"');
                    i++;
                } else {
                    quoted = !quoted;
                }
            } else if (c == '.' && !quoted) {
                parts.add(part.toString());
                part.setLength(0);
            } else {
                part.append(quoted ? c : Character.toLowerCase(c));
            }
        }
        parts.add(part.toString());
        return parts;
    }

    private static Object setting(final List<Object> args, final SessionSettings settings) {
        final String name = CatalogValues.text(args.get(0));
        if (name == null) {
            return null; // strict, as PostgreSQL's
        }
        final String value = settings.value(name);
        if (value == null && (args.size() < 2 || !CatalogValues.isTrue(args.get(1)))) {
            throw SessionSettings.unrecognized(name);
        }
        return value;
    }

    private static Object arrayToString(final List<Object> args) {
        if (!(args.get(0) instanceof List<?> list)) {
            return null;
        }
        final List<String> parts = new ArrayList<>();
        for (final Object e : list) {
            if (e != null) {
                parts.add(CatalogValues.text(e));
            }
        }
        return String.join(CatalogValues.text(args.get(1)), parts);
    }

    /**
     * @param name a name.
     * @return it quoted as {@code quote_ident} quotes it: only when it is not a plain lower-case name.
     */
    static String quoteIdent(final String name) {
        if (name.matches("[a-z_][a-z0-9_$]*")) {
            return name;
        }
        return '"' + name.replace("\"", "\"\"") + '"';
    }
}
