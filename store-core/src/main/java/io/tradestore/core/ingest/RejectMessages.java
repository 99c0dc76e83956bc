package io.tradestore.core.ingest;

import io.tradestore.core.dict.SymbolDictionaryDescriptor;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;

/**
 * The words of a rejected row's message, built only once a row has failed, so that none of this code sits in the
 * parser's hot loop or counts against the bytecode size C2 inlines it by.
 */
final class RejectMessages {
    /** Bytes of a bad value shown in a message; longer values are cut and end in "...". */
    static final int MAX_SHOWN = 64;

    private RejectMessages() {
    }

    /**
     * @param c              the value's column.
     * @param kind           its {@link FieldKind}.
     * @param code           the value error ({@link FieldParser}'s codes or {@link ChunkParser}'s).
     * @param text           the value as shown ({@link #show}).
     * @param fractionDigits the value's fraction digits, for a decimal over its scale.
     * @return the message, naming the column.
     */
    static String valueMessage(final Column c, final int kind, final int code, final String text,
        final int fractionDigits) {
        final String prefix = "column '" + c.name() + "': ";
        switch (code) {
            case ChunkParser.E_NULL:
                return prefix + "empty value, but the designated timestamp cannot be null";
            case ChunkParser.E_TOO_LONG:
                return prefix + "symbol is longer than the limit of " + SymbolDictionaryDescriptor.MAX_SYMBOL_LENGTH
                    + " bytes";
            case ChunkParser.E_ENCODING:
                return prefix + "'" + text + "' is not valid UTF-8";
            case FieldParser.E_SCALE:
                return prefix + "'" + text + "' has " + fractionDigits + " fraction digits, more than the scale of " + c
                    .typeName();
            case FieldParser.E_RANGE:
                return prefix + "'" + text + "' is out of range for " + c.typeName() + rangeText(kind);
            case FieldParser.E_OFFSET:
                return prefix + "'" + text + "' has a zone offset outside -18:00 to +18:00";
            default:
                return prefix + "'" + text + "' " + syntaxText(kind);
        }
    }

    private static String rangeText(final int kind) {
        switch (kind) {
            case FieldKind.I8:
            case FieldKind.I16:
            case FieldKind.I32:
            case FieldKind.I64:
                return " [" + FieldKind.min(kind) + ", " + FieldKind.max(kind) + "]";
            case FieldKind.TIMESTAMP:
                return " (years 1678 to 2261)";
            default:
                return "";
        }
    }

    private static String syntaxText(final int kind) {
        switch (kind) {
            case FieldKind.I8:
            case FieldKind.I16:
            case FieldKind.I32:
            case FieldKind.I64:
                return "is not an integer";
            case FieldKind.DECIMAL:
                return "is not a decimal";
            case FieldKind.TIMESTAMP:
                return "is not a timestamp (ISO-8601 with Z or an offset, or integer epoch nanoseconds)";
            case FieldKind.F64:
                return "is not a number";
            case FieldKind.SIDE:
                return "is not a side (B, S, BUY or SELL)";
            case FieldKind.CHAR:
                return "is not a single printable ASCII character";
            default:
                return "contains a control character or a stray quote";
        }
    }

    /** Renders bytes for a message: printable ASCII as is, anything else as \xNN, cut at 64 bytes. */
    static String show(final long address, final long length) {
        final StringBuilder sb = new StringBuilder();
        final long n = Math.min(length, MAX_SHOWN);
        for (long i = 0; i < n; i++) {
            final int b = NativeMemory.getByte(address + i) & 0xFF;
            if (b >= 0x20 && b < 0x7F) {
                sb.append((char) b);
            } else {
                sb.append(String.format("\\x%02X", b));
            }
        }
        if (length > MAX_SHOWN) {
            sb.append("...");
        }
        return sb.toString();
    }
}
