package io.tradestore.query.exec.group;

import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The month arithmetic of calendar buckets against java.time, over the whole range of timestamps. */
class CalendarMonthsTest {
    private static long index(final long nanos) {
        final YearMonth ym =
            YearMonth.from(
            Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L))
            .atZone(ZoneOffset.UTC));
        return (ym.getYear() - 1970L) * 12 + ym.getMonthValue() - 1;
    }

    private static long startNanos(final long index) {
        final LocalDate d = LocalDate.of((int) (1970 + Math.floorDiv(index, 12)), Math.floorMod(index, 12) + 1, 1);
        return d.toEpochDay() * 86_400_000_000_000L;
    }

    @Test
    void shouldNameTheMonthOfEveryTimestampAsJavaTimeDoes() {
        final SplittableRandom r = new SplittableRandom(1970);
        for (int i = 0; i < 200_000; i++) {
            final long t = i < 100_000 ? r.nextLong(Long.MIN_VALUE + 1, Long.MAX_VALUE) : r
                .nextLong(-4_000_000_000_000_000_000L, 4_000_000_000_000_000_000L);
            assertThat(CalendarMonths.of(t)).as("t=%d", t).isEqualTo(index(t));
        }
        for (final long t
            : new long[] {Long.MIN_VALUE + 1, Long.MAX_VALUE, 0, -1, 1, 951_782_400_000_000_000L - 1,
            951_782_400_000_000_000L}) {
            assertThat(CalendarMonths.of(t)).as("t=%d", t).isEqualTo(index(t));
        }
    }

    @Test
    void shouldStartEveryMonthAtItsFirstInstant() {
        final long first = CalendarMonths.of(Long.MIN_VALUE + 1);
        final long last = CalendarMonths.of(Long.MAX_VALUE);
        // the first month begins before the smallest timestamp: it reports that timestamp, as fixed-width buckets do
        assertThat(CalendarMonths.start(first)).isEqualTo(Long.MIN_VALUE + 1);
        for (long m = first + 1; m <= last; m++) {
            final long start = CalendarMonths.start(m);
            assertThat(start).as("month %d", m).isEqualTo(startNanos(m));
            assertThat(CalendarMonths.of(start)).isEqualTo(m);
            assertThat(CalendarMonths.of(start - 1)).isEqualTo(m - 1);
        }
    }
}
