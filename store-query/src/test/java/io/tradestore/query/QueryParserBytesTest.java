package io.tradestore.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.tradestore.core.Store;
import io.tradestore.core.schema.Layout;
import io.tradestore.query.model.Query;
import io.tradestore.query.parse.QueryParser;

/**
 * The embedded parser's byte path ({@link QueryParser#parse(InputStream)}, {@link QueryEngine#execute(InputStream,
 * long)}) refuses what the HTTP server refuses in a body, with the same code, message and path: bytes that are not
 * UTF-8 anywhere (also after a syntax error, after the query, across the stream's reads, cut short at the end), and a
 * NUL among the first four bytes (UTF-16 and UTF-32, which Jackson alone would read). {@link JsonBodyCheck} agrees with
 * the JDK's strict UTF-8 decoder on random bytes.
 */
class QueryParserBytesTest {
    private static final String QUERY = "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";

    @TempDir
    Path dir;

    /** @param chunk bytes per read of the source (0: all at once). */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3})
    void shouldRefuseBytesThatAreNotUtf8WithTheServersError(final int chunk) {
        final byte[][] bad = {
            {(byte) 0x80}, // a continuation byte alone
            {(byte) 0xC0, (byte) 0xAF}, // overlong '/'
            {(byte) 0xE0, (byte) 0x80, (byte) 0xAF}, // overlong '/' in three bytes
            {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, // an encoded surrogate (CESU-8)
            {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, // past U+10FFFF
            {(byte) 0xF5, (byte) 0x80, (byte) 0x80, (byte) 0x80},
            {(byte) 0xFF},
            {(byte) 0xE2, (byte) 0x82, 'x'}, // a sequence cut short by an ASCII byte
        };
        for (final byte[] b : bad) {
            // inside a string (Jackson decodes it), between tokens, after a syntax error, after the whole query
            assertNotUtf8(concat(utf8("{\"table\":\""), b, utf8("\"}")), chunk);
            assertNotUtf8(concat(utf8("{\"table\":\"trades\","), b, utf8("}")), chunk);
            assertNotUtf8(concat(utf8("{{{"), b), chunk);
            assertNotUtf8(concat(utf8(QUERY), b), chunk);
            // far beyond the parser's first read, after an early syntax error
            assertNotUtf8(concat(utf8("{]" + " ".repeat(70_000)), b), chunk);
        }
        // a sequence cut short by the end of the bytes
        assertNotUtf8(concat(utf8(QUERY), new byte[] {(byte) 0xE2, (byte) 0x82}), chunk);
        assertNotUtf8(new byte[] {(byte) 0xF0}, chunk);
        // a byte order mark of UTF-16 or UTF-32 LE is no UTF-8, NULs or not
        assertNotUtf8(concat(new byte[] {(byte) 0xFF, (byte) 0xFE}, QUERY.getBytes(StandardCharsets.UTF_16LE)), chunk);
        assertNotUtf8(concat(new byte[] {(byte) 0xFF, (byte) 0xFE, 0, 0}, QUERY.getBytes(Charset.forName("UTF-32LE"))),
            chunk);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 3})
    void shouldRefuseANulAmongTheFirstFourBytesWithTheServersError(final int chunk) {
        for (final String charset : new String[] {"UTF-16LE", "UTF-16BE", "UTF-32LE", "UTF-32BE"}) {
            assertNulAtStart(QUERY.getBytes(Charset.forName(charset)), chunk);
        }
        assertNulAtStart(concat(new byte[] {0}, utf8(QUERY)), chunk);
        assertNulAtStart(concat(utf8("{ \n"), new byte[] {0}, utf8(QUERY.substring(1))), chunk);
        assertNulAtStart(new byte[] {0}, chunk);
        // not UTF-8 further on comes first, as in the server
        assertNotUtf8(concat(new byte[] {0}, utf8(QUERY), new byte[] {(byte) 0xC0, (byte) 0x80}), chunk);
    }

    @Test
    void shouldLeaveANulFurtherOnToTheJsonParser() {
        for (final String q
            : new String[] {QUERY.replace("\"n\"", "\"n\u0000\""), QUERY.replace(",", ",\u0000"), QUERY + "\u0000"}) {
            assertThatThrownBy(() -> QueryParser.parse(new ByteArrayInputStream(utf8(q)))).as(q)
                .isInstanceOfSatisfying(QueryException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_JSON);
                assertThat(e.getMessage()).startsWith("the query is not valid JSON: ");
                assertThat(e.path()).isEmpty();
            });
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3})
    void shouldStillReadUtf8OfEveryLengthAndAByteOrderMark(final int chunk) {
        // two-, three- and four-byte characters, split across reads when chunk > 0
        final String q =
            "\uFEFF{\"table\":\"tr\u00e4des\u20ac\uD83D\uDE00\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";
        final Query parsed = QueryParser.parse(chunked(utf8(q), chunk));
        assertThat(parsed.table()).isEqualTo("tr\u00e4des\u20ac\uD83D\uDE00");
        assertThat(parsed.aggs()).hasSize(1);
        // a query valid as JSON and as UTF-8 still fails for what is wrong with it, with its path
        assertThatThrownBy(() -> QueryParser.parse(chunked(utf8("{\"table\":\"\u20ac\",\"bogus\":1}"), chunk)))
            .isInstanceOfSatisfying(QueryException.class,
            e -> assertThat(e.code() + " " + e.path()).as(e.getMessage()).isEqualTo("INVALID_QUERY /bogus"));
    }

    @Test
    void shouldRefuseTheBytesThroughTheEngineAsThroughTheParser() {
        try (Store store = Store.open(dir)) {
            new TradeData().write(store, TradeData.schema(Layout.COLUMN, 64, 16), 10, 1, false);
            try (QueryEngine engine = new QueryEngine(store, 1)) {
                assertThat(engine.execute(new ByteArrayInputStream(utf8(QUERY)), 10_000).value(0, 0)).isEqualTo(10L);
                assertThatThrownBy(() -> engine
                    .execute(new ByteArrayInputStream(concat(utf8(QUERY), new byte[] {(byte) 0xC0})), 10_000))
                    .isInstanceOfSatisfying(QueryException.class, e -> assertError(e, JsonBodyCheck.NOT_UTF8));
                assertThatThrownBy(() -> engine
                    .execute(new ByteArrayInputStream(QUERY.getBytes(StandardCharsets.UTF_16BE)), 10_000))
                    .isInstanceOfSatisfying(QueryException.class, e -> assertError(e, JsonBodyCheck.NUL_AT_START));
            }
        }
    }

    @Test
    void shouldReportASourceThatFailsAsUnreadableAndCloseIt() {
        final boolean[] closed = {false};
        final InputStream failing = new InputStream() {
            private int left = 3;

            @Override
            public int read() throws IOException {
                if (left-- > 0) {
                    return '{';
                }
                throw new IOException("connection reset");
            }

            @Override
            public void close() {
                closed[0] = true;
            }
        };
        assertThatThrownBy(() -> QueryParser.parse(failing)).isInstanceOfSatisfying(QueryException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_JSON);
            assertThat(e.getMessage()).isEqualTo("the query could not be read: connection reset");
            assertThat(e.path()).isEmpty();
        });
        assertThat(closed[0]).as("closed").isTrue();
    }

    /** Random bytes, most of them near UTF-8's edges: the check says what the JDK's strict decoder says. */
    @Test
    void shouldAgreeWithTheJdksStrictDecoderOnRandomBytes() {
        final int[] edges =
            {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE,
            0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
        final SplittableRandom rnd = new SplittableRandom(Long.getLong("tradestore.utf8.seed", 17));
        int valid = 0;
        for (int it = 0; it < 200_000; it++) {
            final byte[] b = new byte[1 + rnd.nextInt(6)];
            for (int i = 0; i < b.length; i++) {
                b[i] = (byte) (rnd.nextInt(4) == 0 ? rnd.nextInt(256) : edges[rnd.nextInt(edges.length)]);
            }
            final JsonBodyCheck check = new JsonBodyCheck();
            check.accept(b, 0, b.length);
            final QueryException problem = check.problem();
            final boolean utf8 = jdkDecodes(b);
            valid += utf8 ? 1 : 0;
            final boolean nulAtStart = indexOfZero(b) >= 0 && indexOfZero(b) < 4;
            final String expected = !utf8 ? JsonBodyCheck.NOT_UTF8 + " at byte " + jdkMalformedAt(b)
                + " (counting from 0)"
                : nulAtStart ? JsonBodyCheck.NUL_AT_START : null;
            assertThat(problem == null ? null : problem.getMessage())
                .as("bytes %s", java.util.HexFormat.of().formatHex(b)).isEqualTo(expected);
        }
        assertThat(valid).as("valid inputs drawn").isBetween(10_000, 190_000);
    }

    private static void assertNotUtf8(final byte[] body, final int chunk) {
        assertThatThrownBy(() -> QueryParser.parse(chunked(body, chunk))).isInstanceOfSatisfying(QueryException.class,
            e -> assertError(e, JsonBodyCheck.NOT_UTF8));
    }

    private static void assertNulAtStart(final byte[] body, final int chunk) {
        assertThatThrownBy(() -> QueryParser.parse(chunked(body, chunk))).isInstanceOfSatisfying(QueryException.class,
            e -> assertError(e, JsonBodyCheck.NUL_AT_START));
    }

    /** The error the server gives such a body: 400 MALFORMED_JSON with this message at path "". */
    private static void assertError(final QueryException e, final String message) {
        assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_JSON);
        assertThat(e.code().httpStatus()).isEqualTo(400);
        if (message.equals(JsonBodyCheck.NOT_UTF8)) { // the offset follows; the random comparison below checks it
            assertThat(e.getMessage()).startsWith(message + " at byte ").endsWith(" (counting from 0)");
        } else {
            assertThat(e.getMessage()).isEqualTo(message);
        }
        assertThat(e.path()).isEmpty();
    }

    private static boolean jdkDecodes(final byte[] b) {
        return jdkMalformedAt(b) < 0;
    }

    /** @return where the JDK's strict decoder finds the first malformed sequence, or -1 when the bytes are UTF-8. */
    private static int jdkMalformedAt(final byte[] b) {
        final ByteBuffer in = ByteBuffer.wrap(b);
        final java.nio.CharBuffer out = java.nio.CharBuffer.allocate(b.length + 1);
        final java.nio.charset.CharsetDecoder d = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
        final java.nio.charset.CoderResult r = d.decode(in, out, true);
        return r.isError() ? in.position() : -1;
    }

    private static int indexOfZero(final byte[] b) {
        for (int i = 0; i < b.length; i++) {
            if (b[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    /**
     * @param body bytes. @param chunk at most this many bytes per read (0: as many as asked). @return a stream of them.
     */
    private static InputStream chunked(final byte[] body, final int chunk) {
        return new ByteArrayInputStream(body) {
            @Override
            public synchronized int read(final byte[] b, final int off, final int len) {
                return super.read(b, off, chunk == 0 ? len : Math.min(len, chunk));
            }
        };
    }

    private static byte[] utf8(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(final byte[]... parts) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (final byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
