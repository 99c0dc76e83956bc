package io.tradestore.core.ingest.line;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

import io.tradestore.core.dict.SymbolDictionaryDescriptor;
import io.tradestore.core.ingest.ParsedRows;
import io.tradestore.core.ingest.TenPowers;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;

/**
 * One table's side of a line: finds each tag's and field's column by name, converts the value to the column's type
 * (exactly: decimals from their digits, integers within the column's width) and stores it into a new row of the
 * request's rows of the table ({@link ParsedRows}, appended to the table's writer once the whole request parsed). A
 * column a line does not name stays null; the designated timestamp comes from the line's timestamp, or the request's
 * time when the line has none.
 */
final class LineTable {
    private final Schema schema;
    private final ParsedRows rows;
    final byte[] nameBytes;
    private final byte[][] names;
    private final ColumnType[] types;
    private final int[] scales;
    private final String[] columnNames;
    /** Each column's type as the schema writes it ({@code decimal(6)}), for messages. */
    private final String[] typeNames;
    private final int timestampIndex;
    private final long[] seen;
    private final LineValues values = new LineValues();
    private byte[] scratch = new byte[256];

    /**
     * @param schema the table's schema.
     * @param rows   where the request's rows of the table go.
     */
    LineTable(final Schema schema, final ParsedRows rows) {
        this.schema = schema;
        this.rows = rows;
        this.nameBytes = schema.name().getBytes(StandardCharsets.UTF_8);
        final int n = schema.columnCount();
        this.names = new byte[n][];
        this.types = new ColumnType[n];
        this.scales = new int[n];
        this.columnNames = new String[n];
        this.typeNames = new String[n];
        for (final Column c : schema.columns()) {
            names[c.index()] = c.name().getBytes(StandardCharsets.UTF_8);
            types[c.index()] = c.type();
            scales[c.index()] = c.scale();
            columnNames[c.index()] = c.name();
            typeNames[c.index()] = c.typeName();
        }
        this.timestampIndex = schema.timestampIndex();
        this.seen = new long[(n + 63) >>> 6];
    }

    /** @return the schema the lines were parsed against. */
    Schema schema() {
        return schema;
    }

    /** @return the request's rows of the table. */
    ParsedRows rows() {
        return rows;
    }

    /**
     * Stores the cursor's line as a new row.
     *
     * @param c         the cursor, on a line for this table.
     * @param precision the unit of the line's timestamp.
     * @param nowNanos  the designated timestamp of a line without one.
     */
    void append(final LineCursor c, final Precision precision, final long nowNanos) {
        Arrays.fill(seen, 0L);
        long ts = nowNanos;
        if (timestampIndex >= 0 && c.hasTimestamp) {
            ts = nanos(c.timestamp, precision.nanos());
            if (ts == Long.MIN_VALUE) {
                throw c.error(c.timestampStart, "the timestamp " + c.timestamp + " in " + precision.name()
                    .toLowerCase(Locale.ROOT) + " is beyond the range of nanoseconds since 1970 (years 1677 to "
                    + "2262)", columnNames[timestampIndex]);
            }
        }
        final long row = rows.append();
        if (timestampIndex >= 0) {
            NativeMemory.putLong(rows.address(row, timestampIndex), ts);
        }
        final int count = c.entryCount;
        final boolean trusted = c.claim(this);
        for (int i = 0; i < count; i++) {
            final int col = trusted && c.keyColumn[i] >= 0 ? c.keyColumn[i] : column(c, i);
            final long bit = 1L << col;
            if ((seen[col >>> 6] & bit) != 0) {
                throw c.error(c.keyStart[i], (i < c.tagCount ? "tag" : "field") + " '" + columnNames[col]
                    + "' appears twice on the line", columnNames[col]);
            }
            seen[col >>> 6] |= bit;
            if (col == timestampIndex) {
                throw c.error(c.keyStart[i], "'" + columnNames[col] + "' is the table's designated timestamp: give "
                    + "it as the line's timestamp, after the fields", columnNames[col]);
            }
            store(c, i, col, row);
        }
        if (timestampIndex < 0 && c.hasTimestamp) {
            throw c.error(c.timestampStart, "table '" + schema.name() + "' has no designated timestamp: send the "
                + "line without one");
        }
    }

    /**
     * @param value a time in some unit.
     * @param unit  nanoseconds per unit.
     * @return it in nanoseconds, or {@code Long.MIN_VALUE} (the timestamp null, never a value) when that overflows.
     */
    private static long nanos(final long value, final long unit) {
        final long hi = Math.multiplyHigh(value, unit);
        final long lo = value * unit;
        return hi != (lo >> 63) ? Long.MIN_VALUE : lo;
    }

    /** Finds entry i's column by name, and tells the cursor to expect it there on the next lines. */
    private int column(final LineCursor c, final int i) {
        final int col = lookup(c, i);
        c.expect(i, names[col], col);
        return col;
    }

