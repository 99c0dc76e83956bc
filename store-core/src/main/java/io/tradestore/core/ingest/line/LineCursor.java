package io.tradestore.core.ingest.line;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads a body of InfluxDB line protocol one line at a time, in place: each {@link #next()} leaves the offsets of the
 * line's measurement, tags, fields and timestamp in this object's arrays, checks their syntax, and allocates nothing
 * once the arrays have grown to the widest line.
 *
 * <pre>
 *   measurement[,tag=value...] field=value[,field=value...] [timestamp]\n
 *   escapes: measurement  \,  \space            tag keys, tag values, field keys  \,  \=  \space
 *            string field values "..."  \"  \\   (a backslash before anything else is itself)
 *   field values: "string"  12i (integer)  12u (unsigned)  1.5 -2 1e-3 NaN Infinity (float)
 *                 t T true True TRUE f F false False FALSE (boolean)  1700000000000000t (microseconds)
 *   blank lines and lines starting with # are skipped; a line may end in \r\n
 * </pre>
 */
final class LineCursor {
    /** A tag value (always text). */
    static final byte TAG = 0;
    /** A quoted string field. */
    static final byte STRING = 1;
    /** An integer field ({@code 12i}); its value is in {@link #valueLong}. */
    static final byte INTEGER = 2;
    /** An unsigned integer field ({@code 12u}); its value is in {@link #valueLong}. */
    static final byte UNSIGNED = 3;
    /** A float field: digits with an optional point and exponent, or NaN and the infinities. */
    static final byte FLOAT = 4;
    /** A boolean field; {@link #valueLong} is 1 or 0. */
    static final byte BOOLEAN = 5;
    /** A timestamp field in microseconds ({@code 1700000000000000t}); its value is in {@link #valueLong}. */
    static final byte MICROS = 6;

    /** Byte classes, so that each scanning loop tests one table entry per byte. */
    private static final byte END = 1;
    private static final byte EQUALS = 2;
    private static final byte BACKSLASH = 4;
    private static final byte TAB = 8;
    private static final byte[] CLASS = classes();
    /** Eight bytes of the body read as one little-endian long. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
        ByteOrder.LITTLE_ENDIAN);
    private static final long COMMAS = 0x2C2C2C2C2C2C2C2CL;
    private static final long SPACES = 0x2020202020202020L;
    private static final long NEWLINES = 0x0A0A0A0A0A0A0A0AL;
    private static final long RETURNS = 0x0D0D0D0D0D0D0D0DL;
    /** {@code Long.MIN_VALUE / 10}: digits accumulate negatively, and one more digit below this overflows. */
    private static final long MIN_DIV_10 = Long.MIN_VALUE / 10;

    private byte[] buf;
    private int limit;
    private int pos;
    /** The current line's number (1-based) and the offset of its first byte. */
    long lineNumber;
    int lineStart;
    /** Lines counted up to {@link #pos} (a string field may hold newlines). */
    private long linesRead;

    int measurementStart;
    int measurementEnd;
    boolean measurementEscaped;
    /** Tags first (kind {@link #TAG}), then fields. */
    int tagCount;
    int entryCount;
    int[] keyStart = new int[16];
    int[] keyEnd = new int[16];
    boolean[] keyEscaped = new boolean[16];
    int[] valueStart = new int[16];
    int[] valueEnd = new int[16];
    boolean[] valueEscaped = new boolean[16];
    byte[] kind = new byte[16];
    long[] valueLong = new long[16];
    /**
     * The key the k-th entry had on the previous line of the same table, with its column ({@link #expect}): a key
     * that repeats it is taken at once, without a byte-by-byte scan and a name lookup. Lines of a feed name the same
     * columns in the same order, line after line.
     */
    private byte[][] expected = new byte[16][];
    private int[] expectedColumn = new int[16];
    /** Who set the expectations (a table's mapper), and the column each entry of this line got from them, or -1. */
    private Object expectedBy;
    int[] keyColumn = new int[16];
    boolean hasTimestamp;
    long timestamp;
    /** The value {@link #digits} read last, negated. */
    private long negated;
    int timestampStart;

    private static byte[] classes() {
        final byte[] c = new byte[256];
        c[','] = END;
        c[' '] = END;
        c['\n'] = END;
        c['\r'] = END;
        c['='] = EQUALS;
        c['\\'] = BACKSLASH;
        c['\t'] = TAB;
        return c;
    }

    /**
     * @return the offset of the first byte from {@code from} that ends an unquoted field value (',' ' ' '\n' '\r'),
     *     or the limit: eight bytes at a time (a zero-byte test per delimiter on the word), then the tail byte by byte.
     */
    private int scanValue(final int from) {
        final byte[] b = buf;
        int p = from;
        while (p + 8 <= limit) {
            final long w = (long) LONGS.get(b, p);
            final long hits = zeroBytes(w ^ COMMAS) | zeroBytes(w ^ SPACES) | zeroBytes(w ^ NEWLINES)
                | zeroBytes(w ^ RETURNS);
            if (hits != 0) {
                return p + (Long.numberOfTrailingZeros(hits) >>> 3);
            }
            p += 8;
        }
        return scan(p, END);
    }

    /**
     * @return the high bit set in each byte of {@code x} that is zero (exact for the lowest such byte; a byte above it
     *     may be flagged by the borrow, which the callers never look past).
     */
    private static long zeroBytes(final long x) {
        return (x - 0x0101010101010101L) & ~x & 0x8080808080808080L;
    }

    /** @return the offset of the first byte from {@code from} whose class is in {@code mask}, or the limit. */
    private int scan(final int from, final int mask) {
        final byte[] b = buf;
        final int end = limit;
        int p = from;
        while (p < end && (CLASS[b[p] & 0xff] & mask) == 0) {
            p++;
        }
        return p;
    }

    /**
     * Starts reading a body.
     *
     * @param bytes  the body.
     * @param length its length.
     */
    void reset(final byte[] bytes, final int length) {
        this.buf = bytes;
        this.limit = length;
        this.pos = 0;
        this.linesRead = 0;
        this.lineNumber = 0;
    }

    /** @return the body. */
    byte[] buffer() {
        return buf;
    }

    /**
     * Reads the next line with data, skipping blank and comment lines.
     *
     * @return false at the end of the body.
     * @throws LineProtocolException on a syntax error, naming the line and position.
     */
    boolean next() {
        final byte[] b = buf;
        while (true) {
            int p = pos;
            lineStart = p;
            lineNumber = ++linesRead;
            while (p < limit && (b[p] == ' ' || b[p] == '\t')) {
                p++;
            }
            if (p >= limit) {
                pos = p;
                lineNumber = --linesRead; // a body that ends without a line: no line was read
                return false;
            }
            final byte first = b[p];
            if (first == '\n') {
                pos = p + 1;
                continue;
            }
            if (first == '\r' && p + 1 < limit && b[p + 1] == '\n') {
                pos = p + 2;
                continue;
            }
            if (first == '#') {
                while (p < limit && b[p] != '\n') {
                    p++;
                }
                pos = Math.min(limit, p + 1);
                if (p >= limit) {
                    return false;
                }
                continue;
            }
            pos = line(p);
            return true;
        }
    }

    /** Reads one line from its measurement on; returns the offset after its end of line. */
    private int line(final int from) {
        final byte[] b = buf;
        int p = from;
        measurementStart = p;
        boolean escaped = false;
        while ((p = scan(p, END | TAB | BACKSLASH)) < limit && b[p] == '\\') {
            escaped = true;
            p = escape(p);
        }
        measurementEnd = p;
        measurementEscaped = escaped;
        if (p == from) {
            throw error(p, "the line starts with '" + shown(p) + "' where the table name should be");
        }
        tagCount = 0;
        entryCount = 0;
        while (p < limit && b[p] == ',') {
            p = tag(p + 1);
        }
        tagCount = entryCount;
        if (p >= limit || b[p] == '\n' || b[p] == '\r') {
            throw error(p, "the line has no fields: after the table name and tags comes a space, then "
                + "field=value pairs");
        }
        if (b[p] != ' ') {
            throw error(p, "expected a space or ',' after the table name and tags, found '" + shown(p) + "'");
        }
        p = spaces(p);
        p = field(p);
        while (p < limit && b[p] == ',') {
            p = field(p + 1);
        }
        hasTimestamp = false;
        if (p < limit && b[p] == ' ') {
            p = spaces(p);
            if (p < limit && b[p] != '\n' && b[p] != '\r') {
                p = timestamp(p);
            }
        }
        return endOfLine(p);
    }

    /** Skips a run of spaces from {@code p} (which holds one). */
    private int spaces(final int from) {
        int p = from;
        while (p < limit && buf[p] == ' ') {
            p++;
        }
        return p;
    }

    /** Checks that the line ends at {@code p}; returns the offset of the next line. */
    private int endOfLine(final int p) {
        if (p >= limit) {
            return p;
        }
        final byte c = buf[p];
        if (c == '\n') {
            return p + 1;
        }
        if (c == '\r' && p + 1 < limit && buf[p + 1] == '\n') {
            return p + 2;
        }
        throw error(p, "unexpected '" + shown(p) + "' after the " + (hasTimestamp ? "timestamp" : "fields")
            + "; a line ends after its fields and an optional timestamp");
    }

    /** Steps over a backslash and the byte it escapes; a backslash at the end of a line is an error. */
    private int escape(final int p) {
        if (p + 1 >= limit || buf[p + 1] == '\n' || buf[p + 1] == '\r') {
            throw error(p, "a backslash at the end of the line escapes nothing");
        }
        return p + 2;
    }

    private boolean startsWith(final int p, final byte[] name) {
        final byte[] b = buf;
        int k = 0;
        // the caller has checked that p + name.length < limit: whole words of the name compare as longs
        for (; k + 8 <= name.length; k += 8) {
            if ((long) LONGS.get(b, p + k) != (long) LONGS.get(name, k)) {
                return false;
            }
        }
        for (; k < name.length; k++) {
            if (b[p + k] != name[k]) {
                return false;
            }
        }
        return true;
    }

    private int tag(final int from) {
        final int i = entry();
        int p = key(from, i, "tag");
        valueStart[i] = p;
        boolean escaped = false;
        while ((p = scan(p, END | EQUALS | BACKSLASH)) < limit) {
            final byte c = buf[p];
            if (c == '=') {
                throw error(p, "'=' in the value of tag '" + text(keyStart[i], keyEnd[i]) + "': escape it as \\=");
            }
            if (c != '\\') {
                break;
            }
            escaped = true;
            p = escape(p);
        }
        if (p == valueStart[i]) {
            throw error(p, "tag '" + text(keyStart[i], keyEnd[i]) + "' has no value");
        }
        valueEnd[i] = p;
        valueEscaped[i] = escaped;
        kind[i] = TAG;
        return p;
    }

    /**
     * Says that entry {@code i} of the next lines is likely named {@code name}, column {@code column} of the table
     * that {@link #claim}ed the expectations.
     */
    void expect(final int i, final byte[] name, final int column) {
        expected[i] = name;
        expectedColumn[i] = column;
    }

    /**
     * Makes {@code owner} the one whose expectations the next lines are read with, dropping another's.
     *
     * @param owner a table's mapper.
     * @return whether the current line was read with {@code owner}'s expectations (its {@link #keyColumn}s are then
     *     {@code owner}'s columns).
     */
    boolean claim(final Object owner) {
        if (expectedBy == owner) {
            return true;
        }
        Arrays.fill(expected, null);
        expectedBy = owner;
        return false;
    }

    /** Reads a key up to its '=' for entry {@code i}; returns the offset of the value. */
    private int key(final int from, final int i, final String what) {
        int p = from;
        keyStart[i] = p;
        final byte[] e = expected[i];
        if (e != null) {
            final int end = p + e.length;
            if (end < limit && buf[end] == '=' && startsWith(p, e)) {
                keyEnd[i] = end;
                keyEscaped[i] = false;
                keyColumn[i] = expectedColumn[i];
                return end + 1;
            }
        }
        keyColumn[i] = -1;
        boolean escaped = false;
        while ((p = scan(p, END | EQUALS | BACKSLASH)) < limit) {
            final byte c = buf[p];
            if (c == '=') {
                break;
            }
            if (c != '\\') {
                throw error(p, p == from ? "expected a " + what + " name, found '" + shown(p) + "'"
                    : what + " '" + text(from, p) + "' has no '=' and value");
            }
            escaped = true;
            p = escape(p);
        }
        if (p >= limit) {
            throw error(p, p == from ? "expected a " + what + " name at the end of the body"
                : what + " '" + text(from, p) + "' has no '=' and value");
        }
        if (p == from) {
            throw error(p, "a " + what + " has an empty name");
        }
        keyEnd[i] = p;
        keyEscaped[i] = escaped;
        return p + 1;
    }

    private int field(final int from) {
        final int i = entry();
        int p = key(from, i, "field");
        valueStart[i] = p;
        valueEscaped[i] = false;
        if (p < limit && buf[p] == '"') {
            return string(p, i);
        }
        p = scanValue(p);
        valueEnd[i] = p;
        if (p == valueStart[i]) {
            throw error(p, "field '" + text(keyStart[i], keyEnd[i]) + "' has no value");
        }
        classify(i);
        return p;
    }

    /** A quoted string from {@code p} (its opening quote); it may span lines. */
    private int string(final int from, final int i) {
        int p = from + 1;
        valueStart[i] = p;
        boolean escaped = false;
        long newlines = 0;
        while (p < limit) {
            final byte c = buf[p];
            if (c == '"') {
                break;
            }
            if (c == '\\' && p + 1 < limit && (buf[p + 1] == '"' || buf[p + 1] == '\\')) {
                escaped = true;
                p += 2;
            } else {
                if (c == '\n') {
                    newlines++;
                }
                p++;
            }
        }
        if (p >= limit) {
            throw error(from, "the string value of field '" + text(keyStart[i], keyEnd[i])
                + "' has no closing quote");
        }
        linesRead += newlines;
        valueEnd[i] = p;
        valueEscaped[i] = escaped;
        kind[i] = STRING;
        return p + 1;
    }

    /** Sorts an unquoted field value into its kind and checks its syntax; integers are read here. */
    private void classify(final int i) {
        final int s = valueStart[i];
        final int e = valueEnd[i];
        final byte last = buf[e - 1];
        final int length = e - s;
        if (length <= 5 && bool(s, length, i)) {
            return;
        }
        if (last == 'i' || last == 'u' || last == 't') {
            final boolean unsigned = last == 'u';
            kind[i] = last == 'i' ? INTEGER : unsigned ? UNSIGNED : MICROS;
            valueLong[i] = integer(s, e - 1, !unsigned, i);
            return;
        }
        if (!isFloat(s, e)) {
            throw error(s, "field '" + text(keyStart[i], keyEnd[i]) + "' has value '" + text(s, e)
                + "', which is not a number (12i, 12u, 1.5, 1e-3), a boolean (t, f, true, false), a "
                + "timestamp (1700000000000000t) or a quoted string");
        }
        kind[i] = FLOAT;
    }

    private boolean bool(final int s, final int length, final int i) {
        final byte c = buf[s];
        final boolean value;
        if (c == 't' || c == 'T') {
            value = true;
        } else if (c == 'f' || c == 'F') {
            value = false;
        } else {
            return false;
        }
        if (length == 1 || word(s, length, value ? "true" : "false")) {
            kind[i] = BOOLEAN;
            valueLong[i] = value ? 1 : 0;
            return true;
        }
        return false;
    }

    /** Whether the bytes are {@code w}, {@code W...} capitalised, or all capitals. */
    private boolean word(final int s, final int length, final String w) {
        if (length != w.length()) {
            return false;
        }
        boolean lower = true;
        boolean upper = true;
        boolean capital = true;
        for (int k = 0; k < length; k++) {
            final char c = (char) buf[s + k];
            final char lc = w.charAt(k);
            final char uc = Character.toUpperCase(lc);
            lower &= c == lc;
            upper &= c == uc;
            capital &= c == (k == 0 ? uc : lc);
        }
        return lower || upper || capital;
    }

    /** Reads {@code -?digits} (no sign when unsigned) between s and e as a long, refusing overflow. */
    private long integer(final int s, final int e, final boolean signed, final int i) {
        final boolean negative = signed && s < e && buf[s] == '-';
        final int p = negative ? s + 1 : s;
        if (p >= e) {
            throw error(s, "field '" + text(keyStart[i], keyEnd[i]) + "' has value '" + text(s, e + 1)
                + "' with no digits before its '" + (char) buf[e] + "'");
        }
        final int end = digits(p, e);
        if (end == p - 1) {
            throw error(s, "field '" + text(keyStart[i], keyEnd[i]) + "' has value '" + text(s, e + 1)
                + "', which is beyond the 64-bit integer range");
        }
        if (end != e) {
            throw notInteger(s, e, i);
        }
        if (!negative && negated == Long.MIN_VALUE) {
            throw error(s, "field '" + text(keyStart[i], keyEnd[i]) + "' has value '" + text(s, e + 1)
                + "', which is beyond the 64-bit integer range");
        }
        return negative ? negated : -negated;
    }

    /**
     * Reads the digits from {@code p} on, up to the first other byte or {@code e}, into {@link #negated} (the value
     * negated, so that Long.MIN_VALUE itself is readable); 18 digits cannot overflow, only those past them are checked.
     *
     * @return where the digits end, or {@code p - 1} when they overflow.
     */
    private int digits(final int from, final int e) {
        int p = from;
        long v = 0;
        final int unchecked = Math.min(e, p + 18);
        while (p < unchecked && isDigit(buf[p])) {
            v = v * 10 - (buf[p++] - '0');
        }
        while (p < e && isDigit(buf[p])) {
            final int d = buf[p++] - '0';
            if (v < MIN_DIV_10 || v == MIN_DIV_10 && d > 8) {
                return from - 1;
            }
            v = v * 10 - d;
        }
        negated = v;
        return p;
    }

    private LineProtocolException notInteger(final int s, final int e, final int i) {
        return error(s, "field '" + text(keyStart[i], keyEnd[i]) + "' has value '" + text(s, e + 1)
            + "', which is not " + (buf[e] == 'i' ? "an integer (12i)" : buf[e] == 'u'
            ? "an unsigned integer (12u)" : "a timestamp in microseconds (1700000000000000t)"));
    }

    /** Whether the bytes are a float: {@code [+-]?(d+(.d*)?|.d+)([eE][+-]?d+)?}, NaN or [+-]Infinity (or inf). */
    private boolean isFloat(final int s, final int e) {
        int p = s;
        if (buf[p] == '-' || buf[p] == '+') {
            p++;
        }
        if (p < e && (buf[p] == 'N' || buf[p] == 'n' || buf[p] == 'I' || buf[p] == 'i')) {
            final String w = text(p, e);
            return w.equals("NaN") && p == s || w.equals("Infinity") || w.equalsIgnoreCase("inf");
        }
        int digits = 0;
        while (p < e && isDigit(buf[p])) {
            p++;
            digits++;
        }
        if (p < e && buf[p] == '.') {
            p++;
            while (p < e && isDigit(buf[p])) {
                p++;
                digits++;
            }
        }
        if (digits == 0) {
            return false;
        }
        if (p < e && (buf[p] == 'e' || buf[p] == 'E')) {
            p++;
            if (p < e && (buf[p] == '-' || buf[p] == '+')) {
                p++;
            }
            final int expStart = p;
            while (p < e && isDigit(buf[p])) {
                p++;
            }
            if (p == expStart) {
                return false;
            }
        }
        return p == e;
    }

    private static boolean isDigit(final byte c) {
        return c >= '0' && c <= '9';
    }

    private int timestamp(final int from) {
        final boolean negative = buf[from] == '-';
        final int digitsFrom = negative ? from + 1 : from;
        int p = digits(digitsFrom, limit);
        if (p == digitsFrom - 1 || !negative && negated == Long.MIN_VALUE) {
            throw error(from, "the timestamp '" + text(from, wordEnd(from)) + "' is beyond the 64-bit range");
        }
        if (p == digitsFrom || p < limit && buf[p] != ' ' && buf[p] != '\n' && buf[p] != '\r') {
            throw error(from, "expected an integer timestamp after the fields, found '" + text(from, wordEnd(from))
                + "'");
        }
        timestamp = negative ? negated : -negated;
        timestampStart = from;
        hasTimestamp = true;
        while (p < limit && buf[p] == ' ') {
            p++;
        }
        return p;
    }

    private int wordEnd(final int from) {
        int p = from;
        while (p < limit && p - from < 40 && buf[p] != ' ' && buf[p] != '\n' && buf[p] != '\r') {
            p++;
        }
        return p;
    }

    /** @return the index of a new entry, growing the arrays when needed. */
    private int entry() {
        final int i = entryCount;
        if (i == keyStart.length) {
            final int n = i * 2;
            keyStart = Arrays.copyOf(keyStart, n);
            keyEnd = Arrays.copyOf(keyEnd, n);
            keyEscaped = Arrays.copyOf(keyEscaped, n);
            valueStart = Arrays.copyOf(valueStart, n);
            valueEnd = Arrays.copyOf(valueEnd, n);
            valueEscaped = Arrays.copyOf(valueEscaped, n);
            kind = Arrays.copyOf(kind, n);
            valueLong = Arrays.copyOf(valueLong, n);
            expected = Arrays.copyOf(expected, n);
            expectedColumn = Arrays.copyOf(expectedColumn, n);
            keyColumn = Arrays.copyOf(keyColumn, n);
        }
        entryCount = i + 1;
        return i;
    }

    /**
     * Copies bytes with their escapes resolved into {@code to}.
     *
     * @param s      first byte.
     * @param e      end.
     * @param string whether the bytes are a string field's (only \" and \\ are escapes) or a name's or tag's (\, \=
     *               \space and \\).
     * @param to     the destination, at least {@code e - s} long.
     * @return the bytes written.
     */
    int unescape(final int s, final int e, final boolean string, final byte[] to) {
        int n = 0;
        for (int p = s; p < e; p++) {
            final byte c = buf[p];
            if (c == '\\' && p + 1 < e) {
                final byte x = buf[p + 1];
                if (x == '"' && string || x == '\\' || !string && (x == ',' || x == '=' || x == ' ')) {
                    to[n++] = x;
                    p++;
                    continue;
                }
            }
            to[n++] = c;
        }
        return n;
    }

    /** @return the bytes as text (UTF-8), for messages. */
    String text(final int s, final int e) {
        final int end = Math.min(e, limit);
        final int shown = Math.min(end - s, 200);
        return new String(buf, s, Math.max(0, shown), StandardCharsets.UTF_8)
            + (end - s > shown ? "..." : "");
    }

    private String shown(final int p) {
        if (p >= limit) {
            return "end of body";
        }
        final byte c = buf[p];
        return c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c < 32 || c == 127
            ? String.format("\\x%02x", c & 0xff) : new String(buf, p, 1, StandardCharsets.ISO_8859_1);
    }

    /** @return an error at byte offset {@code p} of the current line. */
    LineProtocolException error(final int p, final String message) {
        return error(p, message, null);
    }

    /** @return an error at byte offset {@code p} of the current line, for a column. */
    LineProtocolException error(final int p, final String message, final String column) {
        final int position = p - lineStart + 1;
        return new LineProtocolException("line " + lineNumber + ", position " + position
            + (column != null ? " (column " + column + ")" : "") + ": " + message, lineNumber, position, column);
    }
}
