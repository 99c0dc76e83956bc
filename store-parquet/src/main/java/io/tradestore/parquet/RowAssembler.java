package io.tradestore.parquet;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import org.apache.parquet.column.Dictionary;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.io.api.RecordMaterializer;

import io.tradestore.core.TableWriter;
import io.tradestore.core.dict.SymbolDictionary;
import io.tradestore.core.dict.SymbolDictionaryDescriptor;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.PartitionBy;
import io.tradestore.core.schema.Schema;

/**
 * Receives parquet-java's values of one record at a time and appends them as a row of the table: each column's value
 * lands in a slot of {@link #values} (raw bits, null sentinel first), and {@link GroupConverter#end()} places the row
 * (by its timestamp, for a partitioned table) and stores the slots. Dictionary-encoded text is interned once per
 * Parquet dictionary entry, so a row allocates nothing.
 */
final class RowAssembler extends RecordMaterializer<Void> {
    /** Days between the Julian day 0 and 1970-01-01. */
    private static final long JULIAN_EPOCH_DAY = 2_440_588;

    private final TableWriter writer;
    private final Schema schema;
    private final long[] values;
    private final long[] nulls;
    private final int[] widths;
    private final int ts;
    private final boolean partitioned;
    private final Converter[] converters;
    private final GroupConverter root;
    /** The row of the file being read (1-based), for messages. */
    long row;
    /** Rows appended. */
    long appended;

    RowAssembler(final TableWriter writer, final List<ImportColumn> plan, final int fields) {
        this.writer = writer;
        this.schema = writer.schema();
        final int n = schema.columnCount();
        values = new long[n];
        nulls = new long[n];
        widths = new int[n];
        for (int c = 0; c < n; c++) {
            nulls[c] = schema.column(c).type().nullBits();
            widths[c] = schema.column(c).type().width();
        }
        ts = schema.timestampIndex();
        partitioned = schema.partitionBy() != PartitionBy.NONE;
        converters = new Converter[fields];
        for (final ImportColumn c : plan) {
            converters[c.field()] = converter(c);
        }
        root = new GroupConverter() {
            @Override
            public Converter getConverter(final int fieldIndex) {
                return converters[fieldIndex];
            }

            @Override
            public void start() {
                row++;
                System.arraycopy(nulls, 0, values, 0, values.length);
            }

            @Override
            public void end() {
                place();
            }
        };
    }

    @Override
    public Void getCurrentRecord() {
        return null;
    }

    @Override
    public GroupConverter getRootConverter() {
        return root;
    }

    private void place() {
        final long at = partitioned ? writer.appendRow(values[ts]) : writer.appendRow();
        final int shift = schema.segmentShift();
        final int seg = (int) (at >>> shift);
        final long in = at & (schema.segmentRows() - 1);
        for (int c = 0; c < values.length; c++) {
            final long address = writer.columnAddress(seg, c) + in * writer.columnStride(c);
            switch (widths[c]) {
                case 1 -> NativeMemory.putByte(address, (byte) values[c]);
                case 2 -> NativeMemory.putShort(address, (short) values[c]);
                case 4 -> NativeMemory.putInt(address, (int) values[c]);
                default -> NativeMemory.putLong(address, values[c]);
            }
        }
        appended++;
    }

    private Converter converter(final ImportColumn ic) {
        final int c = ic.column().index();
        final ColumnType type = ic.column().type();
        return switch (ic.kind()) {
            case INTEGER -> new PrimitiveConverter() {
                // the type's minimum is its null sentinel; both bounds from it, once per column
                private final long min = type.nullBits();
                private final long max = -(min + 1);

                @Override
                public void addInt(final int v) {
                    addLong(v);
                }

                @Override
                public void addLong(final long v) {
                    if (v <= min || v > max) {
                        throw bad(ic, v + " is " + (v == min ? "the null of " : "beyond the range of ")
                            + type.label() + " (" + (min + 1) + " to " + max + ")");
                    }
                    values[c] = v;
                }
            };
            case SCALED -> new PrimitiveConverter() {
                @Override
                public void addInt(final int v) {
                    addLong(v);
                }

                @Override
                public void addLong(final long v) {
                    values[c] = scaled(ic, v, BigInteger.valueOf(v));
                }
            };
            case BIG_DECIMAL -> new PrimitiveConverter() {
                @Override
                public void addBinary(final Binary v) {
                    final BigInteger unscaled = new BigInteger(v.getBytes());
                    if (unscaled.bitLength() > 63) {
                        throw bad(ic, new java.math.BigDecimal(unscaled, ic.scale()).toPlainString() + " is beyond "
                            + "the range of " + ic.column().typeName());
                    }
                    values[c] = scaled(ic, unscaled.longValue(), unscaled);
                }
            };
            case DOUBLE -> new PrimitiveConverter() {
                @Override
                public void addDouble(final double v) {
                    values[c] = Double.doubleToRawLongBits(v);
                }

                @Override
                public void addFloat(final float v) {
                    values[c] = Double.doubleToRawLongBits(v);
                }
            };
            case TIMESTAMP -> new PrimitiveConverter() {
                @Override
                public void addLong(final long v) {
                    values[c] = nanos(ic, v, ic.multiply());
                }
            };
            case DATE -> new PrimitiveConverter() {
                @Override
                public void addInt(final int v) {
                    values[c] = nanos(ic, v, ExportOptions.DAY_NANOS);
                }
            };
            case INT96 -> new PrimitiveConverter() {
                @Override
                public void addBinary(final Binary v) {
                    final ByteBuffer b = v.toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
                    final long nanosOfDay = b.getLong(b.position());
                    final long julianDay = b.getInt(b.position() + 8);
                    final long days = julianDay - JULIAN_EPOCH_DAY;
                    final long midnight = nanos(ic, days, ExportOptions.DAY_NANOS);
                    final long t = midnight + nanosOfDay;
                    if (nanosOfDay < 0 || t < midnight || t == Long.MIN_VALUE) {
                        throw bad(ic, "the INT96 timestamp of Julian day " + julianDay + " and " + nanosOfDay
                            + " ns is beyond the range of nanosecond timestamps (years 1677 to 2262)");
                    }
                    values[c] = t;
                }
            };
            case SYMBOL -> new TextConverter(ic, true);
            case CHAR -> new TextConverter(ic, false);
        };
    }

