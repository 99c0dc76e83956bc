package io.tradestore.query.exec.agg;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Groups' values put in turns, in chunks that double to their largest size across many slabs, come back whole and in
 * order; a dropped group starts empty; another instance's groups linked behind them (and values put after) come
 * back in order too; after a release, slabs taken again from the pool (holding older values) give back only what
 * was put since.
 */
class ValueChunksTest {
    @Test
    void shouldGiveBackEachGroupsValuesInOrder() {
        final SplittableRandom r = new SplittableRandom(20_261_130L);
        for (int round = 0; round < 3; round++) {
            final ValueChunks chunks = new ValueChunks();
            final int groups = 50;
            chunks.grow(groups);
            final List<List<Long>> want = lists(groups);
            // skewed sizes: a few groups reach several chunks of the largest size, most stay in their first ones
            final long bytes = put(chunks, want, r, 400_000, 3, 7);
            assertThat(bytes).isGreaterThan(8L * 400_000).isLessThan(8L * 2 * 400_000);
            check(chunks, want, "round " + round);
            // another worker's groups linked behind these: each group's values, then the other's, in order
            final ValueChunks other = new ValueChunks();
            other.grow(groups);
            final List<List<Long>> theirs = lists(groups);
            put(other, theirs, r, 100_000, 3, -1);
            for (int g = 0; g < groups; g++) {
                final int to = (g + 1) % groups; // to another group, as merges map group ids
                chunks.link(to, other, g);
                want.get(to).addAll(theirs.get(g));
            }
            other.release(); // its slabs are the merged instance's now: nothing goes back to the pool
            put(chunks, want, r, 20_000, groups, -1); // more values after the linked ones
            check(chunks, want, "merged, round " + round);
            chunks.release();
        }
    }

    private static List<List<Long>> lists(final int groups) {
        final List<List<Long>> out = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            out.add(new ArrayList<>());
        }
        return out;
    }

    /**
     * Puts random values into random groups (a quarter of them into the first {@code heavy}), dropping group
     * {@code dropped} once it holds 1,000; @return the bytes of the chunks started.
     */
    private static long put(final ValueChunks chunks, final List<List<Long>> want, final SplittableRandom r,
        final int count, final int heavy, final int dropped) {
        long bytes = 0;
        for (int i = 0; i < count; i++) {
            final int g = r.nextInt(4) == 0 ? r.nextInt(heavy) : r.nextInt(want.size());
            if (chunks.full(g)) {
                bytes += chunks.chunk(g, want.get(g).size());
            }
            final long v = r.nextLong();
            chunks.put(g, v);
            want.get(g).add(v);
            if (g == dropped && want.get(g).size() == 1000) {
                chunks.drop(g);
                want.get(g).clear();
            }
        }
        return bytes;
    }

    private static void check(final ValueChunks chunks, final List<List<Long>> want, final String what) {
        for (int g = 0; g < want.size(); g++) {
            final int n = want.get(g).size();
            final long[] got = chunks.copy(g, n, new long[n + 5]);
            for (int i = 0; i < n; i++) {
                assertThat(got[i]).as("%s group %d value %d", what, g, i).isEqualTo(want.get(g).get(i));
            }
        }
    }
}
