package io.tradestore.core.ingest;

import io.tradestore.core.dict.SymbolDictionaryDescriptor;
import io.tradestore.core.memory.NativeMemory;

/**
 * Parses the records of one chunk of CSV bytes straight into a {@link ChunkBuffer}'s columns: one pass over the
 * bytes, values converted as they are read, no String or object per field. Unquoted fields take the fast path; a
 * field that starts with a quote is unescaped into a per-row scratch buffer and parsed from there.
 *
 * <pre>
 *  record := field (',' field)* ('\n' | '\r\n' | end of file)      a blank line is skipped, not counted
 *  field  := unquoted bytes | '"' (bytes | '""' | newline)* '"'     empty field = null (not allowed for the ts)
 * </pre>
 *
 * A bad record is measured with a quote-aware scan ({@link #skipRecord}) so that parsing resumes at the next record;
 * an unterminated quote or a record longer than the line limit resumes at the next physical line instead. One
 * parser per thread; not thread-safe.
 */
final class ChunkParser implements AutoCloseable {
    static final long FAILED = -1;
    static final long INCOMPLETE = -2;

    // structural error types; value errors use FieldParser's codes with type VALUE
    static final int VALUE = 1;
    static final int TOO_FEW = 2;
    static final int TOO_MANY = 3;
    static final int AFTER_QUOTE = 4;
    static final int UNTERMINATED = 5;
    static final int OVERLONG = 6;
    // more value error codes, next to FieldParser's
    static final int E_NULL = 10;
    static final int E_ENCODING = 11;
    static final int E_TOO_LONG = 12;

    private static final byte COMMA = ',';
    private static final byte NL = '\n';
    private static final byte CR = '\r';
    private static final byte QUOTE = '"';
    private static final byte DEL = 0x7F;
    /** Rejects held per chunk before it stops and lets the loader take them, so garbage input keeps the heap small. */
    static final int MAX_REJECTS_PER_CHUNK = 1024;
    private static final java.lang.management.ThreadMXBean THREADS =
        java.lang.management.ManagementFactory.getThreadMXBean();

    private final FieldParser values = new FieldParser();
    private final int maxLineLength;
    private final long scratch;
    private final long scratchLength;
    private long scratchPos;

    // per chunk
    private CsvFormat format;
    private ChunkBuffer out;
    private long limit;
    private boolean eof;
    private long[] fieldBase = new long[0];
    private int line;
    private long lineStart;
    private long rowStart;
    private int rowLine;

    // the row being parsed; a bad row's symbols stay in the chunk's local table but never reach the dictionary,
    // which interns a local code only when a loaded row uses it
    private int currentRow;

    // the current error
    private int errType;
    private int errCode;
    private int errField;
    private long errAt;
    private int errLine;
    private long errLineStart;
    private long errTextAddress;
    private long errTextLength;
    private int skipLines;
    private int skipFields;

    ChunkParser(final int maxLineLength) {
        this.maxLineLength = maxLineLength;
        this.scratchLength = maxLineLength + 64L;
        this.scratch = NativeMemory.allocate(scratchLength);
    }

