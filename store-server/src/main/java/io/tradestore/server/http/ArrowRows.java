package io.tradestore.server.http;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampNanoTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

import io.tradestore.query.QueryResult;
import io.tradestore.query.ResultColumn;

/**
 * An answer as an Apache Arrow IPC stream (what {@code pyarrow.ipc.open_stream} and polars read): the schema, then
 * one record batch per batch of rows as it comes, then the end-of-stream marker. Types: i8 to i64 as signed integers
 * of their width, f64 as double, {@code decimal(s)} as decimal128(38, s), timestamps as timestamp[ns, UTC], symbols
 * and chars as UTF-8 strings; nulls as Arrow nulls.
 */
final class ArrowRows implements ResultFormat.Writer {
    static final String TYPE = "application/vnd.apache.arrow.stream";
    /** Arrow's 128-bit decimals hold 38 digits. */
    private static final int DECIMAL_PRECISION = 38;

    private final OutputStream out;
    private BufferAllocator allocator;
    private VectorSchemaRoot root;
    private ArrowStreamWriter writer;

    ArrowRows(final OutputStream out) {
        this.out = out;
    }

    @Override
    public void rows(final QueryResult batch) throws IOException {
        if (root == null) {
            start(batch.columns());
        }
        final int n = batch.rowCount();
        root.allocateNew();
        for (int c = 0; c < root.getFieldVectors().size(); c++) {
            final FieldVector v = root.getVector(c);
            for (int r = 0; r < n; r++) {
                set(v, r, batch.value(r, c));
            }
            v.setValueCount(n);
        }
        root.setRowCount(n);
        writer.writeBatch();
    }

    private void start(final List<ResultColumn> columns) throws IOException {
        final List<Field> fields = new ArrayList<>();
        for (final ResultColumn c : columns) {
            fields.add(new Field(c.name(), FieldType.nullable(type(c.type())), null));
        }
        allocator = new RootAllocator();
        root = VectorSchemaRoot.create(new Schema(fields), allocator);
        writer = new ArrowStreamWriter(root, null, Channels.newChannel(out));
        writer.start();
    }

    private static ArrowType type(final String t) {
        return switch (t) {
            case "i8" -> new ArrowType.Int(8, true);
            case "i16" -> new ArrowType.Int(16, true);
            case "i32" -> new ArrowType.Int(32, true);
            case "i64" -> new ArrowType.Int(64, true);
            case "f64" -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case "timestamp" -> new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC");
            case "symbol", "char" -> ArrowType.Utf8.INSTANCE;
            default -> {
                if (t.startsWith("decimal(")) {
                    yield new ArrowType.Decimal(DECIMAL_PRECISION, Integer.parseInt(t.substring(8, t.length() - 1)),
                        128);
                }
                throw new IllegalStateException("result type " + t);
            }
        };
    }

    private static void set(final FieldVector v, final int r, final Object value) {
        if (value == null) {
            v.setNull(r);
            return;
        }
        if (v instanceof BigIntVector b) {
            b.setSafe(r, ((Number) value).longValue());
        } else if (v instanceof IntVector i) {
            i.setSafe(r, ((Number) value).intValue());
        } else if (v instanceof SmallIntVector s) {
            s.setSafe(r, ((Number) value).shortValue());
        } else if (v instanceof TinyIntVector t) {
            t.setSafe(r, ((Number) value).byteValue());
        } else if (v instanceof Float8Vector f) {
            f.setSafe(r, ((Number) value).doubleValue());
        } else if (v instanceof TimeStampNanoTZVector ts) {
            ts.setSafe(r, ((Number) value).longValue());
        } else if (v instanceof DecimalVector d) {
            final BigDecimal b = (BigDecimal) value;
            if (b.precision() - b.scale() > DECIMAL_PRECISION - d.getScale()) {
                throw new IllegalStateException("the value " + b.toPlainString() + " of column '" + v.getName()
                    + "' has more than " + DECIMAL_PRECISION + " digits, beyond Arrow's decimal128; ask for JSON or "
                    + "CSV");
            }
            d.setSafe(r, b.setScale(d.getScale()));
        } else if (v instanceof VarCharVector s) {
            s.setSafe(r, value.toString().getBytes(StandardCharsets.UTF_8));
        } else {
            throw new IllegalStateException("vector " + v.getClass().getSimpleName());
        }
    }

    @Override
    public void end() throws IOException {
        if (writer != null) {
            writer.end();
        }
    }

    /** Frees the vectors and their allocator's native memory, whether the stream ended or was cut off. */
    @Override
    public void close() {
        if (root != null) {
            root.close();
            root = null;
        }
        if (allocator != null) {
            allocator.close();
            allocator = null;
        }
    }
}
