package io.tradestore.server.pg;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads the structure of SQL text that the wire layer needs without parsing it: where one statement of a simple
 * query ends and the next begins ({@code ;} outside strings, quoted names, comments and dollar quotes), whether a
 * statement is empty, and the highest {@code $n} placeholder it names.
 */
final class PgStatements {
    /**
     * A statement of a query string.
     *
     * @param text   its text (without the semicolon).
     * @param offset where it starts in the query string.
     */
    record Statement(String text, int offset) {
    }

    private PgStatements() {
    }

    /**
     * @param sql a query string.
     * @return its statements in order; empty ones (blanks and comments between semicolons) left out, except that a
     *     string of nothing but those gives one empty statement.
     */
    static List<Statement> split(final String sql) {
        final List<Statement> out = new ArrayList<>();
        int start = 0;
        int i = 0;
        final int n = sql.length();
        while (i < n) {
            final char c = sql.charAt(i);
            if (c == ';') {
                add(out, sql, start, i);
                start = i + 1;
                i++;
            } else {
                i = skip(sql, i);
            }
        }
        add(out, sql, start, n);
        if (out.isEmpty()) {
            out.add(new Statement("", 0));
        }
        return out;
    }

    private static void add(final List<Statement> out, final String sql, final int start, final int end) {
        final String text = sql.substring(start, end);
        if (!isEmpty(text)) {
            out.add(new Statement(text, start));
        }
    }

    /**
     * @param sql a statement.
     * @return whether it holds nothing but blanks and comments.
     */
    static boolean isEmpty(final String sql) {
        int i = 0;
        while (i < sql.length()) {
            final char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '-' && sql.startsWith("--", i) || c == '/' && sql.startsWith("/*", i)) {
                i = skip(sql, i);
            } else {
                return false;
            }
        }
        return true;
    }

    /**
     * @param sql a statement.
     * @return the highest n of a {@code $n} outside strings, quoted names and comments; 0 when there is none.
     */
    static int placeholders(final String sql) {
        int max = 0;
        int i = 0;
        final int n = sql.length();
        while (i < n) {
            if (sql.charAt(i) == '$' && i + 1 < n && Character.isDigit(sql.charAt(i + 1))
                && (i == 0 || !Character.isLetterOrDigit(sql.charAt(i - 1)) && sql.charAt(i - 1) != '_')) {
                int j = i + 1;
                long v = 0;
                while (j < n && Character.isDigit(sql.charAt(j)) && v < 1_000_000) {
                    v = v * 10 + sql.charAt(j) - '0';
                    j++;
                }
                max = (int) Math.max(max, Math.min(v, 1_000_000));
                i = j;
            } else {
                i = skip(sql, i);
            }
        }
        return max;
    }

    /** @return the index after the token at i: a whole string, quoted name, comment or dollar quote, or one char. */
    private static int skip(final String sql, final int i) {
        final int n = sql.length();
        final char c = sql.charAt(i);
        if (c == '\'' || c == '"') {
            int j = i + 1;
            while (j < n) {
                if (sql.charAt(j) == c) {
                    if (j + 1 < n && sql.charAt(j + 1) == c) {
                        j += 2; // a doubled quote inside
                        continue;
                    }
                    return j + 1;
                }
                j++;
            }
            return n;
        }
        if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
            final int end = sql.indexOf('\n', i);
            return end < 0 ? n : end + 1;
        }
        if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
            final int end = sql.indexOf("*/", i + 2);
            return end < 0 ? n : end + 2;
        }
        if (c == '$' && (i == 0 || !Character.isLetterOrDigit(sql.charAt(i - 1)))) {
            // a dollar quote: $$...$$ or $tag$...$tag$
            int j = i + 1;
            while (j < n && (Character.isLetter(sql.charAt(j)) || sql.charAt(j) == '_')) {
                j++;
            }
            if (j < n && sql.charAt(j) == '$') {
                final String tag = sql.substring(i, j + 1);
                final int end = sql.indexOf(tag, j + 1);
                return end < 0 ? n : end + tag.length();
            }
        }
        return i + 1;
    }
}
