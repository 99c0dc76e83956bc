package io.tradestore.server.pg;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;

/**
 * The session statements clients send when they connect and around their queries: {@code SET}, {@code SHOW},
 * {@code RESET}, the transaction statements and {@code DISCARD}. tradestore is read-only over SQL and every answer is
 * already consistent (a query reads one committed snapshot), so a transaction is answered with its tag and changes
 * nothing; {@code SET} is accepted and changes nothing either (see {@link SessionSettings}), except that a client
 * encoding other than UTF-8 is refused, since tradestore writes UTF-8 only.
 */
final class SessionStatements {
    private static final Pattern SET_ENCODING = Pattern.compile(
        "(?is)set\\s+(?:session\\s+|local\\s+)?(?:client_encoding\\s*(?:=|to)|names)\\s*'?\"?([a-z0-9_-]+)");
    private static final PgColumn SHOW_NAME = new PgColumn("name", PgType.TEXT);
    private static final PgColumn SHOW_SETTING = new PgColumn("setting", PgType.TEXT);
    private static final PgColumn SHOW_DESCRIPTION = new PgColumn("description", PgType.TEXT);

    private SessionStatements() {
    }

    /**
     * Answers a session statement.
     *
     * @param sql   the statement, without leading comments and blanks and without a trailing semicolon.
     * @param first its first word, in lower case.
     * @return the answer, or {@code null} when {@code first} does not start a session statement.
     */
    static PgAnswer answer(final String sql, final String first) {
        switch (first) {
            case "set":
                return set(sql);
            case "show":
                return show(sql.substring(4).strip());
            case "reset":
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
                return command("DISCARD " + sql.substring(7).strip().toUpperCase(Locale.ROOT));
            default:
                return null;
        }
    }

    private static PgAnswer set(final String sql) {
        final Matcher m = SET_ENCODING.matcher(sql);
        if (m.lookingAt()) {
            final String encoding = m.group(1).toLowerCase(Locale.ROOT).replace("-", "");
            if (!encoding.equals("utf8") && !encoding.equals("unicode") && !encoding.equals("default")) {
                throw new QueryException(ErrorCode.INVALID_QUERY, "tradestore writes UTF8 only; client_encoding "
                    + m.group(1) + " is not supported", "");
            }
        }
        return command("SET");
    }

    private static PgAnswer show(final String parameter) {
        if (parameter.equalsIgnoreCase("all")) {
            final List<List<String>> rows = new ArrayList<>();
            for (final Map.Entry<String, String> e : SessionSettings.all().entrySet()) {
                rows.add(List.of(SessionSettings.name(e.getKey()), e.getValue(), ""));
            }
            return new PgAnswer("SHOW", List.of(SHOW_NAME, SHOW_SETTING, SHOW_DESCRIPTION), rows);
        }
        final String value = SessionSettings.value(parameter);
        if (value == null) {
            throw new QueryException(ErrorCode.INVALID_QUERY,
                "unrecognized configuration parameter \"" + parameter + "\"", "");
        }
        final List<List<String>> rows = new ArrayList<>();
        rows.add(List.of(value));
        return new PgAnswer("SHOW", List.of(new PgColumn(SessionSettings.name(parameter), PgType.TEXT)), rows);
    }

    private static PgAnswer command(final String tag) {
        return new PgAnswer(tag, List.of(), List.of());
    }
}
