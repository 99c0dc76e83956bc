package io.tradestore.server.pg;

/**
 * The one pass over a statement's text that tells a catalog statement from a query of the store, without parsing:
 * words are read outside string literals, quoted names and comments.
 */
final class CatalogText {
    private CatalogText() {
    }

    /**
     * @param sql  the text.
     * @param from where to start.
     * @return the index of the first character at or after {@code from} that is neither blank nor in a comment.
     */
    static int skipBlanks(final String sql, final int from) {
        int i = from;
        final int n = sql.length();
        while (i < n) {
            final char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                while (i < n && sql.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                final int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else {
                break;
            }
        }
        return i;
    }

    /**
     * @param sql   the text.
     * @param start where a word starts.
     * @return the word (letters, digits and underscores) at {@code start}, or the one character there.
     */
    static String word(final String sql, final int start) {
        int i = start;
        while (i < sql.length() && isWordChar(sql.charAt(i))) {
            i++;
        }
        return i == start ? sql.substring(start, start + 1) : sql.substring(start, i);
    }

    /**
     * @param sql   the text.
     * @param start where the statement starts.
     * @return the statement from {@code start}, without trailing blanks and semicolons.
     */
    static String statement(final String sql, final int start) {
        int end = sql.length();
        while (end > start && (Character.isWhitespace(sql.charAt(end - 1)) || sql.charAt(end - 1) == ';')) {
            end--;
        }
        return sql.substring(start, end);
    }

    /**
     * Whether a query is the catalog's: it names a relation whose name starts with {@code pg_} or is
     * {@code information_schema}, or it has no {@code FROM}.
     *
     * @param sql   the text.
     * @param start where the statement starts.
     * @return whether the catalog answers it.
     */
    static boolean readsCatalog(final String sql, final int start) {
        final int n = sql.length();
        boolean from = false;
        int i = start;
        while (i < n) {
            final char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                final int end = sql.indexOf(c, i + 1);
                i = end < 0 ? n : end + 1;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-' || c == '/' && i + 1 < n
                && sql.charAt(i + 1) == '*') {
                i = skipBlanks(sql, i);
            } else if (isWordChar(c)) {
                final int w = i;
                while (i < n && isWordChar(sql.charAt(i))) {
                    i++;
                }
                final int length = i - w;
                if (length > 3 && sql.regionMatches(true, w, "pg_", 0, 3)
                    || length == 18 && sql.regionMatches(true, w, "information_schema", 0, 18)) {
                    return true;
                }
                from |= length == 4 && sql.regionMatches(true, w, "from", 0, 4);
            } else {
                i++;
            }
        }
        return !from;
    }

    private static boolean isWordChar(final char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$';
    }
}
