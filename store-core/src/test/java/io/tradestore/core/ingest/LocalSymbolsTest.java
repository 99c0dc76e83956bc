package io.tradestore.core.ingest;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import io.tradestore.core.memory.NativeMemory;

import static org.assertj.core.api.Assertions.assertThat;

/** The chunk-local symbol table: codes in first-appearance order, equal bytes always the same code. */
class LocalSymbolsTest {
    @Test
    void shouldGiveFirstAppearanceCodesLikeAHashMap() {
        final long buf = NativeMemory.allocate(64);
        try {
            final LocalSymbols s = new LocalSymbols();
            final Map<String, Integer> expected = new HashMap<>();
            final SplittableRandom r = new SplittableRandom(9);
            for (int i = 0; i < 200_000; i++) {
                final String v = switch (r.nextInt(3)) {
                    case 0 -> String.format("SYM%03d", r.nextInt(500));
                    case 1 -> "X" + r.nextInt(20);
                    default -> "LONGSYMBOLNAME-" + r.nextInt(3000);
                };
                final byte[] b = v.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                NativeMemory.copy(b, 0, buf, b.length);
                final int code = s.intern(buf, b.length, i % 2 == 0 ? 64 : b.length);
                assertThat(code).as(v).isEqualTo(expected.computeIfAbsent(v, k -> expected.size()));
            }
            assertThat(s.size()).isEqualTo(expected.size());
        } finally {
            NativeMemory.free(buf, 64);
        }
    }
}
