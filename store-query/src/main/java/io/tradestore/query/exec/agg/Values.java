package io.tradestore.query.exec.agg;

import java.math.BigDecimal;

import io.tradestore.core.TableSnapshot;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;

/** Turns raw column values (longs, with nulls normalised to Long.MIN_VALUE, or f64 bits) into result objects. */
public final class Values {
    private Values() {
    }

    /**
     * @param c    the column.
     * @param raw  the value as a long (f64: raw bits); Long.MIN_VALUE is null for integral types.
     * @param snap the snapshot (symbol strings).
     * @return Long, BigDecimal, Double, String or null.
     */
    public static Object object(final Column c, final long raw, final TableSnapshot snap) {
        if (c.type() == ColumnType.F64) {
            final double d = Double.longBitsToDouble(raw);
            return d != d ? null : (Object) d;
        }
        if (raw == Long.MIN_VALUE) {
            return null;
        }
        switch (c.type()) {
            case DECIMAL:
                return BigDecimal.valueOf(raw, c.scale());
            case SYMBOL:
                return snap.symbolValue(c.index(), (int) raw);
            case CHAR:
                return String.valueOf((char) raw);
            default:
                return raw;
        }
    }

    /**
     * @param c column. @param raw raw value as stored (sign-extended). @return it with nulls normalised to
     * Long.MIN_VALUE.
     */
    public static long normalize(final Column c, final long raw) {
        return c.type() != ColumnType.F64 && c.width() < 8 && raw == c.type().nullBits() ? Long.MIN_VALUE : raw;
    }
}
