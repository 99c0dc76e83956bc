package io.tradestore.query;

/**
 * Checks the bytes of a JSON query, one at a time as they pass, for what makes them no UTF-8 JSON before any parsing:
 * bytes that are not well-formed UTF-8 (strict, as Unicode's table 3-7: no overlong forms, no encoded surrogates,
 * nothing past U+10FFFF, no sequence cut short at the end; Jackson alone lets some through or names them otherwise),
 * and a NUL among the first four bytes (from which Jackson would take the text for UTF-16 or UTF-32; a byte order mark
 * of either is not UTF-8). A NUL further on is refused by the parser, as JSON text never holds a raw one.
 * {@link io.tradestore.query.parse.QueryParser#parse(java.io.InputStream)} checks its stream with one; the HTTP server
 * checks a POST body in place with one before it admits the query, so both give the same errors.
 *
 * <p>One check per query: pass every byte to {@link #accept(byte)} (its shape is Netty's {@code ByteProcessor}), then
 * ask {@link #problem()}. Not thread-safe.
 */
public final class JsonBodyCheck {
    /** The start of the message of bytes that are not UTF-8 (MALFORMED_JSON, path ""); " at byte N" follows. */
    public static final String NOT_UTF8 = "the body is not valid UTF-8";
    /** The message of a NUL among the first four bytes (MALFORMED_JSON, path ""). */
    public static final String NUL_AT_START = "the body is not JSON: it holds a NUL byte";

    private static final int HEAD_LENGTH = 4;

    private long count;
    /** The offset of the first byte of the sequence being read (the one that breaks, once malformed). */
    private long sequenceStart;
    /** Continuation bytes still expected by the sequence begun. */
    private int pending;
    /** The range the next continuation byte must lie in (narrower after E0, ED, F0 and F4). */
    private int low = 0x80;
    private int high = 0xBF;
    private boolean malformed;
    private boolean nulAtStart;

    /**
     * Checks the next byte.
     *
     * @param value the byte.
     * @return false once the bytes are not UTF-8, whatever follows (more bytes change nothing then).
     */
    public boolean accept(final byte value) {
        if (malformed) {
            return false;
        }
        final int b = value & 0xFF;
        if (count++ < HEAD_LENGTH && b == 0) {
            nulAtStart = true;
        }
        if (pending > 0) {
            if (b < low || b > high) {
                malformed = true;
                return false;
            }
            low = 0x80;
            high = 0xBF;
            pending--;
            return true;
        }
        if (b < 0x80) {
            return true;
        }
        sequenceStart = count - 1; // a lead byte, or one that cannot lead (then the body breaks here)
        if (b < 0xC2 || b > 0xF4) { // a continuation byte, C0 and C1 (overlong), or past U+10FFFF
            malformed = true;
            return false;
        }
        if (b < 0xE0) {
            pending = 1;
        } else if (b < 0xF0) {
            pending = 2;
            low = b == 0xE0 ? 0xA0 : 0x80; // E0 80..9F would be overlong
            high = b == 0xED ? 0x9F : 0xBF; // ED A0..BF would be a surrogate
        } else {
            pending = 3;
            low = b == 0xF0 ? 0x90 : 0x80; // F0 80..8F would be overlong
            high = b == 0xF4 ? 0x8F : 0xBF; // F4 90.. would be past U+10FFFF
        }
        return true;
    }

    /**
     * Checks bytes of an array.
     *
     * @param bytes  the array.
     * @param offset the first byte.
     * @param length how many.
     * @return false once the bytes are not UTF-8.
     */
    public boolean accept(final byte[] bytes, final int offset, final int length) {
        for (int i = offset, end = offset + length; i < end; i++) {
            if (!accept(bytes[i])) {
                return false;
            }
        }
        return !malformed;
    }

    /**
     * @return whether the bytes so far either are not UTF-8 or hold a NUL among the first four: the query is refused.
     */
    public boolean refused() {
        return malformed || nulAtStart;
    }

    /**
     * @return the error of all the bytes passed, taken as the whole query: MALFORMED_JSON at path "" when they are not
     *         UTF-8 (first; the message names the offset of the sequence that breaks, as a strict decoder stops there)
     *         or hold a NUL among the first four; null when neither.
     */
    public QueryException problem() {
        if (malformed || pending > 0) {
            return new QueryException(ErrorCode.MALFORMED_JSON, NOT_UTF8 + " at byte " + sequenceStart
                + " (counting from 0)", "");
        }
        if (nulAtStart) {
            return new QueryException(ErrorCode.MALFORMED_JSON, NUL_AT_START, "");
        }
        return null;
    }
}
