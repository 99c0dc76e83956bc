package io.tradestore.server.pg;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A session's cursors: {@code DECLARE name [INSENSITIVE] [NO SCROLL] CURSOR [WITH | WITHOUT HOLD] FOR query},
 * {@code FETCH} and {@code MOVE} forward ({@code NEXT}, a count, {@code ALL}, {@code FORWARD [count | ALL]}), and
 * {@code CLOSE name | ALL}, as psycopg's named cursors and SQLAlchemy's {@code stream_results} send them. A cursor
 * holds its query's answer when it is declared (up to {@link PgSession#HELD_ROWS} rows, as a portal read in parts
 * does: every statement reads one committed snapshot, so the rows are those the query would give at that moment), and
 * is also a portal of its name (psycopg describes it by that name). A cursor without hold lives in its transaction
 * block and ends with it; one with hold lives until closed or the session ends, unless the block that declared it
 * rolls back.
 */
final class PgCursors {
    /** Most cursors a session keeps open: each may hold a large answer. */
    static final int MAX_OPEN = 16;
    private static final String FORWARD_ONLY = "cursor can only scan forward";

    /** Runs a cursor's query and holds its answer. */
    interface Runner {
        /**
         * @param sql        the query.
         * @param parameters its values.
         * @param offset     where it starts in the client's text (for error positions).
         * @return its rows, held.
         */
        PgRows rows(String sql, PgParameters parameters, int offset);
    }

    /** A declared cursor. */
    static final class Cursor {
        final String query;
        final PgRows rows;
        final boolean hold;
        /** Whether it was declared inside the transaction block now open (a rollback of that block drops it). */
        boolean inBlock;
        /** The row it is on, from 1; 0 before the first, count + 1 after the last (PostgreSQL's positions). */
        int position;

        Cursor(final String query, final PgRows rows, final boolean hold, final boolean inBlock) {
            this.query = query;
            this.rows = rows;
            this.hold = hold;
            this.inBlock = inBlock;
        }
    }

    private final Map<String, Cursor> open = new LinkedHashMap<>();

    /**
     * @param name a portal name.
     * @return the cursor of that name, or null.
     */
    Cursor get(final String name) {
        return open.get(name);
    }

    /**
     * @param sql a statement.
     * @return whether it is a cursor statement this class answers.
     */
    static boolean isCursorStatement(final String sql) {
        final String first = Words.first(sql);
        return first.equals("declare") || first.equals("fetch") || first.equals("move") || first.equals("close");
    }

    /**
     * The columns a cursor statement answers with, for a Describe of its prepared statement: a FETCH's are its
     * cursor's, the others answer none.
     *
     * @param sql a cursor statement.
     * @return its columns.
     */
    List<PgColumn> describe(final String sql) {
        final Words w = new Words(sql);
        if (!w.next().equals("fetch")) {
            return List.of();
        }
        return cursor(new Direction(w).name).rows.columns();
    }

    /**
     * Runs a cursor statement.
     *
     * @param sql     the statement.
     * @param params  its values (those of a DECLARE's query).
     * @param offset  where it starts in the client's text.
     * @param inBlock whether a transaction block is open.
     * @param runner  runs a DECLARE's query.
     * @return its answer: a FETCH's rows, or a command tag.
     * @throws PgFailure a bad statement, an unknown cursor, a backward move.
     */
    PgRows run(final String sql, final PgParameters params, final int offset, final boolean inBlock,
        final Runner runner) {
        final Words w = new Words(sql);
        switch (w.next()) {
            case "declare":
                return declare(w, sql, params, offset, inBlock, runner);
            case "fetch":
                return fetch(w, true);
            case "move":
                return fetch(w, false);
            default:
                return close(w);
        }
    }

