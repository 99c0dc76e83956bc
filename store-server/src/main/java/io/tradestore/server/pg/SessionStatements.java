package io.tradestore.server.pg;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The session statements clients send when they connect and around their queries: {@code SET}, {@code SHOW},
 * {@code RESET}, the transaction statements and {@code DISCARD}. tradestore is read-only over SQL and every answer is
 * already consistent (a query reads one committed snapshot), so a transaction is answered with its tag; {@code SET}
 * and {@code RESET} change the session's {@link SessionSettings}, which {@code SHOW} reads back.
 */
final class SessionStatements {
    private static final Pattern SET = Pattern.compile(
        "(?is)set\\s+(?:(session|local)\\s+)?(?:(time\\s+zone|names|schema)\\s+"
        + "|(\"(?:[^\"]|\"\")+\"|[a-z_][a-z0-9_.$]*)\\s*(?:=|\\bto\\b)\\s*)(.*)");
    /** What SET accepts and PostgreSQL keeps no parameter for: the transaction's characteristics, the role. */
    private static final Pattern SET_NO_PARAMETER = Pattern.compile(
        "(?is)set\\s+(?:(?:session|local)\\s+)?(?:transaction\\b|session\\s+characteristics\\b|role\\b|"
        + "session\\s+authorization\\b|constraints\\b).*");
    private static final Pattern VALUE = Pattern.compile("\\s*(?:'((?:[^']|'')*)'|\"((?:[^\"]|\"\")*)\"|([^,'\"\\s]+))"
        + "\\s*(,|$)");
    private static final PgColumn SHOW_NAME = new PgColumn("name", PgType.TEXT);
    private static final PgColumn SHOW_SETTING = new PgColumn("setting", PgType.TEXT);
    private static final PgColumn SHOW_DESCRIPTION = new PgColumn("description", PgType.TEXT);

    private SessionStatements() {
    }

    /**
     * Answers a session statement.
     *
     * @param sql      the statement, without leading comments and blanks and without a trailing semicolon.
     * @param first    its first word, in lower case.
     * @param settings the session's parameters, which SET and RESET change.
     * @return the answer, or {@code null} when {@code first} does not start a session statement.
     */
    static PgAnswer answer(final String sql, final String first, final SessionSettings settings) {
        switch (first) {
            case "set":
                return set(sql, settings);
            case "show":
                return show(sql.substring(4).strip(), settings);
            case "reset":
                settings.reset(sql.substring(5).strip());
                return command("RESET");
            case "begin":
                return command("BEGIN");
            case "start":
                return command("START TRANSACTION");
            case "commit":
            case "end":
                return command("COMMIT");
            case "rollback":
            case "abort":
                return command("ROLLBACK");
            case "savepoint":
                return command("SAVEPOINT");
            case "release":
                return command("RELEASE");
            case "discard":
                final String what = sql.substring(7).strip().toUpperCase(Locale.ROOT);
                if (what.equals("ALL")) {
                    settings.reset("all");
                }
                return command("DISCARD " + what);
            default:
                return null;
        }
    }

    private static PgAnswer set(final String sql, final SessionSettings settings) {
        if (SET_NO_PARAMETER.matcher(sql).matches()) {
            return command("SET");
        }
        final Matcher m = SET.matcher(sql);
        if (!m.matches()) {
            throw new PgFailure(PgError.of(PgError.SYNTAX_ERROR, "write SET name = value, SET name TO value or "
                + "SET TIME ZONE value"));
        }
        final boolean isLocal = "local".equalsIgnoreCase(m.group(1));
        final String special = m.group(2) == null ? null : m.group(2).toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
        final String name = special == null ? m.group(3)
            : special.equals("names") ? "client_encoding" : special.equals("schema") ? "search_path" : "timezone";
        final List<String> values = values(m.group(4));
        final boolean toDefault = values.size() == 1 && values.get(0).equals("default")
            || "time zone".equals(special) && values.size() == 1 && values.get(0).equals("local");
        settings.set(name, toDefault ? List.of() : values, isLocal);
        return command("SET");
    }

    /** @return the items of a SET value: quoted strings undone, other words in lower case, as PostgreSQL reads them. */
    private static List<String> values(final String text) {
        final List<String> items = new ArrayList<>();
        final Matcher v = VALUE.matcher(text);
        int at = 0;
        while (at < text.length() && v.find(at) && v.start() == at) {
            items.add(v.group(1) != null ? v.group(1).replace("''", "'") : v.group(2) != null
                ? v.group(2).replace("\"\"", "\"") : v.group(3).toLowerCase(Locale.ROOT));
            at = v.end();
            if (v.group(4).isEmpty()) {
                break;
            }
        }
        if (items.isEmpty() || at < text.strip().length() && at < text.length()) {
            throw new PgFailure(PgError.of(PgError.SYNTAX_ERROR, "syntax error in the value of SET: "
                + text.strip()));
        }
        return items;
    }

    private static PgAnswer show(final String parameter, final SessionSettings settings) {
        if (parameter.equalsIgnoreCase("all")) {
            final List<List<String>> rows = new ArrayList<>();
            for (final String name : SessionSettings.names()) {
                rows.add(List.of(SessionSettings.name(name), settings.value(name), ""));
            }
            return new PgAnswer("SHOW", List.of(SHOW_NAME, SHOW_SETTING, SHOW_DESCRIPTION), rows);
        }
        final String value = settings.value(parameter);
        if (value == null) {
            throw SessionSettings.unrecognized(parameter);
        }
        final List<List<String>> rows = new ArrayList<>();
        rows.add(List.of(value));
        return new PgAnswer("SHOW", List.of(new PgColumn(SessionSettings.name(parameter), PgType.TEXT)), rows);
    }

    private static PgAnswer command(final String tag) {
        return new PgAnswer(tag, List.of(), List.of());
    }
}
