package io.tradestore.core.ingest.line;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.Schema;

/**
 * A second reading of one line of line protocol, written for clarity (Strings, BigDecimal, a character at a time)
 * rather than speed, against which the mutation test checks {@link LineIngest}: the row a line must store, or that it
 * must be refused. It covers the rules of docs/ingest.md for a table that exists and a line that ends the body.
 */
final class LineOracle {
    /** A refused line. */
    static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Refused(final String why) {
            super(why, null, false, false);
        }
    }

    private final Schema schema;
    private final long nowNanos;
    private String s;
    private int p;

    LineOracle(final Schema schema, final long nowNanos) {
        this.schema = schema;
        this.nowNanos = nowNanos;
    }

    /**
     * @param text one line without its final \n (it may end in \r, which then was a CRLF).
     * @return the row's values as {@link StoreTables#rows} gives them; null for a blank or comment line.
     * @throws Refused when the line must be refused.
     */
    List<String> row(final String text) {
        s = text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
        p = 0;
        while (p < s.length() && (s.charAt(p) == ' ' || s.charAt(p) == '\t')) {
            p++;
        }
        if (p == s.length() || s.charAt(p) == '#') {
            return null;
        }
        final String table = name(",  \t\r", false);
        if (!table.equals(schema.name())) {
            throw new Refused("table " + table);
        }
        final Map<String, String[]> entries = new HashMap<>();
        final List<String> order = new ArrayList<>();
        while (at(',')) {
            p++;
            final String key = name("=, \r", true);
            expect('=');
            final String value = name(", \r=", false);
            if (at('=')) {
                throw new Refused("= in tag value");
            }
            if (value.isEmpty()) {
                throw new Refused("empty tag value");
            }
            put(entries, order, key, new String[] {"tag", value});
        }
        expect(' ');
        skipSpaces();
        while (true) {
            final String key = name("=, \r", true);
            expect('=');
            put(entries, order, key, fieldValue());
            if (!at(',')) {
                break;
            }
            p++;
        }
        Long ts = null;
        if (at(' ')) {
            skipSpaces();
            if (p < s.length()) {
                final int from = p;
                if (at('-')) {
                    p++;
                }
                while (p < s.length() && Character.isDigit(s.charAt(p)) && s.charAt(p) < 128) {
                    p++;
                }
                final String digits = s.substring(from, p);
                if (digits.isEmpty() || digits.equals("-")) {
                    throw new Refused("timestamp");
                }
                final BigInteger v = new BigInteger(digits);
                if (v.bitLength() > 63 || v.equals(BigInteger.valueOf(Long.MIN_VALUE))) {
                    throw new Refused("timestamp range");
                }
                ts = v.longValueExact();
                skipSpaces();
            }
        }
        if (p != s.length()) {
            throw new Refused("trailing " + s.substring(p));
        }
        return map(entries, order, ts);
    }

    private void put(final Map<String, String[]> entries, final List<String> order, final String key,
        final String[] v) {
        if (entries.containsKey(key)) {
            throw new Refused("twice " + key);
        }
        entries.put(key, v);
        order.add(key);
    }

    private boolean at(final char c) {
        return p < s.length() && s.charAt(p) == c;
    }

    private void expect(final char c) {
        if (!at(c)) {
            throw new Refused("expected " + c);
        }
        p++;
    }

    private void skipSpaces() {
        while (at(' ')) {
            p++;
        }
    }

    /** Reads up to an unescaped stop character; \, \= \space and \\ resolve, other backslashes are themselves. */
    private String name(final String stops, final boolean key) {
        final StringBuilder b = new StringBuilder();
        while (p < s.length()) {
            final char c = s.charAt(p);
            if (stops.indexOf(c) >= 0) {
                break;
            }
            if (c == '\\') {
                if (p + 1 >= s.length() || s.charAt(p + 1) == '\r') {
                    throw new Refused("backslash at end");
                }
                final char x = s.charAt(p + 1);
                if (x == ',' || x == '=' || x == ' ' || x == '\\') {
                    b.append(x);
                } else {
                    b.append(c).append(x);
                }
                p += 2;
                continue;
            }
            b.append(c);
            p++;
        }
        if (b.length() == 0) {
            throw new Refused("empty name");
        }
        return b.toString();
    }

    /** @return {kind, text} of a field value. */
    private String[] fieldValue() {
        if (at('"')) {
            p++;
            final StringBuilder b = new StringBuilder();
            while (true) {
                if (p >= s.length()) {
                    throw new Refused("unclosed string");
                }
                final char c = s.charAt(p);
                if (c == '"') {
                    p++;
                    return new String[] {"string", b.toString()};
                }
                if (c == '\\' && p + 1 < s.length() && (s.charAt(p + 1) == '"' || s.charAt(p + 1) == '\\')) {
                    b.append(s.charAt(p + 1));
                    p += 2;
                } else {
                    b.append(c);
                    p++;
                }
            }
        }
        final int from = p;
        while (p < s.length() && s.charAt(p) != ',' && s.charAt(p) != ' ' && s.charAt(p) != '\r') {
            p++;
        }
        final String v = s.substring(from, p);
        if (v.isEmpty()) {
            throw new Refused("empty value");
        }
        if (Set.of("t", "T", "true", "True", "TRUE").contains(v)) {
            return new String[] {"bool", "1"};
        }
        if (Set.of("f", "F", "false", "False", "FALSE").contains(v)) {
            return new String[] {"bool", "0"};
        }
        final char last = v.charAt(v.length() - 1);
        if (last == 'i' || last == 'u' || last == 't') {
            final String digits = v.substring(0, v.length() - 1);
            if (!digits.matches(last == 'u' ? "[0-9]+" : "-?[0-9]+")) {
                throw new Refused("integer syntax " + v);
            }
            final BigInteger n = new BigInteger(digits);
            if (n.bitLength() > 63) {
                throw new Refused("integer range " + v);
            }
            return new String[] {last == 't' ? "micros" : "int", n.toString()};
        }
        if (v.matches("[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?")
            || v.matches("[+-]?(Infinity|(?i:inf))") || v.equals("NaN")) {
            return new String[] {"float", v};
        }
        throw new Refused("not a value " + v);
    }

    private List<String> map(final Map<String, String[]> entries, final List<String> order, final Long ts) {
        final String[] row = new String[schema.columnCount()];
        final Set<String> known = new HashSet<>(schema.columnNames());
        for (final String key : order) {
            if (!known.contains(key)) {
                throw new Refused("unknown column " + key);
            }
            final Column c = schema.require(key);
            if (c.index() == schema.timestampIndex()) {
                throw new Refused("designated");
            }
            row[c.index()] = convert(c, entries.get(key));
        }
        if (schema.timestampIndex() >= 0) {
            row[schema.timestampIndex()] = Long.toString(ts != null ? ts : nowNanos);
            if (ts != null && ts == Long.MIN_VALUE) {
                throw new Refused("null timestamp");
            }
        }
        return Arrays.asList(row);
    }

    private static String convert(final Column c, final String[] v) {
        final String kind = v[0];
        final String text = v[1];
        switch (c.type()) {
            case SYMBOL: {
                if (!kind.equals("tag") && !kind.equals("string")) {
                    throw new Refused("symbol from " + kind);
                }
                if (text.getBytes(StandardCharsets.UTF_8).length > 1024) {
                    throw new Refused("long symbol");
                }
                return text.isEmpty() ? null : text;
            }
            case CHAR: {
                if (!kind.equals("tag") && !kind.equals("string")) {
                    throw new Refused("char from " + kind);
                }
                if (text.isEmpty()) {
                    return null;
                }
                if (text.length() != 1 || text.charAt(0) == 0 || text.charAt(0) > 127) {
                    throw new Refused("char " + text);
                }
                return text;
            }
            case I8:
            case I16:
            case I32:
            case I64: {
                final BigInteger n;
                if (kind.equals("int") || kind.equals("bool")) {
                    n = new BigInteger(text);
                } else if (kind.equals("float")) {
                    final BigDecimal d = exact(text);
                    if (d == null || fractionDigits(text) > 0 && d.signum() != 0 || significant(text) > 18
                        || d.signum() != 0 && d.precision() - d.scale() > 19) {
                        throw new Refused("not an integer within range " + text);
                    }
                    n = d.signum() == 0 ? BigInteger.ZERO : d.toBigInteger();
                } else {
                    throw new Refused("integer from " + kind);
                }
                final int bits = c.type().width() * 8;
                final BigInteger max = BigInteger.ONE.shiftLeft(bits - 1).subtract(BigInteger.ONE);
                if (n.compareTo(max) > 0 || n.compareTo(max.negate()) < 0) {
                    throw new Refused("range " + n);
                }
                return n.toString();
            }
            case DECIMAL:
                return decimal(c, kind, text);
            case F64: {
                if (kind.equals("int")) {
                    return Double.toString((double) Long.parseLong(text));
                }
                if (!kind.equals("float")) {
                    throw new Refused("f64 from " + kind);
                }
                if (text.equals("NaN")) {
                    return null;
                }
                if (text.matches("[+-]?[iI].*")) {
                    return text.startsWith("-") ? "-Infinity" : "Infinity";
                }
                return Double.toString(Double.parseDouble(text));
            }
            case TIMESTAMP: {
                if (!kind.equals("micros")) {
                    throw new Refused("timestamp from " + kind);
                }
                final BigInteger n = new BigInteger(text).multiply(BigInteger.valueOf(1000));
                if (n.bitLength() > 63) {
                    throw new Refused("timestamp range");
                }
                return n.toString();
            }
            default:
                throw new IllegalStateException();
        }
    }

    private static String decimal(final Column c, final String kind, final String text) {
        final BigDecimal d;
        if (kind.equals("int")) {
            d = new BigDecimal(text);
        } else if (kind.equals("float")) {
            d = exact(text);
            if (d == null) {
                throw new Refused("decimal from " + text);
            }
            if (fractionDigits(text) > c.scale() && d.signum() != 0) {
                throw new Refused("scale " + text);
            }
        } else {
            throw new Refused("decimal from " + kind);
        }
        if (d.signum() == 0) {
            return BigDecimal.valueOf(0, c.scale()).toPlainString();
        }
        if (d.precision() - d.scale() > 19) {
            throw new Refused("decimal range " + text);
        }
        final BigDecimal scaled = d.setScale(c.scale());
        if (scaled.unscaledValue().bitLength() > 63 || significant(text) > 18) {
            throw new Refused("decimal range " + text);
        }
        return scaled.toPlainString();
    }

    /** @return the float's exact value, or null for NaN and the infinities. */
    private static BigDecimal exact(final String text) {
        if (text.matches(".*[NnIi].*")) {
            return null;
        }
        final String[] parts = (text.startsWith("+") ? text.substring(1) : text).split("[eE]");
        final String mantissa = parts[0].replaceFirst("^(-?)\\.", "$10.").replaceFirst("\\.$", "");
        // an exponent beyond any column's reach is clamped: the value is then out of range or too fine either way
        final int exponent = parts.length == 1 ? 0 : new BigInteger(parts[1].replace("+", ""))
            .max(BigInteger.valueOf(-100_000)).min(BigInteger.valueOf(100_000)).intValueExact();
        return new BigDecimal(mantissa).scaleByPowerOfTen(exponent);
    }

    /** @return fraction digits after the exponent is applied: digits after the point minus the exponent. */
    private static int fractionDigits(final String text) {
        final String[] parts = text.split("[eE]");
        final int point = parts[0].indexOf('.');
        final int digits = point < 0 ? 0 : parts[0].length() - point - 1;
        final BigInteger exponent = parts.length > 1 ? new BigInteger(parts[1].replace("+", "")) : BigInteger.ZERO;
        return BigInteger.valueOf(digits).subtract(exponent).max(BigInteger.valueOf(-1_000_000))
            .min(BigInteger.valueOf(1_000_000)).intValueExact();
    }

    /** @return significant digits of a float's mantissa (leading zeros not counted). */
    private static int significant(final String text) {
        final String m = text.split("[eE]")[0].replaceAll("[^0-9]", "").replaceFirst("^0+", "");
        return m.length();
    }
}
