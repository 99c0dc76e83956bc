package io.tradestore.parquet;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;

import io.tradestore.core.StoreException;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;

/**
 * Feeds parquet-java's record writer one row of a snapshot's segment at a time, straight from the mapped columns:
 * values are read from native memory and null sentinels become absent fields. Symbol and char values go in as
 * {@link Binary}s made once per dictionary code and kept, so that a row allocates nothing.
 */
final class SegmentWriteSupport extends WriteSupport<RowCursor> {
    /** Parquet's DECIMAL(18, s) on INT64: mantissas of at most 18 digits. */
    private static final long DECIMAL_LIMIT = 1_000_000_000_000_000_000L;

    private final TableSnapshot snapshot;
    private final Schema schema;
    private final MessageType parquet;
    private final TimestampUnit unit;
    private final Map<String, String> metadata;
    private final String[] names;
    private final ColumnType[] types;
    private final int[] strides;
    private final Binary[][] symbols;
    private final Binary[] chars = new Binary[256];
    private RecordConsumer out;

    SegmentWriteSupport(final TableSnapshot snapshot, final TimestampUnit unit, final Map<String, String> metadata) {
        this.snapshot = snapshot;
        this.schema = snapshot.schema();
        this.unit = unit;
        this.parquet = ParquetSchemas.of(schema, unit);
        this.metadata = new HashMap<>(metadata);
        final int n = schema.columnCount();
        names = new String[n];
        types = new ColumnType[n];
        strides = new int[n];
        symbols = new Binary[n][];
        for (final Column c : schema.columns()) {
            names[c.index()] = c.name();
            types[c.index()] = c.type();
            strides[c.index()] = snapshot.columnStride(c.index());
            if (c.type() == ColumnType.SYMBOL) {
                symbols[c.index()] = new Binary[Math.max(16, snapshot.dictionarySize(c.index()))];
            }
        }
    }

    /** Abstract in parquet-java though deprecated there: the Hadoop configuration path still calls it. */
    @Override
    @SuppressWarnings("deprecation")
    public WriteContext init(final Configuration configuration) {
        return new WriteContext(parquet, metadata);
    }

    @Override
    public WriteContext init(final ParquetConfiguration configuration) {
        return new WriteContext(parquet, metadata);
    }

    @Override
    public String getName() {
        return "tradestore";
    }

    @Override
    public void prepareForWrite(final RecordConsumer recordConsumer) {
        this.out = recordConsumer;
    }

    @Override
    public void write(final RowCursor r) {
        out.startMessage();
        for (int c = 0; c < names.length; c++) {
            final long at = snapshot.columnAddress(r.segment, c) + (long) r.row * strides[c];
            switch (types[c]) {
                case I8:
                    final byte b = NativeMemory.getByte(at);
                    if (b != Byte.MIN_VALUE) {
                        integer(c, b);
                    }
                    break;
                case I16:
                    final short s = NativeMemory.getShort(at);
                    if (s != Short.MIN_VALUE) {
                        integer(c, s);
                    }
                    break;
                case I32:
                    final int i = NativeMemory.getInt(at);
                    if (i != Integer.MIN_VALUE) {
                        integer(c, i);
                    }
                    break;
                case I64:
                    final long l = NativeMemory.getLong(at);
                    if (l != Long.MIN_VALUE) {
                        longValue(c, l);
                    }
                    break;
                case TIMESTAMP:
                    final long t = NativeMemory.getLong(at);
                    if (t != Long.MIN_VALUE) {
                        longValue(c, unit.of(t));
                    }
                    break;
                case DECIMAL:
                    final long m = NativeMemory.getLong(at);
                    if (m != Long.MIN_VALUE) {
                        if (m >= DECIMAL_LIMIT || m <= -DECIMAL_LIMIT) {
                            throw tooWide(r, c, m);
                        }
                        longValue(c, m);
                    }
                    break;
                case F64:
                    final double d = NativeMemory.getDouble(at);
                    if (!Double.isNaN(d)) {
                        out.startField(names[c], c);
                        out.addDouble(d);
                        out.endField(names[c], c);
                    }
                    break;
                case SYMBOL:
                    final int code = NativeMemory.getInt(at);
                    if (code >= 0) {
                        binary(c, symbol(c, code));
                    }
                    break;
                case CHAR:
                    final int ch = NativeMemory.getByte(at) & 0xFF;
                    if (ch != 0) {
                        binary(c, character(ch));
                    }
                    break;
                default:
                    throw new IllegalStateException("type " + types[c]);
            }
        }
        out.endMessage();
    }

    private void integer(final int c, final int v) {
        out.startField(names[c], c);
        out.addInteger(v);
        out.endField(names[c], c);
    }

    private void longValue(final int c, final long v) {
        out.startField(names[c], c);
        out.addLong(v);
        out.endField(names[c], c);
    }

    private void binary(final int c, final Binary v) {
        out.startField(names[c], c);
        out.addBinary(v);
        out.endField(names[c], c);
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

    private StoreException tooWide(final RowCursor r, final int c, final long mantissa) {
        final long row = ((long) r.segment << schema.segmentShift()) + r.row;
        final Column col = schema.column(c);
        return new StoreException("row " + row + " (segment " + r.segment + "): column '" + col.name() + "' holds "
            + BigDecimal.valueOf(mantissa, col.scale()).toPlainString() + ", which has more than "
            + ParquetSchemas.DECIMAL_PRECISION + " digits and does not fit Parquet's DECIMAL("
            + ParquetSchemas.DECIMAL_PRECISION + ", " + col.scale() + ") on INT64; nothing of that file was kept");
    }
}
