package io.tradestore.core.schema;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

import io.tradestore.core.Bounds;
import io.tradestore.core.StoreException;

/**
 * An immutable, validated table schema. Build one with {@link #builder(String)} or parse JSON with
 * {@link SchemaCodec}; both check every rule and name the offending field.
 */
public final class Schema {
    /** The schema format this code writes; a newer one is refused. */
    public static final int FORMAT_VERSION = 1;
    /** Default rows per segment. */
    public static final int DEFAULT_SEGMENT_ROWS = 1 << 22;
    /** Default rows per zone-map block. */
    public static final int DEFAULT_BLOCK_ROWS = 1 << 16;
    /** Largest segment: file offsets of a column stay within an int row index. */
    public static final int MAX_SEGMENT_ROWS = 1 << 30;
    private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final Pattern DECIMAL = Pattern.compile("decimal\\((\\d{1,2})\\)");

    private final String name;
    private final Layout layout;
    private final int segmentRows;
    private final int blockRows;
    private final List<Column> columns;
    private final int timestampIndex;
    private final PartitionBy partitionBy;
    private final int rowLength;
    private final long hash;
    private final long columnsHash;

    private Schema(final String name, final Layout layout, final int segmentRows, final int blockRows,
                   final List<Column> columns, final int timestampIndex, final PartitionBy partitionBy) {
        this.name = name;
        this.partitionBy = partitionBy;
        this.layout = layout;
        this.segmentRows = segmentRows;
        this.blockRows = blockRows;
        this.columns = Collections.unmodifiableList(columns);
        this.timestampIndex = timestampIndex;
        int end = 0;
        for (final Column c : columns) {
            end = Math.max(end, c.rowOffset() + c.width());
        }
        this.rowLength = (end + 7) & ~7;
        this.hash = SchemaCodec.hash(SchemaCodec.toJson(this, false));
        final StringBuilder shape = new StringBuilder();
        for (final Column c : columns) {
            shape.append(c.name()).append(':').append(c.typeName()).append(',');
        }
        this.columnsHash = SchemaCodec.hash(shape.toString());
    }

    /**
     * Starts a schema.
     *
     * @param tableName the table name: lower-case letters, digits and underscores.
     * @return a builder.
     */
    public static Builder builder(final String tableName) {
        return new Builder(tableName);
    }

    /** @return the table name. */
    public String name() {
        return name;
    }

    /** @return the segment layout. */
    public Layout layout() {
        return layout;
    }

    /** @return rows per segment (a power of two). */
    public int segmentRows() {
        return segmentRows;
    }

    /** @return log2 of rows per segment. */
    public int segmentShift() {
        return Integer.numberOfTrailingZeros(segmentRows);
    }

    /** @return rows per zone-map block (a power of two, at most segmentRows). */
    public int blockRows() {
        return blockRows;
    }

    /** @return zone-map blocks per segment. */
    public int blocksPerSegment() {
        return segmentRows / blockRows;
    }

    /** @return the columns in declared order. */
    public List<Column> columns() {
        return columns;
    }

    /** @return the number of columns. */
    public int columnCount() {
        return columns.size();
    }

    /**
     * Returns a column by index.
     *
     * @param index the column index.
     * @return the column.
     */
    public Column column(final int index) {
        if (Bounds.SHOULD_BOUNDS_CHECK) {
            Bounds.checkIndex("column", index, columns.size(), "columnCount");
        }
        return columns.get(index);
    }

    /**
     * Finds a column by name.
     *
     * @param columnName the name.
     * @return its index, or -1.
     */
    public int indexOf(final String columnName) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(columnName)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Finds a column by name or fails with the list of columns.
     *
     * @param columnName the name.
     * @return the column.
     */
    public Column require(final String columnName) {
        final int i = indexOf(columnName);
        if (i < 0) {
            throw new StoreException("unknown column '" + StoreException.echo(columnName) + "' in table '" + name
                + "'; columns are " + columnNames());
        }
        return columns.get(i);
    }

