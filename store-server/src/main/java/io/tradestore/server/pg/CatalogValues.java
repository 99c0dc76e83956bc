package io.tradestore.server.pg;

import java.util.List;
import java.util.Locale;

/**
 * The catalog evaluator's values and PostgreSQL's rules for them: comparison across the loose types a client writes
 * ({@code attrelid = '16386'}), three-valued truth, and the text form the wire layer sends.
 */
final class CatalogValues {
    private CatalogValues() {
    }

    /**
     * Compares two non-null values as PostgreSQL would after its implicit casts: numbers numerically, a number with a
     * string by the string read as a number, a boolean with a string by the string read as a boolean, else as text.
     *
     * @param a a value.
     * @param b another.
     * @return negative, zero or positive.
     */
    static int compare(final Object a, final Object b) {
        if (a instanceof Number x && b instanceof Number y) {
            return x instanceof Long && y instanceof Long ? Long.compare(x.longValue(), y.longValue())
                : Double.compare(x.doubleValue(), y.doubleValue());
        }
        if (a instanceof Number && b instanceof String s) {
            return compare(a, number(s));
        }
        if (a instanceof String s && b instanceof Number) {
            return compare(number(s), b);
        }
        if (a instanceof Boolean || b instanceof Boolean) {
            return Boolean.compare(truth(a), truth(b));
        }
        return text(a).compareTo(text(b));
    }

    /**
     * @param a a value or {@code null}.
     * @param b another.
     * @return SQL's {@code a = b}: {@code null} when either is null.
     */
    static Boolean equal(final Object a, final Object b) {
        return a == null || b == null ? null : compare(a, b) == 0;
    }

    /**
     * @param s text a client wrote for a number.
     * @return the number.
     */
    static Number number(final String s) {
        final String t = s.strip();
        try {
            return Long.parseLong(t);
        } catch (final NumberFormatException e) {
            try {
                return Double.parseDouble(t);
            } catch (final NumberFormatException e2) {
                throw CatalogQueries.refuse("invalid input syntax for a number: \"" + s + "\"");
            }
        }
    }

    /**
     * @param v a non-null value.
     * @return it read as a boolean ({@code 't'}, {@code 'true'}, {@code 'on'}, ...).
     */
    static boolean truth(final Object v) {
        if (v instanceof Boolean b) {
            return b;
        }
        if (v instanceof Number n) {
            return n.longValue() != 0;
        }
        final String s = text(v).strip().toLowerCase(Locale.ROOT);
        return s.equals("t") || s.equals("true") || s.equals("on") || s.equals("yes") || s.equals("y")
            || s.equals("1");
    }

    /**
     * @param v a value.
     * @return whether it is SQL TRUE (not false, not null).
     */
    static boolean isTrue(final Object v) {
        return v != null && truth(v);
    }

    /**
     * @param v a value or {@code null}.
     * @return PostgreSQL's text form of it ({@code t}/{@code f}, {@code {a,b}} for an array), or {@code null}.
     */
    static String text(final Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof Boolean b) {
            return b ? "t" : "f";
        }
        if (v instanceof List<?> list) {
            final StringBuilder s = new StringBuilder("{");
            for (int i = 0; i < list.size(); i++) {
                s.append(i == 0 ? "" : ",");
                final Object e = list.get(i);
                s.append(e == null ? "NULL" : element(text(e)));
            }
            return s.append('}').toString();
        }
        return v.toString();
    }

    private static String element(final String e) {
        boolean quote = e.isEmpty() || e.equalsIgnoreCase("NULL");
        for (int i = 0; i < e.length() && !quote; i++) {
            final char c = e.charAt(i);
            quote = c == '{' || c == '}' || c == ',' || c == '"' || c == '\\' || Character.isWhitespace(c);
        }
        return quote ? '"' + e.replace("\\", "\\\\").replace("\"", "\\\"") + '"' : e;
    }

    /**
     * @param v a non-null value.
     * @return it as a long.
     */
    static long toLong(final Object v) {
        return v instanceof Number n ? n.longValue() : number(text(v)).longValue();
    }
}
