package io.tradestore.server.pg;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The text and binary forms of values, both ways, against PostgreSQL's own encodings. */
class PgValuesTest {
    @Test
    void shouldWriteNumericsInBase10000DigitsAsPostgresDoes() {
        // 101.25 (dscale 6): digits 101 | 2500, weight 0
        assertThat(numericBytes(new BigDecimal("101.250000"))).containsExactly(
            0, 0, 0, 12, 0, 2, 0, 0, 0, 0, 0, 6, 0, 101, 0x09, (byte) 0xC4);
        // -0.0005: one digit 5 at weight -1 (0.0005 = 5 x 10000^-1)
        assertThat(numericBytes(new BigDecimal("-0.0005"))).containsExactly(
            0, 0, 0, 10, 0, 1, (byte) 0xFF, (byte) 0xFF, 0x40, 0, 0, 4, 0, 5);
        // zero keeps its scale and no digits
        assertThat(numericBytes(new BigDecimal("0.00"))).containsExactly(0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 2);
        // 10^8: one digit 1 at weight 2
        assertThat(numericBytes(new BigDecimal("100000000"))).containsExactly(0, 0, 0, 10, 0, 1, 0, 2, 0, 0, 0, 0,
            0, 1);
    }

    @Test
    void shouldWriteSmallNumericsByArithmeticExactlyAsThroughText() {
        final Random r = new Random(5);
        for (int i = 0; i < 50_000; i++) {
            final long unscaled = switch (i % 4) {
                case 0 -> r.nextLong() % 1_000_000_000_000_000_000L;
                case 1 -> r.nextInt(100_000) * (long) Math.pow(10, r.nextInt(12));
                case 2 -> r.nextInt(20_001) - 10_000;
                default -> 999_999_999_999_999_999L - r.nextInt(10);
            };
            final BigDecimal v = BigDecimal.valueOf(r.nextBoolean() ? unscaled : -unscaled, r.nextInt(19) - 1);
            final ByteBuf viaText = Unpooled.buffer();
            PgValues.numericViaText(viaText, v);
            assertThat(numericBytes(v)).as("%s", v).containsExactly(ByteBufUtil.getBytes(viaText));
        }
    }

    @Test
    void shouldReadUtcTimestampsWithoutTheFormatterAsTheFormatterDoes() {
        final Random r = new Random(17);
        final String[] zones = {"+00", "+00:00", "Z", "", "+01", "-05:30", "z"};
        for (int i = 0; i < 50_000; i++) {
            final long nanos = 1_000_000_000_000_000_000L
                + (r.nextLong() & Long.MAX_VALUE) % 1_000_000_000_000_000_000L;
            final String iso = java.time.Instant.ofEpochSecond(nanos / 1_000_000_000L, nanos % 1_000_000_000L)
                .toString();
            final String local = iso.substring(0, iso.length() - 1);
            final String text = local.substring(0, 10) + (r.nextBoolean() ? ' ' : 'T') + local.substring(11)
                + zones[r.nextInt(zones.length)];
            assertThat(PgValues.timestampNanos(text)).as(text).isEqualTo(PgValues.timestampNanosViaFormatter(text));
        }
        for (final String bad : new String[] {"2026-02-30 00:00:00+00", "2026-11-16 24:00:00", "2026-11-16 8:00:00+00",
            "2026-11-16 08:00:00.+00", "2026-11-16 08:00:00.1234567891Z"}) {
            // left to the formatter, which refuses them or reads them its own way (24:00 as the next midnight)
            Object viaFormatter;
            try {
                viaFormatter = PgValues.timestampNanosViaFormatter(bad);
            } catch (final PgFailure e) {
                viaFormatter = e.getMessage();
            }
            Object got;
            try {
                got = PgValues.timestampNanos(bad);
            } catch (final PgFailure e) {
                got = e.getMessage();
            }
            assertThat(got).as(bad).isEqualTo(viaFormatter);
        }
    }

    @Test
    void shouldReadBackEveryNumericItWrites() {
        final Random r = new Random(11);
        for (int i = 0; i < 20_000; i++) {
            final BigInteger unscaled = new BigInteger(1 + r.nextInt(130), r);
            final BigDecimal v = new BigDecimal(r.nextBoolean() ? unscaled : unscaled.negate(), r.nextInt(20));
            final byte[] b = numericBytes(v);
            final BigDecimal back = PgValues.readNumeric(java.util.Arrays.copyOfRange(b, 4, b.length));
            assertThat(back).as("%s", v).isEqualTo(v);
        }
    }

    @ParameterizedTest
    @CsvSource({
        "1795420800000000000, 2026-11-23 08:00:00+00",
        "1795420800123456789, 2026-11-23 08:00:00.123456789+00",
        "1795420800500000000, 2026-11-23 08:00:00.5+00",
        "-1, 1969-12-31 23:59:59.999999999+00",
    })
    void shouldWriteTimestampsWithEveryDigitTheStoreHas(final long nanos, final String text) {
        assertThat(PgValues.timestamptz(nanos)).isEqualTo(text);
        assertThat(PgValues.timestampNanos(text)).isEqualTo(nanos);
    }

    @Test
    void shouldWriteBinaryTimestampsAsMicrosecondsSince2000RoundedTowardThePast() {
        final ByteBuf b = Unpooled.buffer();
        PgValues.binary(b, PgType.TIMESTAMPTZ, 946_684_800_000_001_999L);
        PgValues.binary(b, PgType.TIMESTAMPTZ, 946_684_799_999_999_999L);
        assertThat(b.readInt()).isEqualTo(8);
        assertThat(b.readLong()).isEqualTo(1L);
        assertThat(b.readInt()).isEqualTo(8);
        assertThat(b.readLong()).isEqualTo(-1L);
    }

    @Test
    void shouldReadTimestampsInThePostgresSpellings() {
        final long nine = 1_794_992_400_000_000_000L;
        for (final String t : List.of("2026-11-18 09:00:00+00", "2026-11-18 09:00:00", "2026-11-18T09:00:00Z",
            "2026-11-18 10:00:00+01:00", "2026-11-18 09:00", "2026-11-18")) {
            assertThat(PgValues.timestampNanos(t) - (t.equals("2026-11-18") ? -9 * 3_600_000_000_000L : 0)).as(t)
                .isEqualTo(nine);
        }
        assertThatThrownBy(() -> PgValues.timestampNanos("yesterday")).isInstanceOfSatisfying(PgFailure.class,
            e -> assertThat(e.error().sqlState()).isEqualTo("22P02"));
    }

    @ParameterizedTest
    @CsvSource({"1.0, 1", "0.1, 0.1", "1.0E21, 1e+21", "1.5E-7, 1.5e-07", "123456.789, 123456.789",
        "-2.5, -2.5", "1.0E14, 100000000000000", "1.0E-4, 0.0001"})
    void shouldWriteDoublesAsPostgresDoes(final double d, final String text) {
        assertThat(PgValues.float8(d)).isEqualTo(text);
        assertThat(Double.parseDouble(text)).isEqualTo(d);
    }

    @Test
    void shouldRefuseAnIntegerTooWideForInt8InBinary() {
        assertThatThrownBy(() -> PgValues.binary(Unpooled.buffer(), PgType.INT8, new BigDecimal("1e30")))
            .isInstanceOfSatisfying(PgFailure.class, e -> assertThat(e.error().sqlState()).isEqualTo("22003"));
    }

    private static byte[] numericBytes(final BigDecimal v) {
        final ByteBuf b = Unpooled.buffer();
        PgValues.numeric(b, v);
        final byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        return out;
    }
}