    private int lookup(final LineCursor c, final int i) {
        final byte[] b;
        int s = c.keyStart[i];
        int length = c.keyEnd[i] - s;
        if (c.keyEscaped[i]) {
            final byte[] to = scratch(length);
            length = c.unescape(s, c.keyEnd[i], false, to);
            b = to;
            s = 0;
        } else {
            b = c.buffer();
        }
        for (int k = 0; k < names.length; k++) {
            if (matches(names[k], b, s, length)) {
                return k;
            }
        }
        final String key = new String(b, s, length, StandardCharsets.UTF_8);
        throw c.error(c.keyStart[i], "table '" + schema.name() + "' has no column '" + key + "' (its columns are "
            + schema.columnNames() + "); tradestore does not add columns to an existing table");
    }

    /** @return whether {@code b[s, s + length)} holds {@code name}. */
    static boolean matches(final byte[] name, final byte[] b, final int s, final int length) {
        if (name.length != length) {
            return false;
        }
        for (int k = 0; k < length; k++) {
            if (name[k] != b[s + k]) {
                return false;
            }
        }
        return true;
    }

    private byte[] scratch(final int length) {
        if (scratch.length < length) {
            scratch = new byte[Math.max(length, scratch.length * 2)];
        }
        return scratch;
    }

    /** Converts entry i to column col's type and stores it into the row (unless a dry run). */
    private void store(final LineCursor c, final int i, final int col, final long row) {
        final byte kind = c.kind[i];
        final ColumnType type = types[col];
        switch (type) {
            case SYMBOL:
                symbol(c, i, col, row);
                return;
            case CHAR:
                character(c, i, col, row);
                return;
            case I8:
            case I16:
            case I32:
            case I64:
                integer(c, i, col, row, kind, type);
                return;
            case DECIMAL:
                decimal(c, i, col, row, kind);
                return;
            case F64:
                floating(c, i, col, row, kind);
                return;
            case TIMESTAMP:
                if (kind != LineCursor.MICROS) {
                    throw refused(c, i, col, "a timestamp field in microseconds, such as 1700000000000000t");
                }
                final long ts = nanos(c.valueLong[i], Precision.MICROS.nanos());
                if (ts == Long.MIN_VALUE) {
                    throw c.error(c.valueStart[i], "the timestamp " + c.valueLong[i] + "t is beyond the range of "
                        + "nanoseconds since 1970 (years 1677 to 2262)", columnNames[col]);
                }
                NativeMemory.putLong(rows.address(row, col), ts);
                return;
            default:
                throw new IllegalStateException("type " + type);
        }
    }

    private void symbol(final LineCursor c, final int i, final int col, final long row) {
        final byte kind = c.kind[i];
        if (kind != LineCursor.TAG && kind != LineCursor.STRING) {
            throw refused(c, i, col, "a tag or a quoted string");
        }
        final byte[] b;
        int s = c.valueStart[i];
        int length = c.valueEnd[i] - s;
        if (c.valueEscaped[i]) {
            final byte[] to = scratch(length);
            length = c.unescape(s, c.valueEnd[i], kind == LineCursor.STRING, to);
            b = to;
            s = 0;
        } else {
            b = c.buffer();
        }
        if (length == 0) {
            return; // an empty string is null, as an empty CSV field is
        }
        if (length > SymbolDictionaryDescriptor.MAX_SYMBOL_LENGTH) {
            throw c.error(c.valueStart[i], "a symbol of " + length + " bytes is longer than the limit of "
                + SymbolDictionaryDescriptor.MAX_SYMBOL_LENGTH, columnNames[col]);
        }
        final int known = rows.symbolCount(col);
        final int code = rows.symbol(col, b, s, length);
        // only a string new to this request is checked
        if (rows.symbolCount(col) != known && !Utf8.valid(b, s, s + length)) {
            throw c.error(c.valueStart[i], "the value is not valid UTF-8", columnNames[col]);
        }
        NativeMemory.putInt(rows.address(row, col), code);
    }

    private void character(final LineCursor c, final int i, final int col, final long row) {
        final byte kind = c.kind[i];
        if (kind != LineCursor.TAG && kind != LineCursor.STRING) {
            throw refused(c, i, col, "a tag or a quoted string of one character");
        }
        final byte[] b = c.buffer();
        final int s = c.valueStart[i];
        int length = c.valueEnd[i] - s;
        byte v = length > 0 ? b[s] : 0;
        if (c.valueEscaped[i]) {
            final byte[] to = scratch(length);
            length = c.unescape(s, c.valueEnd[i], kind == LineCursor.STRING, to);
            v = to[0];
        }
        if (length == 0) {
            return;
        }
        if (length != 1 || v <= 0) {
            throw c.error(s, "column '" + columnNames[col] + "' holds one ASCII character, not '"
                + c.text(s, c.valueEnd[i]) + "'", columnNames[col]);
        }
        NativeMemory.putByte(rows.address(row, col), v);
    }

