package io.tradestore.core.ingest;

import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.Schema;

/** One file's header mapped onto the table: per CSV field position, its column, kind, scale and limits. */
final class CsvFormat {
    final String fileName;
    final Schema schema;
    final int fieldCount;
    final int[] columnOf;
    final int[] kinds;
    final int[] scales;
    final long[] maxes;
    final boolean[] nullable;
    /** Lines taken by the BOM-stripped header record (more than 1 only when a quoted name holds a newline). */
    final int headerLines;
    /** File offset of the first data byte, after the header. */
    final long dataOffset;

    CsvFormat(final String fileName, final Schema schema, final int[] columnOf, final int headerLines,
        final long dataOffset) {
        this.fileName = fileName;
        this.schema = schema;
        this.fieldCount = columnOf.length;
        this.columnOf = columnOf;
        this.kinds = new int[fieldCount];
        this.scales = new int[fieldCount];
        this.maxes = new long[fieldCount];
        this.nullable = new boolean[fieldCount];
        this.headerLines = headerLines;
        this.dataOffset = dataOffset;
        for (int f = 0; f < fieldCount; f++) {
            final Column c = schema.column(columnOf[f]);
            kinds[f] = FieldKind.of(c);
            scales[f] = c.scale();
            maxes[f] = FieldKind.max(kinds[f]);
            nullable[f] = FieldKind.isNullable(c, schema.timestampIndex());
        }
    }

    Column column(final int field) {
        return schema.column(columnOf[field]);
    }
}
