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
            final List<List<Long>> want = new ArrayList<>();
            for (int g = 0; g < groups; g++) {
                want.add(new ArrayList<>());
            }
            long bytes = 0;
            // skewed sizes: a few groups reach several chunks of the largest size, most stay in their first ones
            for (int i = 0; i < 400_000; i++) {
                final int g = r.nextInt(4) == 0 ? r.nextInt(3) : r.nextInt(groups);
                if (chunks.full(g)) {
                    bytes += chunks.chunk(g, want.get(g).size());
                }
                final long v = r.nextLong();
                chunks.put(g, v);
                want.get(g).add(v);
                if (g == 7 && want.get(g).size() == 1000) {
                    chunks.drop(g);
                    want.get(g).clear();
                }
            }
            assertThat(bytes).isGreaterThan(8L * 400_000).isLessThan(8L * 2 * 400_000);
            for (int g = 0; g < groups; g++) {
                final int n = want.get(g).size();
                final long[] got = chunks.copy(g, n, new long[n + 5]);
                for (int i = 0; i < n; i++) {
                    assertThat(got[i]).as("round %d group %d value %d", round, g, i).isEqualTo(want.get(g).get(i));
                }
            }
            // another worker's groups linked behind these: each group's values, then the other's, in order
            final ValueChunks other = new ValueChunks();
            other.grow(groups);
            final List<List<Long>> theirs = new ArrayList<>();
            for (int g = 0; g < groups; g++) {
                theirs.add(new ArrayList<>());
            }
            for (int i = 0; i < 100_000; i++) {
                final int g = r.nextInt(4) == 0 ? r.nextInt(3) : r.nextInt(groups);
                if (other.full(g)) {
                    other.chunk(g, theirs.get(g).size());
                }
                final long v = r.nextLong();
                other.put(g, v);
                theirs.get(g).add(v);
            }
            for (int g = 0; g < groups; g++) {
                final int to = (g + 1) % groups; // to another group, as merges map group ids
                chunks.link(to, other, g);
                want.get(to).addAll(theirs.get(g));
            }
            other.release(); // its slabs are the merged instance's now: nothing goes back to the pool
            for (int i = 0; i < 20_000; i++) { // more values after the linked ones
                final int g = r.nextInt(groups);
                if (chunks.full(g)) {
                    chunks.chunk(g, want.get(g).size());
                }
                final long v = r.nextLong();
                chunks.put(g, v);
                want.get(g).add(v);
            }
            for (int g = 0; g < groups; g++) {
                final int n = want.get(g).size();
                final long[] got = chunks.copy(g, n, new long[n]);
                for (int i = 0; i < n; i++) {
                    assertThat(got[i]).as("merged, round %d group %d value %d", round, g, i)
                        .isEqualTo(want.get(g).get(i));
                }
            }
            chunks.release();
        }
    }
}
