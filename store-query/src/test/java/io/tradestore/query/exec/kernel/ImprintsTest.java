package io.tradestore.query.exec.kernel;

import java.util.Arrays;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import io.tradestore.core.memory.NativeMemory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An imprint never leaves out a group of rows holding a value of the range asked (whatever the values: spread wide,
 * a handful repeated, sorted, at the extremes of a long), and for one value of data spread wide it names few groups.
 */
class ImprintsTest {
    private static final int[] SIZES = {64, 1024, 65_536};

    @Test
    void shouldNameEveryGroupWithAValueInTheRange() {
        final SplittableRandom r = new SplittableRandom(20_261_130L);
        for (final int n : SIZES) {
            for (int kind = 0; kind < 5; kind++) {
                final long[] v = values(r, kind, n);
                final long base = NativeMemory.allocate((long) n * 8);
                try {
                    for (int i = 0; i < n; i++) {
                        NativeMemory.putLong(base + i * 8L, v[i]);
                    }
                    final Imprints.Imprint im = Imprints.build(base, 8, n);
                    for (int q = 0; q < 200; q++) {
                        final long a = r.nextInt(4) == 0 ? r.nextLong() : v[r.nextInt(n)];
                        final long b = r.nextBoolean() ? a : r.nextInt(4) == 0 ? r.nextLong() : v[r.nextInt(n)];
                        final long lo = Math.min(a, b);
                        final long hi = Math.max(a, b);
                        final long bins = im.bins(lo, hi);
                        for (int g = 0; g < n / Imprints.GROUP; g++) {
                            boolean holds = false;
                            for (int i = g * Imprints.GROUP; i < (g + 1) * Imprints.GROUP; i++) {
                                holds |= v[i] >= lo && v[i] <= hi;
                            }
                            if (holds) {
                                assertThat((im.groups(bins, g >>> 6) >>> g) & 1)
                                    .as("n %d kind %d group %d range [%d, %d]", n, kind, g, lo, hi).isEqualTo(1L);
                            }
                        }
                    }
                } finally {
                    NativeMemory.free(base, (long) n * 8);
                }
            }
        }
    }

    /** One price among thousands spread over a block: about one group in eight holds a value of its bin. */
    @Test
    void shouldNameFewGroupsForOneValueOfWideData() {
        final SplittableRandom r = new SplittableRandom(7);
        final int n = 65_536;
        final long[] v = values(r, 0, n);
        final long base = NativeMemory.allocate((long) n * 8);
        try {
            for (int i = 0; i < n; i++) {
                NativeMemory.putLong(base + i * 8L, v[i]);
            }
            final Imprints.Imprint im = Imprints.build(base, 8, n);
            long named = 0;
            for (int q = 0; q < 100; q++) {
                final long x = v[r.nextInt(n)];
                final long bins = im.bins(x, x);
                for (int w = 0; w < n / Imprints.GROUP / 64; w++) {
                    named += Long.bitCount(im.groups(bins, w));
                }
            }
            assertThat(named / 100.0 / (n / Imprints.GROUP)).isBetween(0.01, 0.25);
        } finally {
            NativeMemory.free(base, (long) n * 8);
        }
    }

    /** Wide (cents of 5 to 500 as decimal(6)), few values repeated, sorted, extremes and nulls, one constant. */
    private static long[] values(final SplittableRandom r, final int kind, final int n) {
        final long[] v = new long[n];
        for (int i = 0; i < n; i++) {
            switch (kind) {
                case 0 -> v[i] = r.nextLong(500, 50_000) * 10_000;
                case 1 -> v[i] = r.nextInt(5) * 7L;
                case 2 -> v[i] = r.nextLong(-1_000_000, 1_000_000);
                case 3 -> v[i] = switch (r.nextInt(4)) {
                    case 0 -> Long.MIN_VALUE;
                    case 1 -> Long.MAX_VALUE;
                    default -> r.nextLong();
                };
                default -> v[i] = 42;
            }
        }
        if (kind == 2) {
            Arrays.sort(v);
        }
        return v;
    }
}
