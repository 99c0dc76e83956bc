package io.tradestore.parquet;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;

import io.tradestore.core.StoreException;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;

/**
 * Feeds a snapshot's mapped columns to parquet-java's column writers a batch of rows at a time: for each batch, each
 * column's values go in one loop, read from native memory, null sentinels written as Parquet nulls. Below the record
 * API on purpose: that one takes a row at a time, every field through a consumer's start and end calls. Symbol and
 * char values go in as {@link Binary}s made once per dictionary code and kept (across the files of an export), so a
 * row allocates nothing.
 */
final class SegmentColumns {
    /** Parquet's DECIMAL(18, s) on INT64: mantissas of at most 18 digits. */
    private static final long DECIMAL_LIMIT = 1_000_000_000_000_000_000L;
    /** Rows per batch: each column's values of a batch are written in one loop. */
    private static final int BATCH = 4096;
    /** Row groups of parquet-java's default size: engines read and prune them in parallel. */
    private static final long ROW_GROUP_BYTES = ParquetWriter.DEFAULT_BLOCK_SIZE;
    /** One configuration for every file: a Hadoop Configuration would parse its XML defaults again for each. */
    private static final ParquetConfiguration CONF = new PlainParquetConfiguration();
    /** parquet-java's writer defaults, dictionaries on: page and dictionary page sizes, V1 pages, statistics. */
    private static final ParquetProperties PROPS = ParquetProperties.builder().withDictionaryEncoding(true).build();

    private final TableSnapshot snapshot;
    private final Schema schema;
    private final MessageType parquet;
    private final TimestampUnit unit;
    private final Map<String, String> metadata;
    private final ColumnType[] types;
    private final int[] strides;
    private final Binary[][] symbols;
    private final Binary[] chars = new Binary[256];

    /**
     * @param snapshot the rows.
     * @param unit     the unit of timestamps in the files.
     * @param metadata key-value metadata for every file's footer.
     */
    SegmentColumns(final TableSnapshot snapshot, final TimestampUnit unit, final Map<String, String> metadata) {
        this.snapshot = snapshot;
        this.schema = snapshot.schema();
        this.unit = unit;
        this.parquet = ParquetSchemas.of(schema, unit);
        this.metadata = new HashMap<>(metadata);
        this.metadata.put(ParquetWriter.OBJECT_MODEL_NAME_PROP, "tradestore");
        final int n = schema.columnCount();
        types = new ColumnType[n];
        strides = new int[n];
        symbols = new Binary[n][];
        for (final Column c : schema.columns()) {
            types[c.index()] = c.type();
            strides[c.index()] = snapshot.columnStride(c.index());
            if (c.type() == ColumnType.SYMBOL) {
                symbols[c.index()] = new Binary[Math.max(16, snapshot.dictionarySize(c.index()))];
            }
        }
    }

    /**
     * @param out   where the file goes.
     * @param codec its compression.
     * @return a writer of one Parquet file: {@link File#write} rows into it, then close it to write the footer.
     * @throws IOException when {@code out} fails.
     */
    File open(final OutputFile out, final CompressionCodecName codec) throws IOException {
        return new File(out, codec);
    }

    /** One Parquet file being written: row groups of whole batches, the footer at close. */
    final class File implements AutoCloseable {
        private final ParquetFileWriter file;
        private final CodecFactory codecs;
        private final BytesInputCompressor compressor;
        private final List<ColumnDescriptor> descriptors = parquet.getColumns();
        private final ColumnWriter[] writers = new ColumnWriter[types.length];
        private final int[] selected = new int[BATCH];
        private ColumnChunkPageWriteStore pages;
        private ColumnWriteStore columns;
        private int rowGroups;
        private long groupRows;
        private boolean failed;

        private File(final OutputFile out, final CompressionCodecName codec) throws IOException {
            file = new ParquetFileWriter(out, parquet, ParquetFileWriter.Mode.OVERWRITE, ROW_GROUP_BYTES,
                ParquetWriter.MAX_PADDING_SIZE_DEFAULT, null, PROPS);
            codecs = new CodecFactory(CONF, PROPS.getPageSizeThreshold());
            compressor = codecs.getCompressor(codec);
            file.start();
            startRowGroup();
        }