    /**
     * Parses records that start in {@code [startOffset, input.stopOffset)}.
     *
     * @param in               the bytes.
     * @param startOffset      where the first record starts (assumed; the appender checks it).
     * @param buffer           where rows, rejects and the end go.
     * @param stopAtFirstError whether to stop at the first bad row (fail mode).
     */
    void parse(final CsvInput in, final long startOffset, final ChunkBuffer buffer, final boolean stopAtFirstError) {
        final long t0 = threadCpuNanos();
        buffer.reset(in, startOffset);
        this.format = in.format;
        this.out = buffer;
        this.limit = in.address(in.limitOffset);
        this.eof = in.eofAtLimit;
        final int n = format.fieldCount;
        if (fieldBase.length != n) {
            fieldBase = new long[n];
        }
        bindColumns();
        final long stop = in.address(in.stopOffset);
        long p = in.address(startOffset);
        line = 0;
        while (p < stop) {
            final long start = p;
            final int startLine = line;
            rowStart = p;
            rowLine = line;
            lineStart = p;
            final byte b = NativeMemory.getByte(p);
            if (b == NL) {
                p++;
                line++;
                continue;
            }
            if (b == CR && p + 1 < limit && NativeMemory.getByte(p + 1) == NL) {
                p += 2;
                line++;
                continue;
            }
            if (buffer.rows == buffer.capacity()) {
                buffer.grow();
                bindColumns();
            }
            final long end = parseRow(p, buffer.rows);
            if (end >= 0) {
                if (end - start <= maxLineLength) {
                    buffer.rows++;
                    p = end;
                    line++;
                    continue;
                }
                errType = OVERLONG;
                errLine = startLine;
                errLineStart = start;
                errAt = start + maxLineLength;
            } else if (end == INCOMPLETE) {
                buffer.incomplete = true;
                p = start;
                line = startLine;
                break;
            }
            final long recordEnd = skipRecord(start);
            if (recordEnd == INCOMPLETE) {
                buffer.incomplete = true;
                p = start;
                line = startLine;
                break;
            }
            final ChunkBuffer.Reject r = describe();
            p = recordEnd;
            line = startLine + skipLines;
            if (stopAtFirstError) {
                buffer.error = r;
                break;
            }
            buffer.rejects.add(r);
            if (buffer.rejects.size() >= MAX_REJECTS_PER_CHUNK && p < stop) {
                buffer.truncated = true;
                break;
            }
        }
        buffer.endOffset = in.baseOffset + (p - in.base);
        buffer.linesConsumed = line;
        buffer.parseNanos = threadCpuNanos() - t0;
    }

    /** @return the calling thread's CPU time in nanoseconds. */
    static long threadCpuNanos() {
        return THREADS.getCurrentThreadCpuTime();
    }

    private void bindColumns() {
        for (int f = 0; f < format.fieldCount; f++) {
            fieldBase[f] = out.columns[format.columnOf[f]];
        }
    }

    /**
     * Parses one record. The switch on the field kind sits here, in the loop, and each case is a call of a small
     * per-kind method, so that C2 inlines the whole common path into this one method (a separate switch method that
     * inlined every parser got compiled on its own first and was then too big to inline here: one call per field).
     *
     * @return the address after the record's line end, or {@link #FAILED} / {@link #INCOMPLETE}.
     */
    private long parseRow(long p, final int row) {
        final int n = format.fieldCount;
        final int[] kinds = format.kinds;
        final long[] bases = fieldBase;
        final long lim = limit;
        currentRow = row;
        scratchPos = scratch;
        for (int f = 0; f < n; f++) {
            final long fieldStart = p;
            final byte first = p < lim ? NativeMemory.getByte(p) : NL;
            if (first == QUOTE) {
                p = quoted(f, p, row);
                if (p < 0) {
                    return p;
                }
            } else {
                if (first == COMMA || first == NL || first == CR) {
                    p = empty(f, p, row);
                } else {
                    final long base = bases[f];
                    switch (kinds[f]) {
                        case FieldKind.I64:
                            p = i64(p, lim, base, row);
                            break;
                        case FieldKind.DECIMAL:
                            p = decimal(p, lim, base, row, format.scales[f]);
                            break;
                        case FieldKind.TIMESTAMP:
                            p = timestamp(p, lim, base, row);
                            break;
                        case FieldKind.SYMBOL:
                            p = symbol(f, p, lim);
                            break;
                        case FieldKind.SIDE:
                            p = side(p, lim, base, row);
                            break;
                        default:
                            p = other(kinds[f], p, lim, base, row);
                            break;
                    }
                }
                if (p < 0) {
                    valueError(f, fieldStart);
                    return FAILED;
                }
            }
            if (f < n - 1) {
                if (p < lim && NativeMemory.getByte(p) == COMMA) {
                    p++;
                    continue;
                }
                return terminatorError(f, fieldStart, p, first == QUOTE);
            }
            if (p >= lim) {
                return eof ? p : INCOMPLETE;
            }
            final byte b = NativeMemory.getByte(p);
            if (b == NL) {
                return p + 1;
            }
            if (b == CR) {
                if (p + 1 >= lim) {
                    return eof ? p + 1 : INCOMPLETE;
                }
                if (NativeMemory.getByte(p + 1) == NL) {
                    return p + 2;
                }
            }
            return terminatorError(f, fieldStart, p, first == QUOTE);
        }
        return p;
    }

