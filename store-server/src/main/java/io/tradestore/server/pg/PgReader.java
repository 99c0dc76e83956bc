package io.tradestore.server.pg;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Reads a message body; a body cut short is a protocol violation, never an exception out of the session. */
final class PgReader {
    private final byte[] b;
    private int at;

    PgReader(final byte[] b) {
        this.b = b;
    }

    int int8() {
        need(1);
        return b[at++] & 0xFF;
    }

    int int16() {
        need(2);
        final int v = (short) ((b[at] & 0xFF) << 8 | b[at + 1] & 0xFF);
        at += 2;
        return v;
    }

    int int32() {
        need(4);
        final int v = (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | b[at + 3] & 0xFF;
        at += 4;
        return v;
    }

    /** @return an int32-length-prefixed value, or null for length -1. */
    byte[] bytes() {
        final int n = int32();
        if (n == -1) {
            return null;
        }
        if (n < 0) {
            throw PgSession.protocol("a negative value length " + n);
        }
        need(n);
        final byte[] v = java.util.Arrays.copyOfRange(b, at, at + n);
        at += n;
        return v;
    }

    String cstring() {
        int end = at;
        while (end < b.length && b[end] != 0) {
            end++;
        }
        if (end >= b.length) {
            throw PgSession.protocol("a string runs past the end of its message");
        }
        final String s;
        try {
            s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b, at, end - at))
                .toString();
        } catch (final CharacterCodingException e) {
            throw new PgFailure(PgError.of("22021", "invalid byte sequence for encoding \"UTF8\""));
        }
        at = end + 1;
        return s;
    }

    /** The message must end here. */
    void end() {
        if (at != b.length) {
            throw PgSession.protocol("the message has " + (b.length - at) + " bytes more than its fields");
        }
    }

    private void need(final int n) {
        if (n > b.length - at) {
            throw PgSession.protocol("the message ends before its fields do");
        }
    }
}
