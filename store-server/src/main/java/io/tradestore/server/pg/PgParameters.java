package io.tradestore.server.pg;

import java.math.BigDecimal;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.tradestore.query.sql.SqlParameters;

/**
 * The values of a Bind message, decoded once per execution from their text or binary form by the type the statement
 * declares for each: for the engine as Long, BigDecimal or String ({@link SqlParameters}), for the catalog as text.
 * A timestamp parameter becomes epoch nanoseconds, which the engine reads as a timestamp where it is compared with
 * one.
 */
final class PgParameters {
    private final List<Object> values;
    private final List<String> texts;

    private PgParameters(final List<Object> values, final List<String> texts) {
        this.values = values;
        this.texts = texts;
    }

    /** No values (a simple query). */
    static final PgParameters NONE = new PgParameters(List.of(), List.of());

    /**
     * @param count parameters of a statement being described, before values are bound.
     * @return NULL for each, as the catalog reads them.
     */
    static PgParameters unbound(final int count) {
        return new PgParameters(Collections.nCopies(count, null), Collections.nCopies(count, null));
    }

    /**
     * @param types   each parameter's declared type OID (0: unspecified); may be shorter than the values.
     * @param formats 0 text or 1 binary, one per value (expanded by the caller).
     * @param raw     each value's bytes, or null for NULL.
     * @return the decoded values.
     * @throws PgFailure 22P02 or 22P03 for a value that is not of its type.
     */
    static PgParameters decode(final int[] types, final short[] formats, final byte[][] raw) {
        final List<Object> values = new ArrayList<>(raw.length);
        final List<String> texts = new ArrayList<>(raw.length);
        for (int i = 0; i < raw.length; i++) {
            final int oid = i < types.length ? types[i] : 0;
            final Object v = raw[i] == null ? null : formats[i] == 0 ? fromText(oid, utf8(raw[i]))
                : fromBinary(oid, raw[i]);
            values.add(v);
            texts.add(v == null ? null : oid == PgType.TIMESTAMPTZ.oid() || oid == PgType.TIMESTAMP.oid()
                ? (v instanceof Long l ? PgValues.timestamptz(l) : v.toString())
                : v instanceof BigDecimal b ? b.toPlainString() : v.toString());
        }
        return new PgParameters(values, texts);
    }

    private static Object fromText(final int oid, final String text) {
        if (oid == PgType.INT8.oid() || oid == PgType.INT4.oid() || oid == PgType.INT2.oid()
            || oid == PgType.OID.oid()) {
            try {
                return Long.parseLong(text.strip());
            } catch (final NumberFormatException e) {
                throw new PgFailure(PgError.of(PgError.INVALID_TEXT_REPRESENTATION, "invalid input syntax for type "
                    + "integer: \"" + text + "\""));
            }
        }
        if (oid == PgType.NUMERIC.oid() || oid == PgType.FLOAT8.oid() || oid == PgType.FLOAT4.oid()) {
            return PgValues.decimal(text);
        }
        if (oid == PgType.TIMESTAMPTZ.oid() || oid == PgType.TIMESTAMP.oid()) {
            return PgValues.timestampNanos(text);
        }
        return text;
    }

    private static Object fromBinary(final int oid, final byte[] b) {
        if (oid == PgType.INT8.oid() || oid == PgType.INT4.oid() || oid == PgType.INT2.oid()
            || oid == PgType.OID.oid()) {
            final int expected = oid == PgType.INT8.oid() ? 8 : oid == PgType.INT2.oid() ? 2 : 4;
            if (b.length != expected) {
                throw PgValues.badBinary(typeName(oid));
            }
            return PgValues.readLong(b, typeName(oid));
        }
        if (oid == PgType.FLOAT8.oid() || oid == PgType.FLOAT4.oid()) {
            final int expected = oid == PgType.FLOAT8.oid() ? 8 : 4;
            if (b.length != expected) {
                throw PgValues.badBinary(typeName(oid));
            }
            final long bits = PgValues.readLong(b, "float");
            final double d = expected == 8 ? Double.longBitsToDouble(bits) : Float.intBitsToFloat((int) bits);
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw new PgFailure(PgError.of(PgError.FEATURE_NOT_SUPPORTED, "NaN and infinite parameters are not "
                    + "supported"));
            }
            return expected == 8 ? BigDecimal.valueOf(d) : new BigDecimal(Float.toString((float) d));
        }
        if (oid == PgType.NUMERIC.oid()) {
            return PgValues.readNumeric(b);
        }
        if (oid == PgType.TIMESTAMPTZ.oid() || oid == PgType.TIMESTAMP.oid()) {
            if (b.length != 8) {
                throw PgValues.badBinary("timestamp");
            }
            final long micros = PgValues.readLong(b, "timestamp");
            try {
                return Math.multiplyExact(Math.addExact(micros, PgValues.PG_EPOCH_MICROS), 1_000L);
            } catch (final ArithmeticException e) {
                throw new PgFailure(PgError.of(PgError.NUMERIC_VALUE_OUT_OF_RANGE, "the timestamp is outside the "
                    + "nanosecond range (years 1677-2262)"));
            }
        }
        if (oid == PgType.BOOL.oid()) {
            if (b.length != 1) {
                throw PgValues.badBinary("bool");
            }
            return b[0] != 0 ? "t" : "f";
        }
        // text, varchar, name, char, unknown and unspecified: the bytes are the text
        return utf8(b);
    }

    private static String typeName(final int oid) {
        for (final PgType t : PgType.values()) {
            if (t.oid() == oid) {
                return t.typeName();
            }
        }
        return "oid " + oid;
    }

    private static String utf8(final byte[] b) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
        } catch (final CharacterCodingException e) {
            throw new PgFailure(PgError.of("22021", "a parameter is not valid UTF-8"));
        }
    }

    /** @return the values for the engine. */
    SqlParameters forEngine() {
        return values.isEmpty() ? SqlParameters.NONE : SqlParameters.of(values);
    }

    /** @return the values as text for the catalog ({@code null} for NULL). */
    List<String> texts() {
        return texts;
    }

    /** @return how many. */
    int count() {
        return values.size();
    }
}
