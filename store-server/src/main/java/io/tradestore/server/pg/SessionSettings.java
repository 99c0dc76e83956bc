package io.tradestore.server.pg;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The run-time parameters of one PostgreSQL session, as PostgreSQL 15 names and shows them: what {@code SHOW},
 * {@code current_setting} and {@code pg_settings} answer, and what {@code SET} and {@code RESET} change. A value set
 * in a session stays in that session; one set inside a transaction block is undone by its {@code ROLLBACK}, and
 * {@code SET LOCAL} lasts until the block ends, as in PostgreSQL. Of the values, {@code statement_timeout} bounds the
 * session's queries; the others are accepted where tradestore's answers are what PostgreSQL would give with them (a
 * {@code TimeZone} other than UTC or a {@code DateStyle} other than ISO would change what PostgreSQL writes, and is
 * refused).
 */
public final class SessionSettings {
    /** The PostgreSQL version tradestore answers as; psql and the drivers pick their catalog queries by it. */
    static final String SERVER_VERSION = "15.0 (tradestore)";
    /** {@link #SERVER_VERSION} as {@code server_version_num}. */
    static final String SERVER_VERSION_NUM = "150000";

    /** Runs of blanks in a name ({@code SET TIME   ZONE}): compiled once, since names are looked up per statement. */
    private static final Pattern BLANKS = Pattern.compile("\\s+");
    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();
    private static final Map<String, String> NAMES = new LinkedHashMap<>();
    /** Parameters a session cannot change (PostgreSQL's internal and postmaster ones). */
    private static final Set<String> FIXED = Set.of("integer_datetimes", "lc_collate", "lc_ctype",
        "max_connections", "max_identifier_length", "server_encoding", "server_version", "server_version_num",
        "is_superuser");
    /** The parameters PostgreSQL 15 reports with ParameterStatus at startup and whenever they change. */
    static final List<String> REPORTED = List.of("application_name", "client_encoding", "datestyle",
        "default_transaction_read_only", "integer_datetimes", "intervalstyle", "is_superuser", "server_encoding",
        "server_version", "session_authorization", "standard_conforming_strings", "timezone");

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
        put("idle_session_timeout", "0");
        put("integer_datetimes", "on");
        put("IntervalStyle", "postgres");
        put("is_superuser", "off");
        put("jit", "off");
        put("lc_collate", "C.UTF-8");
        put("lc_ctype", "C.UTF-8");
        put("lc_messages", "C.UTF-8");
        put("lc_monetary", "C.UTF-8");
        put("lc_numeric", "C.UTF-8");
        put("lc_time", "C.UTF-8");
        put("lock_timeout", "0");
        put("max_connections", "100");
        put("max_identifier_length", "63");
        put("role", "none");
        put("search_path", "\"$user\", public");
        put("server_encoding", "UTF8");
        put("server_version", SERVER_VERSION);
        put("server_version_num", SERVER_VERSION_NUM);
        put("session_authorization", "tradestore");
        put("standard_conforming_strings", "on");
        put("statement_timeout", "0");
        put("synchronous_commit", "on");
        put("TimeZone", "UTC");
        put("transaction_isolation", "read committed");
        put("transaction_read_only", "on");
        put("work_mem", "4MB");
    }

    /** Values of the startup message: what RESET goes back to, as in PostgreSQL. */
    private final Map<String, String> startup = new HashMap<>();
    /** Values set in the session, by lower-case name; the startup values and defaults show through where none is. */
    private Map<String, String> session = new HashMap<>();
    /** {@code SET LOCAL} values, dropped when the transaction block ends. */
    private final Map<String, String> local = new HashMap<>();
    /** The session's values when its transaction block began, for a ROLLBACK to restore; null outside a block. */
    private Map<String, String> atBegin;
    /** The reported parameters' values as the client last heard them. */
    private final Map<String, String> reported = new HashMap<>();
    /** Whether a value may have changed since {@link #changedReported} last looked: most statements change none. */
    private boolean changed = true;

    /** Creates a session's settings, every parameter at its default. */
    SessionSettings() {
    }

    private static void put(final String name, final String value) {
        DEFAULTS.put(name.toLowerCase(Locale.ROOT), value);
        NAMES.put(name.toLowerCase(Locale.ROOT), name);
    }

    /**
     * @return a copy to answer a statement with no effect on this session (describing a prepared statement).
     */
    SessionSettings copy() {
        final SessionSettings c = new SessionSettings();
        c.startup.putAll(startup);
        c.session.putAll(session);
        c.local.putAll(local);
        c.atBegin = atBegin == null ? null : new HashMap<>(atBegin);
        return c;
    }

    /**
     * The value of a parameter in this session.
     *
     * @param name the parameter's name in any case; {@code transaction isolation level} and {@code time zone} as
     *             {@code SHOW} spells them are read too.
     * @return its value, or {@code null} when tradestore has no such parameter.
     */
    String value(final String name) {
        final String k = key(name);
        final String l = local.get(k);
        if (l != null) {
            return l;
        }
        final String s = session.get(k);
        return s != null ? s : resetValue(k);
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

    /** @return every parameter's lower-case name, in name order. */
    static Set<String> names() {
        return DEFAULTS.keySet();
    }

    /**
     * @param name a parameter's name.
     * @return the value RESET gives it: the startup message's, else the server's default.
     */
    String resetValue(final String name) {
        final String k = key(name);
        final String s = startup.get(k);
        return s != null ? s : DEFAULTS.get(k);
    }

    /**
     * Sets a parameter from the startup message; it is then what RESET goes back to.
     *
     * @param name  its name in any case.
     * @param value its value.
     * @throws PgFailure as {@link #set} does.
     */
    void startup(final String name, final String value) {
        final String k = changeable(name);
        startup.put(k, SessionValues.normalise(k, name(k), List.of(value), resetValue(k)));
        changed = true;
    }

    /**
     * Sets a parameter, as {@code SET} and a startup message do.
     *
     * @param name    its name in any case.
     * @param values  the value's items, as written ({@code SET search_path TO a, b} has two); empty for DEFAULT.
     * @param isLocal {@code SET LOCAL}: until the transaction block ends (no effect outside one).
     * @throws PgFailure 42704 for an unknown parameter, 55P02 for one a session cannot change, 22023 or 0A000 for
     *                   a value it does not take.
     */
    void set(final String name, final List<String> values, final boolean isLocal) {
        changed = true;
        final String k = changeable(name);
        if (values.isEmpty()) {
            reset(k, isLocal);
            return;
        }
        final String value = SessionValues.normalise(k, name(k), values, value(k));
        if (isLocal) {
            if (atBegin != null) {
                local.put(k, value);
            }
        } else {
            session.put(k, value);
            local.remove(k);
        }
    }

    /**
     * {@code RESET name}, or {@code RESET ALL} with name {@code all}.
     *
     * @param name the parameter's name in any case, or {@code all}.
     */
    void reset(final String name) {
        changed = true;
        if (name.equalsIgnoreCase("all")) {
            session.clear();
            local.clear();
            return;
        }
        final String k = changeable(name);
        reset(k, false);
    }

    private void reset(final String k, final boolean isLocal) {
        if (isLocal) {
            if (atBegin != null) {
                local.put(k, resetValue(k));
            }
        } else {
            session.remove(k);
            local.remove(k);
        }
    }

    /** A transaction block begins: what it sets is undone by ROLLBACK. */
    void begin() {
        if (atBegin == null) {
            atBegin = new HashMap<>(session);
        }
    }

    /**
     * The transaction block ends.
     *
     * @param committed whether it committed (its SETs stay) or rolled back (they are undone).
     */
    void end(final boolean committed) {
        changed = true;
        if (atBegin != null && !committed) {
            session = atBegin;
        }
        atBegin = null;
        local.clear();
    }

    /** @return the session's {@code statement_timeout} in milliseconds, 0 for none. */
    long statementTimeoutMs() {
        return SessionValues.milliseconds(value("statement_timeout"));
    }

    /**
     * The reported parameters whose values changed since the client last heard them, which the session sends as
     * ParameterStatus before its next ReadyForQuery (PostgreSQL 14 and later do it there too); marks them heard.
     *
     * @return name as PostgreSQL writes it, and value, in a stable order.
     */
    Map<String, String> changedReported() {
        if (!changed) {
            return Map.of();
        }
        changed = false;
        final Map<String, String> out = new LinkedHashMap<>();
        for (final String k : REPORTED) {
            final String v = value(k);
            if (!v.equals(reported.put(k, v))) {
                out.put(name(k), v);
            }
        }
        return out;
    }

    /** @return the key of a parameter a session may set (at startup too: {@code server_version} is the server's). */
    private static String changeable(final String name) {
        final String k = known(name);
        if (FIXED.contains(k)) {
            throw new PgFailure(PgError.of(PgError.CANT_CHANGE_RUNTIME_PARAM, "parameter \"" + name(k)
                + "\" cannot be changed"));
        }
        return k;
    }

    /**
     * @param name a name that is no configuration parameter, as written.
     * @return PostgreSQL's refusal of it (SQLSTATE 42704), which SET, SHOW and current_setting() give alike.
     */
    static PgFailure unrecognized(final String name) {
        return new PgFailure(PgError.of(PgError.UNDEFINED_OBJECT, "unrecognized configuration parameter \"" + name
            + "\""));
    }

    private static String known(final String name) {
        final String k = key(name);
        if (!DEFAULTS.containsKey(k)) {
            throw unrecognized(name.strip());
        }
        return k;
    }

    private static String key(final String name) {
        final String k = BLANKS.matcher(name.strip().toLowerCase(Locale.ROOT)).replaceAll(" ");
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