    /** @return the column names in order. */
    public List<String> columnNames() {
        final List<String> names = new ArrayList<>();
        for (final Column c : columns) {
            names.add(c.name());
        }
        return names;
    }

    /** @return the index of the designated timestamp column, or -1. */
    public int timestampIndex() {
        return timestampIndex;
    }

    /** @return how rows are split by time (NONE unless the table was created partitioned). */
    public PartitionBy partitionBy() {
        return partitionBy;
    }

    /** @return the record length of the {@code ROW} layout in bytes (a multiple of 8). */
    public int rowLength() {
        return rowLength;
    }

    /** @return bytes one row takes on disk in this layout. */
    public int bytesPerRow() {
        if (layout == Layout.ROW) {
            return rowLength;
        }
        int sum = 0;
        for (final Column c : columns) {
            sum += c.width();
        }
        return sum;
    }

    /** @return a 64-bit hash of the canonical JSON form; two schemas with the same hash store rows the same way. */
    public long hash() {
        return hash;
    }

    /**
     * @return a hash of column names and types only: a flyweight generated from one schema fits any table with the same
     * value.
     */
    public long columnsHash() {
        return columnsHash;
    }

    /** @return the number of symbol columns. */
    public int symbolColumnCount() {
        int n = 0;
        for (final Column c : columns) {
            if (c.type() == ColumnType.SYMBOL) {
                n++;
            }
        }
        return n;
    }

    /**
     * Returns the same schema under another table name or layout or segment size.
     *
     * @param tableName   new name.
     * @param newLayout   new layout.
     * @param newSegRows  new rows per segment.
     * @param newBlockRows new rows per block.
     * @return the new schema.
     */
    public Schema with(final String tableName, final Layout newLayout, final int newSegRows, final int newBlockRows) {
        return copy(tableName, newLayout, newSegRows, newBlockRows, partitionBy);
    }

    /**
     * Returns the same schema partitioned another way.
     *
     * @param by how rows are split by time.
     * @return the new schema.
     * @throws StoreException when it is partitioned but has no designated timestamp.
     */
    public Schema with(final PartitionBy by) {
        return copy(name, layout, segmentRows, blockRows, by);
    }

    private Schema copy(final String tableName, final Layout newLayout, final int newSegRows, final int newBlockRows,
        final PartitionBy by) {
        final Builder b = builder(tableName).layout(newLayout).segmentRows(newSegRows).blockRows(newBlockRows);
        for (final Column c : columns) {
            b.column(c.name(), c.typeName());
        }
        if (timestampIndex >= 0) {
            b.timestamp(columns.get(timestampIndex).name());
        }
        return b.partitionBy(by).build();
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof Schema && ((Schema) o).hash == hash && ((Schema) o).name.equals(name);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(hash);
    }

    @Override
    public String toString() {
        return SchemaCodec.toJson(this, true);
    }

    /** Collects and validates the parts of a schema. */
    public static final class Builder {
        private final String name;
        private Layout layout = Layout.COLUMN;
        private int segmentRows = DEFAULT_SEGMENT_ROWS;
        private int blockRows = DEFAULT_BLOCK_ROWS;
        private boolean blockRowsSet;
        private final List<String[]> columns = new ArrayList<>();
        private String timestamp;
        private PartitionBy partitionBy = PartitionBy.NONE;

        private Builder(final String name) {
            this.name = name;
        }

        /** @param value the layout. @return this */
        public Builder layout(final Layout value) {
            this.layout = Objects.requireNonNull(value, "layout");
            return this;
        }

        /** @param value rows per segment, a power of two. @return this */
        public Builder segmentRows(final int value) {
            this.segmentRows = value;
            return this;
        }

        /** @param value rows per zone-map block, a power of two. @return this */
        public Builder blockRows(final int value) {
            this.blockRows = value;
            this.blockRowsSet = true;
            return this;
        }

        /**
         * Adds a column.
         *
         * @param columnName the name.
         * @param type       the type as in JSON: {@code i8 i16 i32 i64 f64 decimal(s) timestamp symbol char}.
         * @return this
         */
        public Builder column(final String columnName, final String type) {
            columns.add(new String[] {columnName, type});
            return this;
        }