    private void integer(final LineCursor c, final int i, final int col, final long row, final byte kind,
        final ColumnType type) {
        final long v;
        if (kind == LineCursor.INTEGER || kind == LineCursor.UNSIGNED || kind == LineCursor.BOOLEAN) {
            v = c.valueLong[i];
        } else if (kind == LineCursor.FLOAT) {
            v = values.plainInteger(c.buffer(), c.valueStart[i], c.valueEnd[i]);
            if (values.error != LineValues.OK) {
                throw c.error(c.valueStart[i], "column '" + columnNames[col] + "' is " + typeNames[col] + " and '"
                    + c.text(c.valueStart[i], c.valueEnd[i]) + "' is not an integer"
                    + (values.error == LineValues.E_RANGE ? " within 64 bits" : "; send integers as 12i"),
                    columnNames[col]);
            }
        } else {
            throw refused(c, i, col, "an integer such as 12i");
        }
        final int width = type.width();
        final long min = type.nullBits(); // the sentinel is null, so the range starts one above it
        final long max = -(min + 1);
        if (v <= min || v > max) {
            throw c.error(c.valueStart[i], "value " + v + " is outside the range of column '" + columnNames[col]
                + "' (" + typeNames[col] + ": " + (min + 1) + " to " + max + ")", columnNames[col]);
        }
        final long a = rows.address(row, col);
        if (width == 8) {
            NativeMemory.putLong(a, v);
        } else if (width == 4) {
            NativeMemory.putInt(a, (int) v);
        } else if (width == 2) {
            NativeMemory.putShort(a, (short) v);
        } else {
            NativeMemory.putByte(a, (byte) v);
        }
    }

    private void decimal(final LineCursor c, final int i, final int col, final long row, final byte kind) {
        final int scale = scales[col];
        final long m;
        if (kind == LineCursor.FLOAT) {
            m = values.decimal(c.buffer(), c.valueStart[i], c.valueEnd[i], scale);
            if (values.error == LineValues.E_SCALE) {
                throw c.error(c.valueStart[i], "'" + c.text(c.valueStart[i], c.valueEnd[i]) + "' has "
                    + values.fractionDigits + " fraction digits and column '" + columnNames[col] + "' is "
                    + typeNames[col] + ": it would have to be rounded", columnNames[col]);
            }
            if (values.error != LineValues.OK) {
                throw c.error(c.valueStart[i], "'" + c.text(c.valueStart[i], c.valueEnd[i]) + "' is "
                    + (values.error == LineValues.E_RANGE ? "beyond the range of" : "not a number for")
                    + " column '" + columnNames[col] + "' (" + typeNames[col] + ")", columnNames[col]);
            }
        } else if (kind == LineCursor.INTEGER || kind == LineCursor.UNSIGNED) {
            final long v = c.valueLong[i];
            final long unit = TenPowers.of(scale);
            if (v > Long.MAX_VALUE / unit || v < -(Long.MAX_VALUE / unit)) {
                throw c.error(c.valueStart[i], "value " + v + " is beyond the range of column '" + columnNames[col]
                    + "' (" + typeNames[col] + ")", columnNames[col]);
            }
            m = v * unit;
        } else {
            throw refused(c, i, col, "a number such as 101.25");
        }
        NativeMemory.putLong(rows.address(row, col), m);
    }

    private void floating(final LineCursor c, final int i, final int col, final long row, final byte kind) {
        final double v;
        if (kind == LineCursor.FLOAT) {
            v = values.toDouble(c.buffer(), c.valueStart[i], c.valueEnd[i]);
        } else if (kind == LineCursor.INTEGER || kind == LineCursor.UNSIGNED) {
            v = c.valueLong[i];
        } else {
            throw refused(c, i, col, "a number such as 1.5");
        }
        NativeMemory.putDouble(rows.address(row, col), v);
    }

    private LineProtocolException refused(final LineCursor c, final int i, final int col, final String wanted) {
        final String what;
        switch (c.kind[i]) {
            case LineCursor.TAG:
                what = "a tag";
                break;
            case LineCursor.STRING:
                what = "a string";
                break;
            case LineCursor.INTEGER:
                what = "an integer";
                break;
            case LineCursor.UNSIGNED:
                what = "an unsigned integer";
                break;
            case LineCursor.BOOLEAN:
                what = "a boolean";
                break;
            case LineCursor.MICROS:
                what = "a timestamp";
                break;
            default:
                what = "a float";
        }
        final int at = c.kind[i] == LineCursor.STRING ? c.valueStart[i] - 1 : c.valueStart[i];
        return c.error(at, "column '" + columnNames[col] + "' is " + typeNames[col] + " and takes " + wanted + ", not "
            + what + " ('" + c.text(c.valueStart[i], c.valueEnd[i]) + "')", columnNames[col]);
    }
}
