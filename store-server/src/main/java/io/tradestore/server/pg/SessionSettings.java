package io.tradestore.server.pg;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The run-time parameters tradestore reports, as PostgreSQL 15 names and shows them: what {@code SHOW},
 * {@code current_setting} and {@code pg_settings} answer. The values are fixed: a {@code SET} is accepted and
 * changes nothing, because the answers do not depend on it (timestamps are written with their offset, text is UTF-8).
 */
final class SessionSettings {
    /** The PostgreSQL version tradestore answers as; psql and the drivers pick their catalog queries by it. */
    static final String SERVER_VERSION = "15.0 (tradestore)";
    /** {@link #SERVER_VERSION} as {@code server_version_num}. */
    static final String SERVER_VERSION_NUM = "150000";

    private static final Map<String, String> VALUES = new LinkedHashMap<>();
    private static final Map<String, String> NAMES = new LinkedHashMap<>();

    static {
        put("application_name", "");
        put("bytea_output", "hex");
        put("client_encoding", "UTF8");
        put("client_min_messages", "notice");
        put("DateStyle", "ISO, MDY");
        put("default_table_access_method", "heap");
        put("default_transaction_isolation", "read committed");
        put("default_transaction_read_only", "on");
        put("extra_float_digits", "1");
        put("idle_in_transaction_session_timeout", "0");
        put("integer_datetimes", "on");
        put("IntervalStyle", "postgres");
        put("is_superuser", "off");
        put("lc_collate", "C.UTF-8");
        put("lc_ctype", "C.UTF-8");
        put("lc_messages", "C.UTF-8");
        put("lc_monetary", "C.UTF-8");
        put("lc_numeric", "C.UTF-8");
        put("lc_time", "C.UTF-8");
        put("lock_timeout", "0");
        put("max_connections", "100");
        put("max_identifier_length", "63");
        put("search_path", "\"$user\", public");
        put("server_encoding", "UTF8");
        put("server_version", SERVER_VERSION);
        put("server_version_num", SERVER_VERSION_NUM);
        put("session_authorization", "tradestore");
        put("standard_conforming_strings", "on");
        put("statement_timeout", "0");
        put("TimeZone", "UTC");
        put("transaction_isolation", "read committed");
        put("transaction_read_only", "on");
    }

    private SessionSettings() {
    }

    private static void put(final String name, final String value) {
        VALUES.put(name.toLowerCase(Locale.ROOT), value);
        NAMES.put(name.toLowerCase(Locale.ROOT), name);
    }

    /**
     * The value of a parameter.
     *
     * @param name the parameter's name in any case; {@code transaction isolation level} and {@code time zone} as
     *             {@code SHOW} spells them are read too.
     * @return its value, or {@code null} when tradestore has no such parameter.
     */
    static String value(final String name) {
        return VALUES.get(key(name));
    }

    /**
     * The parameter's name as PostgreSQL writes it ({@code TimeZone}, {@code DateStyle}).
     *
     * @param name the parameter's name in any case.
     * @return its name, or {@code null} when tradestore has no such parameter.
     */
    static String name(final String name) {
        return NAMES.get(key(name));
    }

    /** @return every parameter by its lower-case name, in name order. */
    static Map<String, String> all() {
        return VALUES;
    }

    private static String key(final String name) {
        final String k = name.strip().toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
        switch (k) {
            case "transaction isolation level":
                return "transaction_isolation";
            case "time zone":
                return "timezone";
            case "session authorization":
                return "session_authorization";
            default:
                return k.startsWith("\"") && k.endsWith("\"") && k.length() > 1 ? k.substring(1, k.length() - 1) : k;
        }
    }
}