        private void startRowGroup() {
            pages = ColumnChunkPageWriteStore.builder().withSchema(parquet).withCompressorProvider(d -> compressor)
                .withAllocator(PROPS.getAllocator()).withColumnIndexTruncateLength(PROPS.getColumnIndexTruncateLength())
                .withPageWriteChecksumEnabled(PROPS.getPageWriteChecksumEnabled()).withRowGroupOrdinal(rowGroups)
                .build();
            columns = PROPS.newColumnWriteStore(parquet, pages, pages);
            for (int c = 0; c < writers.length; c++) {
                writers[c] = columns.getColumnWriter(descriptors.get(c));
            }
        }

        private void endRowGroup() throws IOException {
            try {
                if (groupRows > 0) {
                    file.startBlock(groupRows);
                    columns.flush();
                    pages.flushToFileWriter(file);
                    file.endBlock();
                    rowGroups++;
                }
            } finally {
                columns.close();
                pages.close();
                groupRows = 0;
            }
        }

        /**
         * Writes the rows of a segment whose designated timestamp {@code keep} takes.
         *
         * @param segment the segment.
         * @param keep    takes a row by its designated timestamp (null: every row).
         * @return rows written.
         * @throws IOException when the output fails.
         * @throws StoreException on a decimal with more digits than Parquet's DECIMAL(18, s) holds.
         */
        long write(final int segment, final LongPredicate keep) throws IOException {
            final int count = snapshot.segmentRowCount(segment);
            final int ts = schema.timestampIndex();
            final long tsBase = keep == null ? 0 : snapshot.columnAddress(segment, ts);
            final int tsStride = keep == null ? 0 : strides[ts];
            long rows = 0;
            try {
                for (int from = 0; from < count; from += BATCH) {
                    final int to = Math.min(count, from + BATCH);
                    int n = 0;
                    for (int r = from; r < to; r++) {
                        if (keep == null || keep.test(NativeMemory.getLong(tsBase + (long) r * tsStride))) {
                            selected[n++] = r;
                        }
                    }
                    if (n == 0) {
                        continue;
                    }
                    for (int c = 0; c < writers.length; c++) {
                        column(segment, c, n);
                    }
                    for (int i = 0; i < n; i++) {
                        columns.endRecord(); // counts rows and writes the pages that are full
                    }
                    groupRows += n;
                    rows += n;
                    if (groupRows >= PROPS.getRowGroupRowCountLimit() || columns.getBufferedSize() >= ROW_GROUP_BYTES) {
                        endRowGroup();
                        startRowGroup();
                    }
                }
            } catch (final IOException | RuntimeException e) {
                failed = true;
                throw e;
            }
            return rows;
        }

