package io.tradestore.query.exec.group;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link KeyTable#putAll} gives each key the group id a plain map gives in order of first appearance, for keys that the
 * direct array holds (small, and growing it as larger small keys arrive), keys past it, and both mixed in a batch.
 */
class KeyTableTest {
    @Test
    void shouldNumberKeysInOrderOfFirstAppearance() {
        final SplittableRandom r = new SplittableRandom(20_261_130L);
        for (int round = 0; round < 20; round++) {
            final KeyTable table = new KeyTable(1);
            final Map<Long, Integer> model = new HashMap<>();
            final long[] packed = new long[4096];
            final int[] gid = new int[4096];
            for (int batch = 0; batch < 30; batch++) {
                final int n = r.nextInt(1, packed.length + 1);
                for (int i = 0; i < n; i++) {
                    packed[i] = switch (r.nextInt(4)) {
                        case 0 -> r.nextInt(100);
                        case 1 -> r.nextInt(1 << KeyTable.FRONT_BITS);
                        case 2 -> (1L << KeyTable.FRONT_BITS) + r.nextInt(1000);
                        default -> r.nextLong(0, Long.MAX_VALUE);
                    };
                }
                table.putAll(packed, n, gid);
                for (int i = 0; i < n; i++) {
                    final int expected = model.computeIfAbsent(packed[i], k -> model.size());
                    assertThat(gid[i]).as("key %d", packed[i]).isEqualTo(expected);
                    assertThat(table.keys[gid[i]]).isEqualTo(packed[i]);
                }
                assertThat(table.size()).isEqualTo(model.size());
            }
            // put and putAll share the numbering
            for (final Map.Entry<Long, Integer> e : model.entrySet()) {
                assertThat(table.put(e.getKey())).isEqualTo(e.getValue());
            }
        }
    }
}