        /** @param columnName the designated timestamp column. @return this */
        public Builder timestamp(final String columnName) {
            this.timestamp = columnName;
            return this;
        }

        /** @param value how rows are split by time (needs a designated timestamp unless NONE). @return this */
        public Builder partitionBy(final PartitionBy value) {
            this.partitionBy = Objects.requireNonNull(value, "partitionBy");
            return this;
        }

        /** @return the validated schema. */
        public Schema build() {
            return build("");
        }

        Schema build(final String pathPrefix) {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new StoreException(pathPrefix + "/name: table name '" + name
                    + "' must be 1-63 characters of a-z, 0-9 and _, starting with a letter or _");
            }
            if (segmentRows < 2 || segmentRows > MAX_SEGMENT_ROWS || Integer.bitCount(segmentRows) != 1) {
                throw new StoreException(pathPrefix + "/segmentRows: " + segmentRows
                    + " must be a power of two between 2 and " + MAX_SEGMENT_ROWS);
            }
            final int block = blockRowsSet ? blockRows : Math.min(blockRows, segmentRows);
            if (block < 1 || block > segmentRows || Integer.bitCount(block) != 1) {
                throw new StoreException(pathPrefix + "/blockRows: " + block
                    + " must be a power of two no larger than segmentRows="
                    + segmentRows);
            }
            if (columns.isEmpty()) {
                throw new StoreException(pathPrefix + "/columns: a table needs at least one column");
            }
            final List<Column> built = new ArrayList<>();
            int offset = 0;
            int tsIndex = -1;
            for (int i = 0; i < columns.size(); i++) {
                final String columnName = columns.get(i)[0];
                final String typeText = columns.get(i)[1];
                final String where = pathPrefix + "/columns/" + i;
                if (columnName == null || !NAME.matcher(columnName).matches()) {
                    throw new StoreException(where + "/name: column name '" + columnName
                        + "' must be 1-63 characters of a-z, 0-9 and _, starting with a letter or _");
                }
                for (final Column c : built) {
                    if (c.name().equals(columnName)) {
                        throw new StoreException(where + "/name: duplicate column '" + columnName + "'");
                    }
                }
                final ColumnType type;
                int scale = 0;
                final String t = typeText == null ? "" : typeText.trim().toLowerCase(Locale.ROOT);
                final java.util.regex.Matcher m = DECIMAL.matcher(t);
                if (m.matches()) {
                    type = ColumnType.DECIMAL;
                    scale = Integer.parseInt(m.group(1));
                    if (scale > 18) {
                        throw new StoreException(where + "/type: decimal scale " + scale + " must be between 0 and 18");
                    }
                } else {
                    type = parseType(t, where);
                }
                offset = (offset + type.width() - 1) & -type.width();
                built.add(new Column(columnName, type, scale, i, offset));
                offset += type.width();
                if (columnName.equals(timestamp)) {
                    if (type != ColumnType.TIMESTAMP) {
                        throw new StoreException(pathPrefix + "/timestamp: designated timestamp '" + timestamp
                            + "' must be a timestamp column, not " + t);
                    }
                    tsIndex = i;
                }
            }
            if (timestamp != null && tsIndex < 0) {
                throw new StoreException(pathPrefix + "/timestamp: designated timestamp '" + timestamp
                    + "' is not a column");
            }
            if (partitionBy != PartitionBy.NONE && tsIndex < 0) {
                throw new StoreException(pathPrefix + "/partitionBy: partitioning by " + partitionBy
                    + " needs a designated timestamp (\"timestamp\")");
            }
            return new Schema(name, layout, segmentRows, block, built, tsIndex, partitionBy);
        }

        private static ColumnType parseType(final String t, final String where) {
            for (final ColumnType type : ColumnType.values()) {
                if (type != ColumnType.DECIMAL && type.label().equals(t)) {
                    return type;
                }
            }
            throw new StoreException(where + "/type: unknown type '" + t
                + "'; use one of i8 i16 i32 i64 f64 decimal(scale) timestamp symbol char");
        }
    }
}
