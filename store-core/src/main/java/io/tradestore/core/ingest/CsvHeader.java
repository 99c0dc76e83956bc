package io.tradestore.core.ingest;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

import io.tradestore.core.StoreException;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Schema;

/**
 * Reads a file's header row and maps its names onto the table's columns: any order, case-insensitive, surrounding
 * spaces ignored. Every column must be named exactly once and no other name may appear; otherwise the load fails
 * before any row is read.
 */
final class CsvHeader {
    private CsvHeader() {
    }

    /**
     * Parses the header at the start of {@code in} (after an optional UTF-8 byte order mark).
     *
     * @param in            the first bytes of the file, or null when it is empty.
     * @param name          the file's name for messages.
     * @param schema        the table's schema.
     * @param maxLineLength the longest header accepted.
     * @param rowsCommitted rows of this load already committed (earlier inputs), for the failure.
     * @return the mapping.
     */
    static CsvFormat parse(final CsvInput in, final String name, final Schema schema, final int maxLineLength,
        final long rowsCommitted) {
        if (in == null || in.limitOffset == 0) {
            throw error(name, 1, 1, "empty file; expected a header row naming the columns " + columnList(schema),
                rowsCommitted);
        }
        final long base = in.address(0);
        final long end = in.address(in.limitOffset);
        long p = skipByteOrderMark(base, end);
        final long lineStart = p;
        final int[] columnOf = new int[schema.columnCount() + 64];
        final long[] at = new long[columnOf.length];
        int fields = 0;
        int lines = 1;
        final byte[] bytes = new byte[Math.min(maxLineLength, 1 << 16)];
        boolean done = false;
        while (!done) {
            final long fieldStart = p;
            int n = 0;
            if (p < end && NativeMemory.getByte(p) == '"') {
                p++;
                while (true) {
                    if (p >= end) {
                        throw error(name, 1, fieldStart - lineStart + 1, "unterminated quoted name in the header row",
                            rowsCommitted);
                    }
                    final byte b = NativeMemory.getByte(p);
                    if (b == '"') {
                        if (p + 1 < end && NativeMemory.getByte(p + 1) == '"') {
                            p++;
                        } else {
                            p++;
                            break;
                        }
                    } else if (b == '\n') {
                        lines++;
                    }
                    if (n < bytes.length) {
                        bytes[n++] = b;
                    }
                    p++;
                }
            }
            while (p < end) {
                final byte b = NativeMemory.getByte(p);
                if (b == ',' || b == '\n') {
                    break;
                }
                if (n < bytes.length) {
                    bytes[n++] = b;
                }
                p++;
            }
            if (p - lineStart > maxLineLength) {
                throw tooLong(name, maxLineLength, 0, rowsCommitted);
            }
            if (p >= end || NativeMemory.getByte(p) == '\n') {
                done = true;
            }
            p++;
            final String raw = new String(bytes, 0, n, StandardCharsets.UTF_8);
            final String fieldName = raw.strip().toLowerCase(Locale.ROOT);
            final long column = fieldStart - lineStart + 1;
            final int c = resolve(name, schema, raw, fieldName, fieldStart, column, fields == 0 && done,
                rowsCommitted);
            for (int i = 0; i < fields; i++) {
                if (columnOf[i] == c) {
                    throw error(name, 1, column, "duplicate column '" + fieldName + "' (also at column " + at[i] + ")",
                        rowsCommitted);
                }
            }
            columnOf[fields] = c;
            at[fields] = column;
            fields++;
        }
        checkAllNamed(name, schema, columnOf, fields, rowsCommitted);
        final long dataOffset = Math.min(in.limitOffset, in.baseOffset + (p - in.base));
        return new CsvFormat(name, schema, Arrays.copyOf(columnOf, fields), lines, dataOffset);
    }

    /** @return where the header row starts: after the UTF-8 byte order mark, when the file has one. */
    private static long skipByteOrderMark(final long base, final long end) {
        if (end - base >= 3 && (NativeMemory.getByte(base) & 0xFF) == 0xEF
            && (NativeMemory.getByte(base + 1) & 0xFF) == 0xBB && (NativeMemory.getByte(base + 2) & 0xFF) == 0xBF) {
            return base + 3;
        }
        return base;
    }

