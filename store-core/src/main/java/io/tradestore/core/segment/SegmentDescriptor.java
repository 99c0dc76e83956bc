package io.tradestore.core.segment;

import java.nio.file.Path;

import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

/**
 * Names and sizes of a segment's files. A segment is a directory {@code seg-NNNNNN} holding, in the {@code COLUMN}
 * layout, one file {@code <column>.d} of {@code width * segmentRows} bytes per column, and in the {@code ROW} layout
 * one file {@code rows.d} of {@code rowLength * segmentRows} bytes; plus the zone map {@code _zone}. Values are raw
 * little-endian primitives at {@code base + rowInSegment * stride}; there is no per-file header, so that column files
 * stay page aligned for scans (the version lives in the schema and the transaction file).
 */
public final class SegmentDescriptor {
    /** File name of the single data file in the ROW layout. */
    public static final String ROW_FILE = "rows.d";
    /** Suffix of a column file. */
    public static final String COLUMN_SUFFIX = ".d";

    private SegmentDescriptor() {
    }

    /** @param tableDir table directory. @param segment segment index. @return the segment directory. */
    public static Path directory(final Path tableDir, final int segment) {
        return tableDir.resolve(String.format("seg-%06d", segment));
    }

    /** @param schema schema. @param column column. @return the file that holds the column. */
    public static String fileName(final Schema schema, final Column column) {
        return schema.layout() == Layout.ROW ? ROW_FILE : column.name() + COLUMN_SUFFIX;
    }

    /** @param schema schema. @param column column. @return the stride of the column in bytes. */
    public static int stride(final Schema schema, final Column column) {
        return schema.layout() == Layout.ROW ? schema.rowLength() : column.width();
    }

    /** @param schema schema. @param column column. @return the offset of the column's first value in its file. */
    public static int offset(final Schema schema, final Column column) {
        return schema.layout() == Layout.ROW ? column.rowOffset() : 0;
    }
}