        /** Writes column c of the selected rows of a batch. */
        private void column(final int segment, final int c, final int n) {
            final ColumnWriter w = writers[c];
            final long base = snapshot.columnAddress(segment, c);
            final long stride = strides[c];
            final int[] rows = selected;
            switch (types[c]) {
                case I8:
                    for (int i = 0; i < n; i++) {
                        final byte v = NativeMemory.getByte(base + rows[i] * stride);
                        if (v == Byte.MIN_VALUE) {
                            w.writeNull(0, 0);
                        } else {
                            w.write(v, 0, 1);
                        }
                    }
                    break;
                case I16:
                    for (int i = 0; i < n; i++) {
                        final short v = NativeMemory.getShort(base + rows[i] * stride);
                        if (v == Short.MIN_VALUE) {
                            w.writeNull(0, 0);
                        } else {
                            w.write(v, 0, 1);
                        }
                    }
                    break;
                case I32:
                    for (int i = 0; i < n; i++) {
                        final int v = NativeMemory.getInt(base + rows[i] * stride);
                        if (v == Integer.MIN_VALUE) {
                            w.writeNull(0, 0);
                        } else {
                            w.write(v, 0, 1);
                        }
                    }
                    break;
                case I64:
                    for (int i = 0; i < n; i++) {
                        final long v = NativeMemory.getLong(base + rows[i] * stride);
                        if (v == Long.MIN_VALUE) {
                            w.writeNull(0, 0);
                        } else {
                            w.write(v, 0, 1);
                        }
                    }
                    break;
                case TIMESTAMP:
                    for (int i = 0; i < n; i++) {
                        final long v = NativeMemory.getLong(base + rows[i] * stride);
                        if (v == Long.MIN_VALUE) {
                            w.writeNull(0, 0);
                        } else {
                            w.write(unit.of(v), 0, 1);
                        }
                    }
                    break;
                case DECIMAL:
                    for (int i = 0; i < n; i++) {
                        final long v = NativeMemory.getLong(base + rows[i] * stride);
                        if (v == Long.MIN_VALUE) {
                            w.writeNull(0, 0);
                        } else if (v >= DECIMAL_LIMIT || v <= -DECIMAL_LIMIT) {
                            throw tooWide(segment, rows[i], c, v);
                        } else {
                            w.write(v, 0, 1);
                        }
                    }
                    break;
                case F64:
                    for (int i = 0; i < n; i++) {
                        final double v = NativeMemory.getDouble(base + rows[i] * stride);
                        if (Double.isNaN(v)) {
                            w.writeNull(0, 0);
                        } else {
                            w.write(v, 0, 1);
                        }
                    }
                    break;
                case SYMBOL:
                case CHAR:
                    text(w, c, base, stride, n);
                    break;
                default:
                    throw new IllegalStateException("type " + types[c]);
            }
        }

        /** Writes a symbol or char column of the selected rows: the kept {@link Binary} of each value. */
        private void text(final ColumnWriter w, final int c, final long base, final long stride, final int n) {
            final int[] rows = selected;
            if (types[c] == ColumnType.SYMBOL) {
                for (int i = 0; i < n; i++) {
                    final int code = NativeMemory.getInt(base + rows[i] * stride);
                    if (code < 0) {
                        w.writeNull(0, 0);
                    } else {
                        w.write(symbol(c, code), 0, 1);
                    }
                }
                return;
            }
            for (int i = 0; i < n; i++) {
                final int ch = NativeMemory.getByte(base + rows[i] * stride) & 0xFF;
                if (ch == 0) {
                    w.writeNull(0, 0);
                } else {
                    w.write(character(ch), 0, 1);
                }
            }
        }

        /** Writes the last row group and the footer; after a failed write, only releases what the file holds. */
        @Override
        public void close() throws IOException {
            try {
                if (failed) {
                    columns.close();
                    pages.close();
                    file.abort();
                } else {
                    endRowGroup();
                    file.end(metadata);
                }
            } finally {
                codecs.release();
                file.close();
            }
        }
    }

    private Binary symbol(final int c, final int code) {
        Binary[] known = symbols[c];
        if (code >= known.length) {
            known = Arrays.copyOf(known, Math.max(code + 1, known.length * 2));
            symbols[c] = known;
        }
        Binary v = known[code];
        if (v == null) {
            v = Binary.fromConstantByteArray(snapshot.symbolValue(c, code).getBytes(StandardCharsets.UTF_8));
            known[code] = v;
        }
        return v;
    }

    private Binary character(final int ch) {
        Binary v = chars[ch];
        if (v == null) {
            v = Binary.fromConstantByteArray(String.valueOf((char) ch).getBytes(StandardCharsets.UTF_8));
            chars[ch] = v;
        }
        return v;
    }

    private StoreException tooWide(final int segment, final int r, final int c, final long mantissa) {
        final long row = ((long) segment << schema.segmentShift()) + r;
        final Column col = schema.column(c);
        return new StoreException("row " + row + " (segment " + segment + "): column '" + col.name() + "' holds "
            + BigDecimal.valueOf(mantissa, col.scale()).toPlainString() + ", which has more than "
            + ParquetSchemas.DECIMAL_PRECISION + " digits and does not fit Parquet's DECIMAL("
            + ParquetSchemas.DECIMAL_PRECISION + ", " + col.scale() + ") on INT64; nothing of that file was kept");
    }
}
