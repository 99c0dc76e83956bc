package io.tradestore.core.ingest;

import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;

/** How a CSV field is parsed: one small int per header position, switched on once per field (no virtual call). */
final class FieldKind {
    static final int I8 = 0;
    static final int I16 = 1;
    static final int I32 = 2;
    static final int I64 = 3;
    static final int F64 = 4;
    static final int DECIMAL = 5;
    static final int TIMESTAMP = 6;
    static final int SYMBOL = 7;
    static final int CHAR = 8;
    /** A {@code char} column named {@code side}: B, S, BUY or SELL (any case), stored as 'B' or 'S'. */
    static final int SIDE = 9;

    private FieldKind() {
    }

    static int of(final Column c) {
        switch (c.type()) {
            case I8:
                return I8;
            case I16:
                return I16;
            case I32:
                return I32;
            case I64:
                return I64;
            case F64:
                return F64;
            case DECIMAL:
                return DECIMAL;
            case TIMESTAMP:
                return TIMESTAMP;
            case SYMBOL:
                return SYMBOL;
            case CHAR:
                return "side".equals(c.name()) ? SIDE : CHAR;
            default:
                throw new IllegalArgumentException("type=" + c.type());
        }
    }

    /** @return the smallest value an integer kind accepts (the type's MIN_VALUE is its null sentinel). */
    static long min(final int kind) {
        return -max(kind);
    }

    /** @return the largest value an integer kind accepts. */
    static long max(final int kind) {
        switch (kind) {
            case I8:
                return Byte.MAX_VALUE;
            case I16:
                return Short.MAX_VALUE;
            case I32:
                return Integer.MAX_VALUE;
            default:
                return Long.MAX_VALUE;
        }
    }

    static String describe(final int kind, final Column c) {
        return kind == SIDE ? "side" : c.typeName();
    }

    static boolean isNullable(final Column c, final int timestampIndex) {
        return c.index() != timestampIndex || c.type() != ColumnType.TIMESTAMP;
    }
}
