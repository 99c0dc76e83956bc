package io.tradestore.core.memory;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link NativeMemory#fillPattern} writes exactly its elements, at every width, count and stride, whichever way it
 * fills (one store per element, a byte fill, or the doubling copy of long contiguous runs), and nothing past them.
 */
class NativeMemoryFillTest {
    private static final byte GUARD = 0x5A;

    @ParameterizedTest
    @CsvSource({
        "8,8,-9223372036854775808", "8,8,81985529216486895", "4,4,-2147483648", "4,4,305419896", "2,2,-32768",
            "2,2,4660",
        "8,16,-9223372036854775808", "4,12,-2147483648", "2,6,4660", "1,1,-128", "1,3,7", "4,4,-1", "8,8,0"})
    void shouldFillExactlyItsElements(final int width, final int stride, final long value) {
        for (final int count : new int[] {0, 1, 7, 8, 63, 127, 128, 129, 511, 512, 513, 1000, 4097, 16_384}) {
            final long bytes = (long) count * stride + 64;
            final long a = NativeMemory.allocate(bytes);
            try {
                NativeMemory.fill(a, bytes, GUARD);
                NativeMemory.fillPattern(a + 32, count, stride, width, value);
                long firstWrong = -1;
                for (long off = 0; off < bytes && firstWrong < 0; off++) {
                    final long rel = off - 32;
                    final boolean inElement = rel >= 0 && rel < (long) count * stride && rel % stride < width;
                    final byte expected = inElement ? (byte) (value >>> (8 * (rel % stride))) : GUARD;
                    firstWrong = NativeMemory.getByte(a + off) == expected ? -1 : rel;
                }
                assertThat(firstWrong)
                    .as("first wrong byte (from the fill's start) at width %d stride %d count %d", width, stride, count)
                    .isEqualTo(-1);
            } finally {
                NativeMemory.free(a, bytes);
            }
        }
    }
}