    private PgRows declare(final Words w, final String sql, final PgParameters params, final int offset,
        final boolean inBlock, final Runner runner) {
        final String name = w.name();
        boolean hold = false;
        for (String word = w.next();; word = w.next()) {
            if (word.equals("binary")) {
                throw unsupported("BINARY cursors are not supported: declare it without BINARY (a client asks for "
                    + "binary values when it fetches)");
            } else if (word.equals("scroll")) {
                throw unsupported("SCROLL cursors are not supported: cursors here scan forward only");
            } else if (word.equals("no")) {
                w.expect("scroll");
            } else if (word.equals("insensitive") || word.equals("asensitive")) {
                continue; // every cursor reads one committed snapshot
            } else if (word.equals("cursor")) {
                break;
            } else {
                throw syntax("expected CURSOR after DECLARE " + name + ", found '" + word + "'");
            }
        }
        String word = w.next();
        if (word.equals("with") || word.equals("without")) {
            hold = word.equals("with");
            w.expect("hold");
            word = w.next();
        }
        if (!word.equals("for")) {
            throw syntax("expected FOR and a query after DECLARE " + name + " CURSOR, found '" + word + "'");
        }
        if (!hold && !inBlock) {
            throw new PgFailure(PgError.of("25P01", "DECLARE CURSOR can only be used in transaction blocks"));
        }
        if (open.containsKey(name)) {
            throw new PgFailure(PgError.of("42P03", "cursor \"" + name + "\" already exists"));
        }
        if (open.size() >= MAX_OPEN) {
            throw new PgFailure(PgError.of(PgError.PROGRAM_LIMIT_EXCEEDED, "a session keeps at most " + MAX_OPEN
                + " cursors open: CLOSE one first"));
        }
        final String query = sql.substring(w.at).strip();
        final String verb = Words.first(query.replaceFirst("^[\\s(]+", ""));
        if (!verb.equals("select") && !verb.equals("with") && !verb.equals("values") && !verb.equals("table")) {
            // nothing else may run: a SET or BEGIN here would take effect before the cursor was refused
            throw syntax("a cursor is declared FOR a query (SELECT, WITH, VALUES or TABLE), not '" + verb + "'");
        }
        final PgRows rows = runner.rows(query, params, offset + sql.indexOf(query, w.at));
        if (!rows.hasRows()) {
            throw new PgFailure(PgError.of("42P11", "cannot open a cursor for a statement that returns no rows"));
        }
        open.put(name, new Cursor(query, rows, hold, inBlock));
        return PgRows.of(new PgAnswer("DECLARE CURSOR", List.of(), List.of()));
    }

    private PgRows fetch(final Words w, final boolean fetch) {
        final Direction d = new Direction(w);
        final Cursor c = cursor(d.name);
        final int count = c.rows.rowCount();
        final int from;
        final int to;
        if (d.count == 0) {
            // FORWARD 0 fetches the row the cursor is on again (none before the first or after the last)
            from = c.position >= 1 && c.position <= count ? c.position - 1 : 0;
            to = c.position >= 1 && c.position <= count ? c.position : 0;
        } else {
            from = Math.min(c.position, count);
            final long end = (long) c.position + Math.min(d.count, Integer.MAX_VALUE); // no overflow past ALL
            to = (int) Math.min(end, count);
            c.position = end > count ? count + 1 : (int) end;
        }
        if (!fetch) {
            return PgRows.of(new PgAnswer("MOVE " + (to - from), List.of(), List.of()));
        }
        return c.rows.window(from, to);
    }

    private PgRows close(final Words w) {
        final String name = w.name();
        w.end();
        if (name.equals("all") && !w.quoted) {
            open.clear();
        } else if (open.remove(name) == null) {
            throw unknown(name);
        }
        return PgRows.of(new PgAnswer("CLOSE CURSOR", List.of(), List.of()));
    }

    private Cursor cursor(final String name) {
        final Cursor c = open.get(name);
        if (c == null) {
            throw unknown(name);
        }
        return c;
    }

    /** Closes every cursor ({@code DISCARD ALL}). */
    void closeAll() {
        open.clear();
    }

    /** A transaction block begins: cursors with hold declared before it survive its rollback. */
    void begin() {
        for (final Cursor c : open.values()) {
            c.inBlock = false;
        }
    }

    /**
     * A transaction block ends: cursors without hold close; a rollback also closes those declared inside it.
     *
     * @param committed whether it committed.
     */
    void end(final boolean committed) {
        for (final Iterator<Cursor> i = open.values().iterator(); i.hasNext();) {
            final Cursor c = i.next();
            if (!c.hold || !committed && c.inBlock) {
                i.remove();
            } else {
                c.inBlock = false;
            }
        }
    }

    private static PgFailure unknown(final String name) {
        return new PgFailure(PgError.of(PgError.INVALID_CURSOR_NAME, "cursor \"" + name + "\" does not exist"));
    }

    private static PgFailure syntax(final String message) {
        return new PgFailure(PgError.of(PgError.SYNTAX_ERROR, message));
    }

    private static PgFailure unsupported(final String message) {
        return new PgFailure(PgError.of(PgError.FEATURE_NOT_SUPPORTED, message));
    }

    /** A FETCH's or MOVE's direction and cursor: {@code [direction] [FROM | IN] name}, forward only. */
    private static final class Direction {
        /** Rows to move forward; 0 to fetch the current row again. */
        final long count;
        final String name;

        Direction(final Words w) {
            final List<String> words = new ArrayList<>();
            for (String word = w.peek(); !word.isEmpty(); word = w.peek()) {
                if (word.equals("from") || word.equals("in")) {
                    w.next();
                    break;
                }
                if (!isDirectionWord(word)) {
                    break;
                }
                words.add(w.next());
            }
            this.count = count(words);
            this.name = w.name();
            w.end();
        }

        private static boolean isDirectionWord(final String word) {
            return word.equals("next") || word.equals("forward") || word.equals("all") || word.equals("prior")
                || word.equals("first") || word.equals("last") || word.equals("absolute") || word.equals("relative")
                || word.equals("backward") || word.matches("[+-]?\\d+");
        }