    /**
     * Resolves one header name to its table column, refusing an empty name, a carriage return inside the row and a
     * name the table does not have.
     *
     * @param name          the file's name for messages.
     * @param schema        the table's schema.
     * @param raw           the name as read, without its quotes.
     * @param fieldName     the name stripped and in lower case.
     * @param fieldStart    the address of the field's first byte (its opening quote when quoted).
     * @param column        the field's 1-based byte column in the header row.
     * @param only          whether it is the row's first and last field (an empty one is then an empty header row).
     * @param rowsCommitted rows of this load already committed (earlier inputs), for the failure.
     * @return the column index.
     */
    private static int resolve(final String name, final Schema schema, final String raw, final String fieldName,
        final long fieldStart, final long column, final boolean only, final long rowsCommitted) {
        if (fieldName.isEmpty()) {
            if (only) {
                throw error(name, 1, 1, "empty header row; expected the columns " + columnList(schema), rowsCommitted);
            }
            throw error(name, 1, column, "empty column name in the header row", rowsCommitted);
        }
        // a CRLF's CR is stripped at the end of the last name: this one ends no line
        if (fieldName.indexOf('\r') >= 0) {
            final int cr = raw.indexOf('\r');
            final long crColumn = column + (NativeMemory.getByte(fieldStart) == '"' ? 1 : 0)
                + raw.substring(0, cr).getBytes(StandardCharsets.UTF_8).length;
            throw error(name, 1, crColumn,
                "a carriage return inside the header row; lines must end in LF or CRLF (a file whose lines end"
                + " in CR alone reads as one line)", rowsCommitted);
        }
        final int c = schema.indexOf(fieldName);
        if (c < 0) {
            throw error(name, 1, column,
                "unknown column '" + StoreException.echo(raw.strip()) + "'; table '" + schema.name()
                + "' has columns "
                + columnList(schema), rowsCommitted);
        }
        return c;
    }

    /** Fails on the first table column that none of the header's {@code fields} names mapped to. */
    private static void checkAllNamed(final String name, final Schema schema, final int[] columnOf, final int fields,
        final long rowsCommitted) {
        for (int c = 0; c < schema.columnCount(); c++) {
            boolean found = false;
            for (int i = 0; i < fields; i++) {
                found |= columnOf[i] == c;
            }
            if (!found) {
                throw error(name, 1, 1,
                    "missing column '" + schema.column(c).name() + "'; the header must name every column of table '"
                    + schema.name() + "': " + columnList(schema), rowsCommitted);
            }
        }
    }

    /** @return the table's column names as the messages list them. */
    private static String columnList(final Schema schema) {
        return String.join(",", schema.columnNames());
    }

    /**
     * @param file          the input's name.
     * @param line          the 1-based line to blame.
     * @param column        the 1-based byte column in it.
     * @param message       what is wrong.
     * @param rowsCommitted rows of this load already committed (earlier inputs).
     * @return the failure, as {@code FILE:LINE:COLUMN: message}.
     */
    static LoadException error(final String file, final long line, final long column, final String message,
        final long rowsCommitted) {
        return new LoadException(file + ":" + line + ":" + column + ": " + message, file, line, column, rowsCommitted);
    }

    /**
     * A header row over the line limit: found by {@link #parse}, or by a stream source whose buffer it does not fit
     * (gzip, pipes; the buffer is larger than the limit), which reads no further.
     *
     * @param file          the input's name.
     * @param maxLineLength the loader's line limit.
     * @param bufferLength  the stream buffer's bytes, or 0 (found by parse).
     * @param rowsCommitted rows of this load already committed (earlier inputs).
     * @return the failure.
     */
    static LoadException tooLong(final String file, final int maxLineLength, final int bufferLength,
        final long rowsCommitted) {
        return error(file, 1, maxLineLength + 1L, "header row is longer than the limit of " + maxLineLength + " bytes"
            + (bufferLength > 0 ? " (and than the " + bufferLength + "-byte buffer of compressed or piped input)" : ""),
            rowsCommitted);
    }
}
