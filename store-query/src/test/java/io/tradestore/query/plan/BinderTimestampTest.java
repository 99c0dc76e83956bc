package io.tradestore.query.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;

/**
 * The allocation-free reading of {@code YYYY-MM-DDTHH:MM:SS[.fraction]Z} agrees with java.time, and leaves every other
 * form to it.
 */
class BinderTimestampTest {
    private static long javaTime(final String s) {
        final Instant i = OffsetDateTime.parse(s).toInstant();
        return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000_000L), i.getNano());
    }

    @Test
    void shouldReadUtcTimestampsAsJavaTimeDoes() {
        final SplittableRandom r = new SplittableRandom(20261121);
        for (int k = 0; k < 200_000; k++) {
            // the whole nanosecond range (1677-09-21 to 2262-04-11), and the years around now more often
            final long nanos = k % 2 == 0 ? r.nextLong(Long.MIN_VALUE + 1, Long.MAX_VALUE) : r
                .nextLong(1_700_000_000_000_000_000L, 1_900_000_000_000_000_000L);
            final Instant i =
                Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
            String s = i.toString(); // ISO with 0, 3, 6 or 9 fraction digits
            if (k % 3 == 0 && s.indexOf('.') > 0) {
                s = s.substring(0, s.length() - 1 - r.nextInt(s.length() - s.indexOf('.') - 2)) + "Z"; // 1-9 digits
            }
            assertThat(Literals.utc(s)).as(s).isEqualTo(javaTime(s));
            assertThat(Literals.timestamp(s, "/time/from")).as(s).isEqualTo(javaTime(s));
        }
        assertThat(Literals.utc("2024-02-29T23:59:59.999999999Z"))
            .isEqualTo(javaTime("2024-02-29T23:59:59.999999999Z"));
        assertThat(Literals.utc("2000-01-01T00:00:00Z")).isEqualTo(946_684_800_000_000_000L);
    }

    @Test
    void shouldLeaveOtherFormsAndInvalidDatesToTheFullParser() {
        for (final String s
            : new String[] {"2026-11-17T10:00:00+01:00", "2026-11-17T10:00:00", "2026-11-17", "2026-02-29T00:00:00Z",
            "2023-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-31T00:00:00Z", "2026-11-17T24:00:00Z",
            "2026-11-17T10:60:00Z",
            "2026-11-17T10:00:60Z", "2026-11-17T10:00:00.Z", "2026-11-17T10:00:00.1234567890Z", "2026-11-17T10:00:0xZ",
            "2026-11-17 10:00:00Z", "1600-01-01T00:00:00Z", "2263-01-01T00:00:00Z", "2262-04-11T23:47:16.854775808Z"}) {
            assertThat(Literals.utc(s)).as(s).isEqualTo(Long.MIN_VALUE);
        }
        // the full parser still reads the other forms
        assertThat(Literals.timestamp("2026-11-17T11:00:00+01:00", "/t"))
            .isEqualTo(Literals.timestamp("2026-11-17T10:00:00Z", "/t"));
        assertThat(Literals.timestamp("2026-11-17", "/t")).isEqualTo(Literals.timestamp("2026-11-17T00:00:00Z", "/t"));
    }

    /** A date and time with no zone is refused, as the loader refuses it (it was once read as UTC). */
    @Test
    void shouldRefuseADateAndTimeWithoutAZone() {
        for (final String s : new String[] {"2026-11-17T10:00:00", "2026-11-17T10:00", "2026-11-17T10:00:00.076513"}) {
            assertThatThrownBy(() -> Literals.timestamp(s, "/time/from"))
                .isInstanceOfSatisfying(QueryException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.INVALID_QUERY);
                assertThat(e.path()).isEqualTo("/time/from");
                assertThat(e.getMessage())
                    .isEqualTo("'" + s
                    + "' has no zone; add Z for UTC or an offset such as +01:00 (as the loader asks)");
            });
        }
        assertThatThrownBy(() -> Literals.timestamp("2026-11-17X10", "/t"))
            .hasMessage("'2026-11-17X10' is not an ISO-8601 timestamp such as 2026-11-17T10:00:00.000441Z");
    }
}