    private long scaled(final ImportColumn ic, final long v, final BigInteger exact) {
        final long m = v * ic.multiply();
        if (ic.multiply() != 1 && (Math.multiplyHigh(v, ic.multiply()) != (m >> 63)) || m == Long.MIN_VALUE) {
            throw bad(ic, new java.math.BigDecimal(exact, ic.scale()).toPlainString() + " is beyond the range of "
                + ic.column().typeName());
        }
        return m;
    }

    private long nanos(final ImportColumn ic, final long v, final long unit) {
        final long hi = Math.multiplyHigh(v, unit);
        final long lo = v * unit;
        if (hi != (lo >> 63) || lo == Long.MIN_VALUE) {
            throw bad(ic, v + " is beyond the range of nanosecond timestamps (years 1677 to 2262)");
        }
        return lo;
    }

    /** Text into a symbol column (interned, once per dictionary entry) or a char column (one ASCII character). */
    private final class TextConverter extends PrimitiveConverter {
        private final ImportColumn ic;
        private final int c;
        private final boolean symbol;
        private long[] fromDictionary = new long[0];
        private Dictionary dictionary;

        TextConverter(final ImportColumn ic, final boolean symbol) {
            this.ic = ic;
            this.c = ic.column().index();
            this.symbol = symbol;
        }

        @Override
        public boolean hasDictionarySupport() {
            return true;
        }

        @Override
        public void setDictionary(final Dictionary dictionary) {
            // converted lazily: a bad entry the rows never use must not fail the load
            fromDictionary = new long[dictionary.getMaxId() + 1];
            java.util.Arrays.fill(fromDictionary, Long.MIN_VALUE);
            this.dictionary = dictionary;
        }

        @Override
        public void addValueFromDictionary(final int id) {
            long v = fromDictionary[id];
            if (v == Long.MIN_VALUE) {
                v = value(dictionary.decodeToBinary(id));
                fromDictionary[id] = v;
            }
            values[c] = v;
        }

        @Override
        public void addBinary(final Binary v) {
            values[c] = value(v);
        }

        private long value(final Binary v) {
            final byte[] bytes = v.getBytesUnsafe();
            if (!symbol) {
                if (bytes.length != 1 || bytes[0] <= 0) {
                    throw bad(ic, "'" + v.toStringUsingUTF8() + "' is not one ASCII character, as a char holds");
                }
                return bytes[0];
            }
            if (bytes.length == 0) {
                return -1; // the empty string is null, as an empty CSV field is
            }
            if (bytes.length > SymbolDictionaryDescriptor.MAX_SYMBOL_LENGTH) {
                throw bad(ic, "a symbol of " + bytes.length + " bytes is longer than the limit of "
                    + SymbolDictionaryDescriptor.MAX_SYMBOL_LENGTH);
            }
            final SymbolDictionary d = writer.dictionary(c);
            return d.intern(bytes, 0, bytes.length);
        }
    }

    private ImportError bad(final ImportColumn ic, final String what) {
        return new ImportError(ic, row, what);
    }

    /** A value that does not fit its column: the loader adds the file. */
    static final class ImportError extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient ImportColumn column;
        final long row;

        ImportError(final ImportColumn column, final long row, final String message) {
            super(message, null, false, false);
            this.column = column;
            this.row = row;
        }
    }
}
