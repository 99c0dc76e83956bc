package io.tradestore.core.ingest;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.SplittableRandom;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.tradestore.core.memory.NativeMemory;

import static org.assertj.core.api.Assertions.assertThat;

/** Edge and property tests of the field parsers: every value must round-trip exactly, every bad one must fail. */
class FieldParserTest {
    private static final int PAD = 32;
    private static long buffer;
    private static final int CAPACITY = 4096;
    private final FieldParser parser = new FieldParser();

    @BeforeAll
    static void allocate() {
        buffer = NativeMemory.allocate(CAPACITY);
    }

    @AfterAll
    static void free() {
        NativeMemory.free(buffer, CAPACITY);
    }

    /** Parser kinds under test, applied to text followed by a comma (and more bytes, as in a real row). */
    private enum Kind { INTEGER, DECIMAL6, DECIMAL2, TIMESTAMP, DOUBLE, SIDE }

    /** @return the value, or null when the text is rejected (it must then not parse up to the comma). */
    private Long parse(final Kind kind, final String text, final boolean tight) {
        final byte[] b = (text + (tight ? "" : ",9999999999999999")).getBytes(StandardCharsets.UTF_8);
        NativeMemory.copy(b, 0, buffer + PAD, b.length);
        final long p = buffer + PAD;
        final long limit = p + b.length;
        final long end = switch (kind) {
            case INTEGER -> parser.parseInteger(p, limit, Long.MAX_VALUE);
            case DECIMAL6 -> parser.parseDecimal(p, limit, 6);
            case DECIMAL2 -> parser.parseDecimal(p, limit, 2);
            case TIMESTAMP -> parser.parseTimestamp(p, limit);
            case DOUBLE -> parser.parseDouble(p, limit);
            case SIDE -> parser.parseSide(p, limit);
        };
        final long textEnd = p + text.getBytes(StandardCharsets.UTF_8).length;
        return end == textEnd ? parser.value : null;
    }

    private Long parseBoth(final Kind kind, final String text) {
        final Long a = parse(kind, text, false);
        final Long b = parse(kind, text, true);
        assertThat(b).as("same result at the end of the buffer for '%s'", text).isEqualTo(a);
        return a;
    }