    private static boolean isTerminator(final byte b) {
        return b == COMMA || b == NL || b == CR;
    }

    /** Parses one unquoted value (of an unescaped quoted field) into its column: as in {@link #parseRow}, by kind. */
    private long field(final int f, final long p, final long lim, final int row) {
        if (p >= lim || isTerminator(NativeMemory.getByte(p))) {
            return empty(f, p, row);
        }
        final long base = fieldBase[f];
        final int kind = format.kinds[f];
        switch (kind) {
            case FieldKind.I64:
                return i64(p, lim, base, row);
            case FieldKind.DECIMAL:
                return decimal(p, lim, base, row, format.scales[f]);
            case FieldKind.TIMESTAMP:
                return timestamp(p, lim, base, row);
            case FieldKind.SYMBOL:
                return symbol(f, p, lim);
            case FieldKind.SIDE:
                return side(p, lim, base, row);
            default:
                return other(kind, p, lim, base, row);
        }
    }

    // One small method per kind: parse at p, store at the row's slot of the column at base, return the end or -1 (the
    // reason in values.error). Small enough for C2 to inline into parseRow's loop.

    private long i64(final long p, final long lim, final long base, final int row) {
        final long r = values.parseInteger(p, lim, Long.MAX_VALUE);
        if (r >= 0) {
            NativeMemory.putLong(base + ((long) row << 3), values.value);
        }
        return r;
    }

    private long decimal(final long p, final long lim, final long base, final int row, final int scale) {
        final long r = values.parseDecimal(p, lim, scale);
        if (r >= 0) {
            NativeMemory.putLong(base + ((long) row << 3), values.value);
        }
        return r;
    }

    private long timestamp(final long p, final long lim, final long base, final int row) {
        final long r = values.parseTimestamp(p, lim);
        if (r >= 0) {
            NativeMemory.putLong(base + ((long) row << 3), values.value);
        }
        return r;
    }

    private long side(final long p, final long lim, final long base, final int row) {
        final long r = values.parseSide(p, lim);
        if (r >= 0) {
            NativeMemory.putByte(base + row, (byte) values.value);
        }
        return r;
    }

    /** The kinds the trades schema does not have: i8, i16, i32, f64 and char. */
    private long other(final int kind, final long p, final long lim, final long base, final int row) {
        final long r;
        switch (kind) {
            case FieldKind.CHAR:
                r = values.parseChar(p, lim);
                break;
            case FieldKind.F64:
                r = values.parseDouble(p, lim);
                break;
            case FieldKind.I32:
            case FieldKind.I16:
            case FieldKind.I8:
                r = values.parseInteger(p, lim, FieldKind.max(kind));
                break;
            default:
                throw new IllegalStateException("kind=" + kind);
        }
        if (r >= 0) {
            switch (kind) {
                case FieldKind.I32:
                    NativeMemory.putInt(base + ((long) row << 2), (int) values.value);
                    break;
                case FieldKind.I16:
                    NativeMemory.putShort(base + ((long) row << 1), (short) values.value);
                    break;
                case FieldKind.F64:
                    NativeMemory.putLong(base + ((long) row << 3), values.value);
                    break;
                default:
                    NativeMemory.putByte(base + row, (byte) values.value);
                    break;
            }
        }
        return r;
    }

    /** An empty field: the column's null, or -1 (E_NULL) for the designated timestamp. */
    private long empty(final int f, final long p, final int row) {
        if (!format.nullable[f]) {
            values.error = E_NULL;
            return -1;
        }
        writeNull(format.kinds[f], fieldBase[f], row);
        return p;
    }