        private static long count(final List<String> words) {
            final String text = String.join(" ", words);
            if (words.isEmpty() || words.equals(List.of("next")) || words.equals(List.of("forward"))) {
                return 1;
            }
            if (words.equals(List.of("all")) || words.equals(List.of("forward", "all"))) {
                return Long.MAX_VALUE / 2;
            }
            final String number = words.size() == 1 ? words.get(0)
                : words.size() == 2 && words.get(0).equals("forward") ? words.get(1) : null;
            if (number != null && number.matches("[+-]?\\d+")) {
                final long n;
                try {
                    n = Long.parseLong(number);
                } catch (final NumberFormatException e) {
                    throw syntax("the row count '" + number + "' is out of range");
                }
                if (n < 0) {
                    throw new PgFailure(PgError.of("55000", FORWARD_ONLY + " (" + text + ")"));
                }
                return n;
            }
            if (words.contains("prior") || words.contains("first") || words.contains("last")
                || words.contains("absolute") || words.contains("relative") || words.contains("backward")) {
                throw new PgFailure(PgError.of("55000", FORWARD_ONLY + ": " + text.toUpperCase(Locale.ROOT)
                    + " is not supported; use NEXT, a count, ALL or FORWARD"));
            }
            throw syntax("'" + text + "' is not a direction: use NEXT, a count, ALL or FORWARD [count | ALL]");
        }
    }

    /** Words of a cursor statement: keywords lower-cased, names as PostgreSQL folds them (unquoted: lower case). */
    private static final class Words {
        final String text;
        int at;
        /** Whether the last name read was quoted. */
        boolean quoted;

        Words(final String text) {
            this.text = text;
        }

        static String first(final String sql) {
            return new Words(sql).next();
        }

        /** @return the next word lower-cased (a quoted name as written), or "" at the end. */
        String next() {
            final String word = peek();
            at = end;
            return word;
        }

        private int end;

        String peek() {
            final int p = skipBlanks(at);
            if (p >= text.length()) {
                end = p;
                return "";
            }
            if (text.charAt(p) == '"') {
                final StringBuilder b = new StringBuilder();
                int q = p + 1;
                while (q < text.length()) {
                    if (text.charAt(q) == '"') {
                        if (q + 1 < text.length() && text.charAt(q + 1) == '"') {
                            b.append('"');
                            q += 2;
                            continue;
                        }
                        break;
                    }
                    b.append(text.charAt(q++));
                }
                if (q >= text.length()) {
                    throw syntax("a quoted name has no closing '\"'");
                }
                end = q + 1;
                return "\"" + b;
            }
            int q = p;
            if ((text.charAt(q) == '+' || text.charAt(q) == '-') && q + 1 < text.length()
                && Character.isDigit(text.charAt(q + 1))) {
                q++; // a signed count
            }
            while (q < text.length() && (Character.isLetterOrDigit(text.charAt(q)) || text.charAt(q) == '_'
                || text.charAt(q) == '$')) {
                q++;
            }
            if (q == p) {
                q++;
            }
            end = q;
            return text.substring(p, q).toLowerCase(Locale.ROOT);
        }

        /** @return the first offset from {@code p} past blanks, semicolons and comments. */
        private int skipBlanks(final int from) {
            int p = from;
            while (p < text.length()) {
                final char c = text.charAt(p);
                if (Character.isWhitespace(c) || c == ';') {
                    p++;
                } else if (text.startsWith("--", p)) {
                    final int eol = text.indexOf('\n', p);
                    p = eol < 0 ? text.length() : eol + 1;
                } else if (text.startsWith("/*", p)) {
                    final int close = text.indexOf("*/", p + 2);
                    p = close < 0 ? text.length() : close + 2;
                } else {
                    break;
                }
            }
            return p;
        }

        /** @return the next word as a cursor name: a quoted one as written, another lower-cased. */
        String name() {
            final String word = next();
            if (word.isEmpty()) {
                throw syntax("a cursor name is missing");
            }
            quoted = word.startsWith("\"");
            if (quoted) {
                if (word.length() == 1) {
                    throw syntax("zero-length delimited identifier");
                }
                return word.substring(1);
            }
            if (!word.matches("[a-z_][a-z0-9_$]*")) {
                throw syntax("'" + word + "' is not a cursor name");
            }
            return word;
        }

        void expect(final String word) {
            final String found = next();
            if (!found.equals(word)) {
                throw syntax("expected " + word.toUpperCase(Locale.ROOT) + ", found '" + found + "'");
            }
        }

        /** Checks that nothing follows. */
        void end() {
            final String rest = peek();
            if (!rest.isEmpty()) {
                throw syntax("unexpected '" + rest + "' at the end of the statement");
            }
        }
    }
}
