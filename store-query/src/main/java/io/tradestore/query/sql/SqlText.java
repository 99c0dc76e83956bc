package io.tradestore.query.sql;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.parser.ParseException;
import net.sf.jsqlparser.parser.Token;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.PlainSelect;

import io.tradestore.core.StoreException;
import io.tradestore.query.ErrorCode;

/**
 * Parses SQL text with JSqlParser into one {@code SELECT}, after taking out QuestDB's {@code SAMPLE BY <width>}, which
 * no SQL parser reads: it is blanked in place (so every other position stays as written) and kept beside the parse.
 */
final class SqlText {
    /** {@code SAMPLE BY 5m}: the width is a number and a unit, or an ISO-8601 duration. */
    private static final Pattern SAMPLE_BY = Pattern.compile("(?i)SAMPLE\\s+BY\\s+([0-9]+[a-z]*|P[0-9A-Z.]+)");
    private static final Pattern LEXICAL = Pattern.compile("line (\\d+), column (\\d+)");
    /**
     * Parses by their text. JSqlParser takes about a millisecond for a typical query (docs/sql.md), far more than the
     * engine takes to run a selective one, and dashboards and prepared statements send the same text again and again;
     * translation is redone each time (it reads the table's schema and the clock). Bounded: cleared when full.
     */
    private static final Map<String, Parsed> CACHE = new ConcurrentHashMap<>();
    private static final int CACHE_ENTRIES = 512;
    private static final int CACHE_TEXT_LENGTH = 16 * 1024;

    private SqlText() {
    }

    /**
     * A parsed statement.
     *
     * @param select       the query.
     * @param sampleBy     the width of {@code SAMPLE BY}, or null.
     * @param sampleByPos  where {@code SAMPLE BY} was written, or null.
     */
    record Parsed(PlainSelect select, String sampleBy, SqlPos sampleByPos) {
    }

    /**
     * @param sql the SQL text.
     * @return the parsed {@code SELECT}.
     * @throws SqlException MALFORMED_SQL where the text stops being SQL; INVALID_QUERY for a statement other than a
     *                      single plain {@code SELECT}.
     */
    static Parsed parse(final String sql) {
        final Parsed cached = sql == null ? null : CACHE.get(sql);
        if (cached != null) {
            return cached;
        }
        final Parsed parsed = parseText(sql);
        if (sql.length() <= CACHE_TEXT_LENGTH) {
            if (CACHE.size() >= CACHE_ENTRIES) {
                CACHE.clear();
            }
            CACHE.put(sql, parsed);
        }
        return parsed;
    }

    private static Parsed parseText(final String sql) {
        if (sql == null || sql.isBlank()) {
            throw new SqlException(ErrorCode.MALFORMED_SQL,
                "the SQL text is empty; send a query such as SELECT count(*) FROM trades", SqlPos.START);
        }
        final StringBuilder text = new StringBuilder(sql);
        String sampleBy = null;
        SqlPos sampleByPos = null;
        final int at = findSampleBy(sql);
        if (at >= 0) {
            final Matcher m = SAMPLE_BY.matcher(sql);
            if (m.find(at) && m.start() == at) {
                sampleBy = m.group(1);
                sampleByPos = position(sql, at);
                for (int i = m.start(); i < m.end(); i++) {
                    text.setCharAt(i, ' ');
                }
            }
        }
        final Statement statement;
        try {
            final CCJSqlParser parser = CCJSqlParserUtil.newParser(text.toString());
            statement = parser.Statement();
        } catch (final ParseException e) {
            throw syntax(e);
        } catch (final StackOverflowError e) {
            throw new SqlException(ErrorCode.MALFORMED_SQL, "the SQL text nests too deeply to parse", SqlPos.START);
        } catch (final RuntimeException | Error e) {
            // the lexer reports a bad character or an unterminated string as an Error with its place in the message
            final Matcher m = LEXICAL.matcher(String.valueOf(e.getMessage()));
            final SqlPos pos = m.find() ? new SqlPos(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)))
                : SqlPos.START;
            throw new SqlException(ErrorCode.MALFORMED_SQL, "the SQL text does not parse at " + pos
                + " (an unterminated string or quoted name, or a character SQL does not use)", pos);
        }
        if (!(statement instanceof PlainSelect select)) {
            throw new SqlException(ErrorCode.INVALID_QUERY, statement == null
                ? "the SQL text holds no statement; send one SELECT"
                : "only a single SELECT from one table is supported, not "
                + StoreException.echo(firstWord(statement.toString())) + " statements, UNION or a parenthesised SELECT",
                statement == null ? SqlPos.START : SqlPos.of(statement, SqlPos.START));
        }
        return new Parsed(select, sampleBy, sampleByPos);
    }

    private static SqlException syntax(final ParseException e) {
        final Token bad = e.currentToken == null ? null : e.currentToken.next;
        if (bad == null || bad.kind == 0) {
            final SqlPos pos = bad == null ? SqlPos.START : new SqlPos(bad.beginLine, bad.beginColumn);
            return new SqlException(ErrorCode.MALFORMED_SQL, "syntax error: the SQL text ends too early", pos);
        }
        final SqlPos pos = new SqlPos(bad.beginLine, bad.beginColumn);
        return new SqlException(ErrorCode.MALFORMED_SQL,
            "syntax error at or near '" + StoreException.echo(bad.image) + "' (" + pos + ")", pos);
    }

    private static String firstWord(final String s) {
        final String t = s.strip();
        final int space = t.indexOf(' ');
        return (space < 0 ? t : t.substring(0, space)).toUpperCase(java.util.Locale.ROOT);
    }

    /**
     * @param sql the text.
     * @return where {@code SAMPLE BY} starts outside strings, quoted names and comments, or -1.
     */
    static int findSampleBy(final String sql) {
        int i = 0;
        final int n = sql.length();
        while (i < n) {
            final char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                final int end = sql.indexOf(c, i + 1);
                i = end < 0 ? n : end + 1;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                final int end = sql.indexOf('\n', i);
                i = end < 0 ? n : end + 1;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                final int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if ((c == 's' || c == 'S') && (i == 0 || !Character.isLetterOrDigit(sql.charAt(i - 1))
                && sql.charAt(i - 1) != '_') && sql.regionMatches(true, i, "sample", 0, 6)) {
                final Matcher m = SAMPLE_BY.matcher(sql);
                if (m.find(i) && m.start() == i) {
                    return i;
                }
                i++;
            } else {
                i++;
            }
        }
        return -1;
    }

    private static SqlPos position(final String sql, final int offset) {
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < offset; i++) {
            if (sql.charAt(i) == '\n') {
                line++;
                lineStart = i + 1;
            }
        }
        return new SqlPos(line, offset - lineStart + 1);
    }
}