    private static void writeNull(final int kind, final long base, final int row) {
        switch (kind) {
            case FieldKind.I8:
                NativeMemory.putByte(base + row, Byte.MIN_VALUE);
                break;
            case FieldKind.I16:
                NativeMemory.putShort(base + ((long) row << 1), Short.MIN_VALUE);
                break;
            case FieldKind.I32:
                NativeMemory.putInt(base + ((long) row << 2), Integer.MIN_VALUE);
                break;
            case FieldKind.SYMBOL:
                NativeMemory.putInt(base + ((long) row << 2), -1);
                break;
            case FieldKind.CHAR:
            case FieldKind.SIDE:
                NativeMemory.putByte(base + row, (byte) 0);
                break;
            case FieldKind.F64:
                NativeMemory.putLong(base + ((long) row << 3), Double.doubleToRawLongBits(Double.NaN));
                break;
            default:
                NativeMemory.putLong(base + ((long) row << 3), Long.MIN_VALUE);
                break;
        }
    }

    /** Scans an unquoted symbol and interns it in the chunk's local table. */
    private long symbol(final int f, final long start, final long lim) {
        if (start + 8 <= lim) {
            // fast path: a symbol shorter than 8 bytes ending at a comma, found with one 8-byte read
            final long word = NativeMemory.getLong(start);
            final long del = word ^ 0x7F7F7F7F7F7F7F7FL; // a zero byte where word has DEL
            final long flags =
            ((word - 0x2D2D2D2D2D2D2D2DL) & ~word & 0x8080808080808080L) | (word & 0x8080808080808080L)
                | ((del - 0x0101010101010101L) & ~del & 0x8080808080808080L);
            if (flags != 0) {
                final int n = Long.numberOfTrailingZeros(flags) >>> 3;
                final long end = start + n;
                final byte b = NativeMemory.getByte(end);
                if (n > 0 && (b == COMMA || b == NL || b == CR)) {
                    // n < 8: printable ASCII, within every limit
                    final long head = word & ((1L << (n << 3)) - 1);
                    final int code = out.symbols[format.columnOf[f]].intern(head, head, n, start);
                    NativeMemory.putInt(fieldBase[f] + ((long) currentRow << 2), code);
                    return end;
                }
            }
        }
        return symbolSlow(f, start, lim);
    }

    private long symbolSlow(final int f, final long start, final long lim) {
        long p = start;
        boolean ascii = true;
        while (p < lim) {
            final byte b = NativeMemory.getByte(p);
            if (b == COMMA || b == NL || b == CR) {
                break;
            }
            if (b < 0x20 || b == QUOTE || b == DEL) {
                if (b >= 0) {
                    values.error = FieldParser.E_SYNTAX;
                    return -1;
                }
                ascii = false;
            }
            p++;
        }
        return addSymbol(f, start, p - start, ascii, lim - start) ? p : -1;
    }

    private boolean addSymbol(final int f, final long address, final long length, final boolean ascii,
        final long readable) {
        if (length > SymbolDictionaryDescriptor.MAX_SYMBOL_LENGTH) {
            values.error = E_TOO_LONG;
            return false;
        }
        if (!ascii && !validUtf8(address, (int) length)) {
            values.error = E_ENCODING;
            return false;
        }
        final int column = format.columnOf[f];
        final int code = out.symbols[column].intern(address, (int) length, readable);
        NativeMemory.putInt(fieldBase[f] + ((long) currentRow << 2), code);
        return true;
    }

