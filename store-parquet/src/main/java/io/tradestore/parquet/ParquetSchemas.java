package io.tradestore.parquet;

import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.Schema;

/**
 * The Parquet schema of a table: one optional column per tradestore column, in order and by the same name (every
 * tradestore type has a null, so every column is optional). The mapping is the table in docs/parquet.md.
 */
final class ParquetSchemas {
    /** Parquet DECIMAL on INT64 holds at most 18 digits. */
    static final int DECIMAL_PRECISION = 18;

    private ParquetSchemas() {
    }

    /**
     * @param schema a table's schema.
     * @param unit   the unit of timestamps.
     * @return its Parquet message type, named after the table.
     */
    static MessageType of(final Schema schema, final TimestampUnit unit) {
        final Types.MessageTypeBuilder b = Types.buildMessage();
        for (final Column c : schema.columns()) {
            b.addField(field(c, unit));
        }
        return b.named(schema.name());
    }

    private static Type field(final Column c, final TimestampUnit unit) {
        switch (c.type()) {
            case I8:
                return Types.optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(8, true))
                    .named(c.name());
            case I16:
                return Types.optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(16, true))
                    .named(c.name());
            case I32:
                return Types.optional(PrimitiveTypeName.INT32).named(c.name());
            case I64:
                return Types.optional(PrimitiveTypeName.INT64).named(c.name());
            case F64:
                return Types.optional(PrimitiveTypeName.DOUBLE).named(c.name());
            case DECIMAL:
                return Types.optional(PrimitiveTypeName.INT64)
                    .as(LogicalTypeAnnotation.decimalType(c.scale(), DECIMAL_PRECISION)).named(c.name());
            case TIMESTAMP:
                return Types.optional(PrimitiveTypeName.INT64)
                    .as(LogicalTypeAnnotation.timestampType(true, unit.parquet())).named(c.name());
            case SYMBOL:
            case CHAR:
                return Types.optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType())
                    .named(c.name());
            default:
                throw new IllegalStateException("type " + c.type());
        }
    }
}