    @Test
    void shouldRoundTripRandomIntegersOfEveryLength() {
        final SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < 20_000; i++) {
            final long v = switch (i % 4) {
                case 0 -> r.nextLong();
                case 1 -> r.nextLong(1000);
                case 2 -> r.nextLong(-100_000_000, 100_000_000);
                default -> r.nextLong() >> r.nextInt(64);
            };
            if (v == Long.MIN_VALUE) {
                continue;
            }
            assertThat(parseBoth(Kind.INTEGER, Long.toString(v))).as("%d", v).isEqualTo(v);
        }
    }

    @ParameterizedTest
    @CsvSource({"0,0", "+7,7", "-0,0", "00000000000000000000012,12", "9223372036854775807,9223372036854775807",
        "-9223372036854775807,-9223372036854775807", "12345678,12345678", "123456789,123456789"})
    void shouldParseIntegerEdges(final String text, final long expected) {
        assertThat(parseBoth(Kind.INTEGER, text)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings =
        {"9223372036854775808", "-9223372036854775808", "99999999999999999999", "", "-", "+", "1.5", "1e3",
        "12a", "0x10", " 1", "1 "})
    void shouldRejectBadOrOutOfRangeIntegers(final String text) {
        assertThat(parseBoth(Kind.INTEGER, text)).as("'%s'", text).isNull();
    }

    @Test
    void shouldRangeCheckNarrowIntegers() {
        final byte[] b = "128,".getBytes(StandardCharsets.US_ASCII);
        NativeMemory.copy(b, 0, buffer, b.length);
        assertThat(parser.parseInteger(buffer, buffer + b.length, Byte.MAX_VALUE)).isEqualTo(-1);
        assertThat(parser.error).isEqualTo(FieldParser.E_RANGE);
        assertThat(parser.parseInteger(buffer, buffer + 3, Short.MAX_VALUE)).isEqualTo(buffer + 3);
        assertThat(parser.value).isEqualTo(128);
    }

    @Test
    void shouldParseRandomDecimalsExactly() {
        final SplittableRandom r = new SplittableRandom(2);
        for (int i = 0; i < 20_000; i++) {
            final int scale = r.nextInt(7);
            final long mantissa = r.nextInt(3) == 0 ? r.nextLong(-1_000_000_000_000L, 1_000_000_000_000L) : r
                .nextLong(-100_000, 100_000);
            final String text = BigDecimal.valueOf(mantissa, scale).toPlainString();
            final long expected = BigDecimal.valueOf(mantissa, scale).movePointRight(6).longValueExact();
            assertThat(parseBoth(Kind.DECIMAL6, text)).as(text).isEqualTo(expected);
        }
    }

    @ParameterizedTest
    @CsvSource({"12.34,12340000", "0.000001,1", "-0.5,-500000", ".5,500000", "5.,5000000", "+3.25,3250000",
        "007.100000,7100000",
        "9223372036854.775807,9223372036854775807"})
    void shouldParseDecimalEdges(final String text, final long expected) {
        assertThat(parseBoth(Kind.DECIMAL6, text)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings =
        {"12.3.4", "1.2345678", "1e5", ".", "-", "", "abc", "1,5", "9223372036854.775808", "1.0000001",
        "9223372036854775808", "18446744073709551617.5", "-9223372036854775809", "99999999999999999999999"})
    void shouldRejectBadDecimals(final String text) {
        assertThat(parseBoth(Kind.DECIMAL6, text)).as("'%s'", text).isNull();
    }

    @Test
    void shouldRangeCheckDecimalsOfScaleZero() {
        assertThat(parser.parseDecimal(put("9223372036854775807,"), buffer + PAD + 20, 0)).isEqualTo(buffer + PAD + 19);
        assertThat(parser.value).isEqualTo(Long.MAX_VALUE);
        assertThat(parser.parseDecimal(put("9223372036854775808,"), buffer + PAD + 20, 0)).isEqualTo(-1);
        assertThat(parser.error).isEqualTo(FieldParser.E_RANGE);
        assertThat(parser.parseDecimal(put("18446744073709551616,"), buffer + PAD + 21, 0)).isEqualTo(-1);
        assertThat(parser.error).isEqualTo(FieldParser.E_RANGE);
    }

    private static long put(final String text) {
        final byte[] b = text.getBytes(StandardCharsets.UTF_8);
        NativeMemory.copy(b, 0, buffer + PAD, b.length);
        return buffer + PAD;
    }

    @Test
    void shouldReportScaleErrorsNotRounding() {
        assertThat(parseBoth(Kind.DECIMAL2, "1.234")).isNull();
        assertThat(parser.error).isEqualTo(FieldParser.E_SCALE);
        assertThat(parser.fractionDigits).isEqualTo(3);
        assertThat(parseBoth(Kind.DECIMAL2, "1.23")).isEqualTo(123);
    }

    @Test
    void shouldParseRandomTimestampsLikeJavaTime() {
        final SplittableRandom r = new SplittableRandom(3);
        final DateTimeFormatter[] formats = {
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSSXXX"),
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSXXX"),
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ssXXX"),
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSX"),
            DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSxx"),
        };
        for (int i = 0; i < 20_000; i++) {
            final long seconds = r.nextLong(-9_000_000_000L, 9_000_000_000L);
            final int nanos = r.nextInt(1_000_000_000);
            final ZoneOffset zone =
                i % 3 == 0 ? ZoneOffset.UTC : ZoneOffset.ofTotalSeconds(r.nextInt(-18 * 60, 18 * 60 + 1) * 60);
            final OffsetDateTime t = Instant.ofEpochSecond(seconds, nanos).atOffset(zone);
            final DateTimeFormatter f = formats[i % formats.length];
            final String text = t.format(f);
            final OffsetDateTime back = OffsetDateTime.parse(text, f);
            final long expected = back.toEpochSecond() * 1_000_000_000L + back.getNano();
            assertThat(parseBoth(Kind.TIMESTAMP, text)).as(text).isEqualTo(expected);
        }
    }

    @ParameterizedTest
    @CsvSource({"2026-11-16T08:00:00.000441Z,1794816000000441000", "2026-11-16T08:00:00Z,1794816000000000000",
        "2026-11-16T09:00:00+01:00,1794816000000000000", "2026-11-16T09:00:00+0100,1794816000000000000",
        "2026-11-16T07:00:00-01,1794816000000000000", "2026-11-16T08:00:00.1z,1794816000100000000",
        "1794816000000441000,1794816000000441000", "-5,-5", "2024-02-29T00:00:00Z,1709164800000000000",
        "2026-11-17T02:00:00+18:00,1794816000000000000", "2026-11-15T14:00:00-1800,1794816000000000000"})
    void shouldParseTimestampEdges(final String text, final long expected) {
        assertThat(parseBoth(Kind.TIMESTAMP, text)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings =
        {"2026-11-16T08:00:00", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-11-16T24:00:00Z",
        "2026-11-16T08:60:00Z", "2026-11-16T08:00:60Z", "2026-11-16T08:00:00.1234567890Z", "2026-11-16T08:00:00.Z",
        "2026/11/16T08:00:00Z", "1600-01-01T00:00:00Z", "2300-01-01T00:00:00Z", "2026-11-16", "yesterday",
        "2026-11-16T08:00:00+25:00",
        "2026-11-16T08:00:00+18:01", "2026-11-16T08:00:00-18:01", "2026-11-16T08:00:00+1859",
        "2026-11-16T08:00:00.5-19"})
    void shouldRejectBadTimestamps(final String text) {
        assertThat(parseBoth(Kind.TIMESTAMP, text)).as("'%s'", text).isNull();
    }

    @Test
    void shouldParseEveryTimeOfDayOnTheCachedDateLikeJavaTime() {
        // the first timestamp caches its date; the rest take the SWAR time-of-day path on that date
        final SplittableRandom r = new SplittableRandom(5);
        final long day = Instant.parse("2026-11-16T00:00:00Z").getEpochSecond();
        assertThat(parseBoth(Kind.TIMESTAMP, "2026-11-16T00:00:00.5Z")).isEqualTo(day * 1_000_000_000L + 500_000_000L);
        for (int i = 0; i < 20_000; i++) {
            final int secondOfDay = i < 86_400 / 7 ? i * 7 : r.nextInt(86_400);
            final int digits = 1 + r.nextInt(7);
            final long fraction = r.nextLong(FieldParser.POW10[digits]);
            final String text =
                String.format("2026-11-16T%02d:%02d:%02d.%0" + digits + "dZ", secondOfDay / 3600, secondOfDay / 60 % 60,
                secondOfDay % 60, fraction);
            final long expected = (day + secondOfDay) * 1_000_000_000L + fraction * FieldParser.POW10[9 - digits];
            assertThat(parseBoth(Kind.TIMESTAMP, text)).as(text).isEqualTo(expected);
        }
    }

    @ParameterizedTest
    @ValueSource(strings =
        {"2026-11-16T24:00:00.1Z", "2026-11-16T08:60:00.1Z", "2026-11-16T08:00:60.1Z", "2026-11-16T0x:00:00.1Z",
        "2026-11-16T08;00:00.1Z", "2026-11-16T08:00-00.1Z", "2026-11-16T08:0/:00.1Z", "2026-11-16T08:00:0:.1Z",
        "2026-11-16T\u00f8:00:00.1Z",
        "2026-11-16X08:00:00.1Z", "2026-11-16T08:00:00.1", "2026-11-16T08:00:00.1234567890Z", "2026-11-16T99:99:99.1Z"})
    void shouldRejectBadTimesOnTheCachedDate(final String text) {
        assertThat(parseBoth(Kind.TIMESTAMP, "2026-11-16T08:00:00.1Z")).isNotNull();
        assertThat(parseBoth(Kind.TIMESTAMP, text)).as("'%s'", text).isNull();
    }

    @Test
    void shouldParseRandomDoublesLikeJava() {
        final SplittableRandom r = new SplittableRandom(4);
        for (int i = 0; i < 20_000; i++) {
            final double d = switch (i % 3) {
                case 0 -> r.nextDouble() * 1000;
                case 1 -> Double.longBitsToDouble(r.nextLong());
                default -> r.nextInt(100_000) / 100.0;
            };
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                continue;
            }
            final String text = Double.toString(d);
            assertThat(parseBoth(Kind.DOUBLE, text)).as(text)
                .isEqualTo(Double.doubleToRawLongBits(Double.parseDouble(text)));
        }
    }

    @ParameterizedTest
    @CsvSource({"B,66", "S,83", "b,66", "s,83", "BUY,66", "SELL,83", "buy,66", "Sell,83"})
    void shouldParseSides(final String text, final long expected) {
        assertThat(parseBoth(Kind.SIDE, text)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"X", "BU", "SEL", "BUYS", "1", "SELLER"})
    void shouldRejectBadSides(final String text) {
        assertThat(parseBoth(Kind.SIDE, text)).as("'%s'", text).isNull();
    }

    @Test
    void shouldCountLeadingDigitsWithSwarLikeAScan() {
        final SplittableRandom r = new SplittableRandom(5);
        for (int i = 0; i < 100_000; i++) {
            final long word = r.nextInt(2) == 0 ? r.nextLong() : digitsWord(r);
            int n = 0;
            while (n < 8) {
                final int b = (int) (word >>> (n * 8)) & 0xFF;
                if (b < '0' || b > '9') {
                    break;
                }
                n++;
            }
            assertThat(FieldParser.leadingDigits(word)).as("%016x", word).isEqualTo(n);
            if (n > 0) {
                long v = 0;
                for (int k = 0; k < n; k++) {
                    v = v * 10 + (((word >>> (k * 8)) & 0xFF) - '0');
                }
                assertThat(FieldParser.eightDigits(word, n)).isEqualTo(v);
            }
        }
    }

    private static long digitsWord(final SplittableRandom r) {
        long w = 0;
        for (int k = 7; k >= 0; k--) {
            final int b = r.nextInt(10) == 0 ? r.nextInt(256) : '0' + r.nextInt(10);
            w = (w << 8) | b;
        }
        return w;
    }
}