    /** Unescapes a quoted field into the scratch buffer and parses it from there. */
    private long quoted(final int f, final long start, final int row) {
        final int startLine = line;
        final long startLineStart = lineStart;
        final long lim = limit;
        final long d0 = scratchPos;
        long d = d0;
        long q = start + 1;
        while (true) {
            if (q >= lim) {
                if (!eof) {
                    return INCOMPLETE;
                }
                errType = UNTERMINATED;
                setErrorPosition(f, start, startLine, startLineStart);
                return FAILED;
            }
            if (q - rowStart > maxLineLength) {
                errType = OVERLONG;
                setErrorPosition(f, rowStart + maxLineLength, rowLine, rowStart);
                return FAILED;
            }
            final byte b = NativeMemory.getByte(q);
            if (b == QUOTE) {
                if (q + 1 >= lim && !eof) {
                    return INCOMPLETE;
                }
                if (q + 1 < lim && NativeMemory.getByte(q + 1) == QUOTE) {
                    NativeMemory.putByte(d++, QUOTE);
                    q += 2;
                    continue;
                }
                q++;
                break;
            }
            if (b == NL) {
                line++;
                lineStart = q + 1;
            }
            NativeMemory.putByte(d++, b);
            q++;
        }
        scratchPos = d;
        final long length = d - d0;
        final long r;
        if (length == 0) {
            r = field(f, d0, d0, row);
        } else if (format.kinds[f] == FieldKind.SYMBOL) {
            boolean ascii = true;
            for (long a = d0; a < d; a++) {
                if (NativeMemory.getByte(a) < 0) {
                    ascii = false;
                    break;
                }
            }
            r = addSymbol(f, d0, length, ascii, scratch + scratchLength - d0) ? d : -1;
        } else {
            final long e = field(f, d0, d, row);
            if (e != d) {
                values.error = FieldParser.E_SYNTAX;
            }
            r = e == d ? e : -1;
        }
        if (r < 0) {
            errType = VALUE;
            errCode = values.error;
            setErrorPosition(f, start, startLine, startLineStart);
            errTextAddress = d0;
            errTextLength = length;
            return FAILED;
        }
        return q;
    }

    private void setErrorPosition(final int f, final long at, final int atLine, final long atLineStart) {
        errField = f;
        errAt = at;
        errLine = atLine;
        errLineStart = atLineStart;
    }

    private void valueError(final int f, final long fieldStart) {
        errType = VALUE;
        errCode = values.error;
        setErrorPosition(f, fieldStart, line, lineStart);
        long e = fieldStart;
        // a CR not followed by LF is no line end but part of the bad text, shown as \x0D: before, '1.5\r' was shown as
        // '1.5' and the message blamed a good-looking value
        for (; e < limit && e - fieldStart <= RejectMessages.MAX_SHOWN; e++) {
            final byte b = NativeMemory.getByte(e);
            if (isTerminator(b) && (b != CR || e + 1 >= limit || NativeMemory.getByte(e + 1) == NL)) {
                break;
            }
        }
        errTextAddress = fieldStart;
        errTextLength = e - fieldStart;
    }

    private long terminatorError(final int f, final long fieldStart, final long p, final boolean quotedField) {
        final int n = format.fieldCount;
        final byte b = p < limit ? NativeMemory.getByte(p) : NL;
        final boolean lineEnd = b == NL || (b == CR && (p + 1 >= limit || NativeMemory.getByte(p + 1) == NL));
        if (f < n - 1 && lineEnd) {
            errType = TOO_FEW;
            setErrorPosition(f, p, line, lineStart);
        } else if (f == n - 1 && b == COMMA) {
            errType = TOO_MANY;
            setErrorPosition(f, p + 1, line, lineStart);
        } else if (quotedField) {
            errType = AFTER_QUOTE;
            setErrorPosition(f, p, line, lineStart);
        } else {
            values.error = FieldParser.E_SYNTAX;
            valueError(f, fieldStart);
        }
        return FAILED;
    }

