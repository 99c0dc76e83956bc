package io.tradestore.query.exec.agg;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class PairSetTest {
    /**
     * Through many doublings, past the hash table into the log of adds and its compactions (mostly new pairs), and
     * back from the log to a hash table (mostly repeats), the set holds each (group, value) pair once, says which adds
     * were new while it is a hash table, and walks and groups exactly the pairs a hash set of them holds.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 100, 5_000, 300_000, 1_500_000, -2_000_000})
    void shouldHoldEachPairOnceAsAHashSetWould(final int draw) {
        final int adds = Math.abs(draw);
        final SplittableRandom r = new SplittableRandom(adds);
        final int groups = 1 + r.nextInt(500);
        final PairSet set = new PairSet();
        final Map<Integer, Set<Long>> want = new HashMap<>();
        for (int i = 0; i < adds; i++) {
            // mostly repeats once the log has begun (negative draw): the set turns back into a hash table
            final boolean repeat = draw < 0 && i > 3 * PairSet.LOG_AFTER;
            final int g = repeat ? r.nextInt(20) : r.nextInt(groups);
            // repeats within and across groups, extremes, and values sharing their low bits
            final long v = repeat ? r.nextInt(2_000) : switch (r.nextInt(4)) {
                case 0 -> r.nextInt(1000);
                case 1 -> r.nextLong();
                case 2 -> (long) r.nextInt(1000) << 40;
                default -> Long.MIN_VALUE + r.nextInt(4);
            };
            final boolean fresh = want.computeIfAbsent(g, k -> new HashSet<>()).add(v);
            final boolean changed = set.add(g, v);
            if (fresh || i < PairSet.LOG_AFTER) {
                assertThat(changed).as("add %d of (%d, %d)", i, g, v).isEqualTo(fresh);
            }
        }
        final Map<Integer, Set<Long>> walked = new HashMap<>();
        for (int i = 0; i < set.capacity(); i++) {
            final int g = set.groupAt(i);
            if (g >= 0) {
                assertThat(walked.computeIfAbsent(g, k -> new HashSet<>()).add(set.valueAt(i))).isTrue();
            }
        }
        assertThat(walked).isEqualTo(want);
        final PairSet.Grouped byGroup = set.byGroup(groups);
        for (int g = 0; g < groups; g++) {
            final Set<Long> got = new HashSet<>();
            for (int i = byGroup.start()[g]; i < byGroup.start()[g + 1]; i++) {
                got.add(byGroup.values()[i]);
            }
            assertThat(got).as("group %d", g).isEqualTo(want.getOrDefault(g, Set.of()));
        }
        assertThat(set.size()).isEqualTo(want.values().stream().mapToInt(Set::size).sum());
    }

    /**
     * A set absorbing another (same group ids), each a hash table or a log, small or past the log's start, overlapping
     * or not, holds their union once; the absorbed set keeps its pairs.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 3_000, 70_000, 200_000})
    void shouldHoldTheUnionAfterAbsorbing(final int adds) {
        final SplittableRandom r = new SplittableRandom(adds + 17);
        for (final int otherAdds : new int[] {0, 5, 2_000, 150_000}) {
            final PairSet a = new PairSet();
            final PairSet b = new PairSet();
            final Map<Integer, Set<Long>> want = new HashMap<>();
            final Map<Integer, Set<Long>> wantB = new HashMap<>();
            for (int i = 0; i < adds + otherAdds; i++) {
                final int g = r.nextInt(300);
                // half the values shared between the two sets' ranges, so that the union has repeats
                final long v = r.nextBoolean() ? r.nextInt(50_000) : r.nextLong();
                want.computeIfAbsent(g, k -> new HashSet<>()).add(v);
                if (i < adds) {
                    a.add(g, v);
                } else {
                    b.add(g, v);
                    wantB.computeIfAbsent(g, k -> new HashSet<>()).add(v);
                }
            }
            a.absorb(b);
            assertThat(pairs(a)).as("%d + %d", adds, otherAdds).isEqualTo(want);
            assertThat(pairs(b)).isEqualTo(wantB);
        }
    }

    private static Map<Integer, Set<Long>> pairs(final PairSet set) {
        final Map<Integer, Set<Long>> walked = new HashMap<>();
        for (int i = 0; i < set.capacity(); i++) {
            final int g = set.groupAt(i);
            if (g >= 0) {
                assertThat(walked.computeIfAbsent(g, k -> new HashSet<>()).add(set.valueAt(i))).isTrue();
            }
        }
        return walked;
    }

    /**
     * A log compacted by tasks that run in any order, on several workers' tables, holds the pairs a serial compaction
     * holds; a log below the parallel threshold compacts on the calling thread.
     */
    @ParameterizedTest
    @ValueSource(ints = {1_000, 200_000, 700_000})
    void shouldCompactTheSameOnTasksInAnyOrder(final int adds) {
        final SplittableRandom r = new SplittableRandom(adds);
        final PairSet set = new PairSet();
        final Map<Integer, Set<Long>> want = new HashMap<>();
        for (int i = 0; i < adds; i++) {
            final int g = r.nextInt(1000);
            final long v = r.nextInt(3) == 0 ? r.nextInt(100) : r.nextLong();
            want.computeIfAbsent(g, k -> new HashSet<>()).add(v);
            set.add(g, v);
        }
        final int[] ran = new int[1];
        set.compact(new Tasks() {
            @Override
            public int workers() {
                return 3;
            }

            @Override
            public void run(final int count, final Body body) {
                // last task first, workers taken in turn
                for (int i = count - 1; i >= 0; i--) {
                    body.run(i % 3, i);
                    ran[0]++;
                }
            }
        });
        assertThat(ran[0] > 0).isEqualTo(adds >= PairSet.PARALLEL_PAIRS);
        assertThat(pairs(set)).isEqualTo(want);
    }
}
