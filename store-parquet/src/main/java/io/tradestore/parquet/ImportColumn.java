package io.tradestore.parquet;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;

import io.tradestore.core.StoreException;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;

/**
 * How one Parquet column of a file goes into one table column: the types docs/parquet.md maps out, in reverse, and
 * the factor that brings a value to the column's unit (a decimal's scale, nanoseconds). Made for every column of every
 * file before a row is written, so that a file that does not fit is refused whole.
 *
 * @param field    the Parquet column's index in the file.
 * @param name     its name.
 * @param column   the table column.
 * @param kind     how values convert.
 * @param multiply the factor to the column's unit (10^(scale difference), or nanoseconds per unit), 1 otherwise.
 * @param scale    the source decimal's scale (for BINARY and FIXED decimals), else 0.
 */
record ImportColumn(int field, String name, Column column, Kind kind, long multiply, int scale) {
    /** The conversions. */
    enum Kind {
        /** INT32 or INT64 into an integer column, range-checked. */
        INTEGER,
        /** INT32 or INT64 (plain or DECIMAL) into a decimal column, times {@link #multiply}. */
        SCALED,
        /** BINARY or FIXED_LEN_BYTE_ARRAY DECIMAL (big-endian two's complement) into a decimal column. */
        BIG_DECIMAL,
        /** DOUBLE or FLOAT into f64. */
        DOUBLE,
        /** INT64 TIMESTAMP into a timestamp column, times {@link #multiply}. */
        TIMESTAMP,
        /** INT32 DATE: days since the epoch, to midnight. */
        DATE,
        /** INT96: Impala's and old Spark's nanoseconds of the day and Julian day. */
        INT96,
        /** BINARY text into a symbol column. */
        SYMBOL,
        /** BINARY text of one ASCII character into a char column. */
        CHAR
    }

    /**
     * Matches a file's columns to the table's by name (exact, else ignoring case).
     *
     * @param file   the file, for messages.
     * @param parquet its schema.
     * @param schema the table's.
     * @return one entry per Parquet column, in the file's order.
     * @throws StoreException naming the file and column that does not fit.
     */
    static List<ImportColumn> plan(final String file, final MessageType parquet, final Schema schema) {
        final List<ImportColumn> plan = new ArrayList<>();
        final boolean[] given = new boolean[schema.columnCount()];
        for (int f = 0; f < parquet.getFieldCount(); f++) {
            final Type t = parquet.getType(f);
            final Column c = find(schema, t.getName());
            if (c == null) {
                throw new StoreException(file + ": column '" + t.getName() + "' is not a column of table '"
                    + schema.name() + "' (its columns are " + schema.columnNames() + "); tradestore does not add "
                    + "columns to a table");
            }
            if (!t.isPrimitive() || t.isRepetition(Type.Repetition.REPEATED)) {
                throw new StoreException(file + ": column '" + t.getName() + "' is a " + (t.isPrimitive() ? "list"
                    : "group") + ", which no tradestore column holds");
            }
            if (given[c.index()]) {
                throw new StoreException(file + ": two columns go into column '" + c.name() + "' (their names "
                    + "match it, ignoring case); nothing was loaded");
            }
            given[c.index()] = true;
            plan.add(of(file, f, t.asPrimitiveType(), c));
        }
        final int ts = schema.timestampIndex();
        if (ts >= 0 && !given[ts]) {
            throw new StoreException(file + ": has no column '" + schema.column(ts).name() + "', the table's "
                + "designated timestamp");
        }
        return plan;
    }

    private static Column find(final Schema schema, final String name) {
        for (final Column c : schema.columns()) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        for (final Column c : schema.columns()) {
            if (c.name().equalsIgnoreCase(name)) {
                return c;
            }
        }
        return null;
    }

    private static ImportColumn of(final String file, final int f, final PrimitiveType p, final Column c) {
        final PrimitiveTypeName physical = p.getPrimitiveTypeName();
        final LogicalTypeAnnotation logical = p.getLogicalTypeAnnotation();
        final String name = p.getName();
        final boolean integer = physical == PrimitiveTypeName.INT32 || physical == PrimitiveTypeName.INT64;
        final boolean plain = logical == null || logical instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation;
        switch (c.type()) {
            case I8:
            case I16:
            case I32:
            case I64:
                if (integer && plain) {
                    return new ImportColumn(f, name, c, Kind.INTEGER, 1, 0);
                }
                break;
            case F64:
                if (physical == PrimitiveTypeName.DOUBLE || physical == PrimitiveTypeName.FLOAT) {
                    return new ImportColumn(f, name, c, Kind.DOUBLE, 1, 0);
                }
                break;
            case DECIMAL:
                final int scale = logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d
                    ? d.getScale() : plain && integer ? 0 : -1;
                if (scale > c.scale()) {
                    throw new StoreException(file + ": column '" + name + "' is " + describe(p) + ", with more "
                        + "fraction digits than " + c.typeName() + " holds; nothing was loaded");
                }
                if (scale >= 0 && integer) {
                    return new ImportColumn(f, name, c, Kind.SCALED, pow10(c.scale() - scale), scale);
                }
                if (scale >= 0 && (physical == PrimitiveTypeName.BINARY
                    || physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY)) {
                    return new ImportColumn(f, name, c, Kind.BIG_DECIMAL, pow10(c.scale() - scale), scale);
                }
                break;
            case TIMESTAMP:
                if (physical == PrimitiveTypeName.INT64
                    && logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation t) {
                    final long unit = switch (t.getUnit()) {
                        case NANOS -> 1;
                        case MICROS -> 1_000;
                        case MILLIS -> 1_000_000;
                    };
                    return new ImportColumn(f, name, c, Kind.TIMESTAMP, unit, 0);
                }
                if (physical == PrimitiveTypeName.INT32
                    && logical instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
                    return new ImportColumn(f, name, c, Kind.DATE, 1, 0);
                }
                if (physical == PrimitiveTypeName.INT96) {
                    return new ImportColumn(f, name, c, Kind.INT96, 1, 0);
                }
                break;
            case SYMBOL:
            case CHAR:
                if (physical == PrimitiveTypeName.BINARY && (logical == null
                    || logical instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
                    || logical instanceof LogicalTypeAnnotation.EnumLogicalTypeAnnotation)) {
                    return new ImportColumn(f, name, c, c.type() == ColumnType.SYMBOL ? Kind.SYMBOL : Kind.CHAR, 1, 0);
                }
                break;
            default:
                break;
        }
        throw new StoreException(file + ": column '" + name + "' is " + describe(p) + ", which does not go into "
            + "column '" + c.name() + "' (" + c.typeName() + "); docs/parquet.md lists the types each column takes");
    }

    private static String describe(final PrimitiveType p) {
        final LogicalTypeAnnotation l = p.getLogicalTypeAnnotation();
        return p.getPrimitiveTypeName().name() + (l == null ? "" : " " + l.toString().toUpperCase(Locale.ROOT));
    }

    private static long pow10(final int n) {
        long v = 1;
        for (int i = 0; i < n; i++) {
            v *= 10;
        }
        return v;
    }
}