    /**
     * Finds the end of a bad record quote-aware, counting its fields and lines; an unterminated quote or a record
     * longer than the line limit ends at the end of its first physical line instead.
     *
     * @return the address after the record, or {@link #INCOMPLETE} when the buffer ends inside it.
     */
    private long skipRecord(final long start) {
        long q = start;
        int lines = 0;
        int fields = 1;
        boolean inQuotes = false;
        boolean atFieldStart = true;
        final long lim = limit;
        while (true) {
            if (q >= lim) {
                if (!inQuotes) {
                    skipLines = lines;
                    skipFields = fields;
                    return q;
                }
                if (!eof) {
                    return INCOMPLETE;
                }
                break;
            }
            if (q - start > maxLineLength) {
                break;
            }
            final byte b = NativeMemory.getByte(q);
            if (inQuotes) {
                if (b == QUOTE) {
                    if (q + 1 >= lim && !eof) {
                        return INCOMPLETE;
                    }
                    if (q + 1 < lim && NativeMemory.getByte(q + 1) == QUOTE) {
                        q += 2;
                        continue;
                    }
                    inQuotes = false;
                } else if (b == NL) {
                    lines++;
                }
                q++;
                continue;
            }
            if (b == QUOTE && atFieldStart) {
                inQuotes = true;
                atFieldStart = false;
                q++;
                continue;
            }
            atFieldStart = false;
            if (b == COMMA) {
                fields++;
                atFieldStart = true;
            } else if (b == NL) {
                skipLines = lines + 1;
                skipFields = fields;
                return q + 1;
            }
            q++;
        }
        // resynchronise on the next physical line
        q = start;
        fields = 1;
        while (q < lim) {
            final byte b = NativeMemory.getByte(q);
            if (b == NL) {
                skipLines = 1;
                skipFields = fields;
                return q + 1;
            }
            if (b == COMMA) {
                fields++;
            }
            q++;
        }
        skipLines = 0;
        skipFields = fields;
        return q;
    }

    private ChunkBuffer.Reject describe() {
        final long column = errAt - errLineStart + 1;
        final int n = format.fieldCount;
        final String message;
        switch (errType) {
            case TOO_FEW:
            case TOO_MANY:
                message = "row has " + skipFields + " field" + (skipFields == 1 ? "" : "s") + ", expected " + n;
                break;
            case AFTER_QUOTE:
                message = "column '" + format.column(errField).name() + "': unexpected character after a closing quote";
                break;
            case UNTERMINATED:
                message = "column '" + format.column(errField).name() + "': unterminated quoted field (no closing quote"
                    + " before the end of the file)";
                break;
            case OVERLONG:
                message = "line is longer than the limit of " + maxLineLength + " bytes";
                break;
            default:
                message = RejectMessages.valueMessage(format.column(errField), format.kinds[errField], errCode,
                    RejectMessages.show(errTextAddress, errTextLength), values.fractionDigits);
                break;
        }
        return new ChunkBuffer.Reject(errLine, column, message);
    }

    /**
     * @return whether the bytes are well-formed UTF-8. Control characters are the callers' business: an unquoted field
     *     refuses them before, a quoted one may hold them (RFC 4180 lets a quoted value hold line breaks).
     */
    static boolean validUtf8(final long address, final int length) {
        int i = 0;
        while (i < length) {
            final int b = NativeMemory.getByte(address + i) & 0xFF;
            if (b < 0x80) {
                i++;
                continue;
            }
            final int n;
            final int min;
            int cp;
            if ((b & 0xE0) == 0xC0) {
                n = 1;
                min = 0x80;
                cp = b & 0x1F;
            } else if ((b & 0xF0) == 0xE0) {
                n = 2;
                min = 0x800;
                cp = b & 0x0F;
            } else if ((b & 0xF8) == 0xF0) {
                n = 3;
                min = 0x10000;
                cp = b & 0x07;
            } else {
                return false;
            }
            if (i + n >= length) {
                return false;
            }
            for (int k = 1; k <= n; k++) {
                final int c = NativeMemory.getByte(address + i + k) & 0xFF;
                if ((c & 0xC0) != 0x80) {
                    return false;
                }
                cp = (cp << 6) | (c & 0x3F);
            }
            if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
                return false;
            }
            i += n + 1;
        }
        return true;
    }

    @Override
    public void close() {
        if (scratchPos != -1) {
            NativeMemory.free(scratch, scratchLength);
            scratchPos = -1;
        }
    }
}
