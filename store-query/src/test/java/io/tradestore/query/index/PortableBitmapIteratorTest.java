package io.tradestore.query.index;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.roaringbitmap.BatchIterator;
import org.roaringbitmap.RoaringBitmap;

import static org.assertj.core.api.Assertions.assertThat;

/** The allocation-free reader of the portable format returns exactly what Roaring's own iterator returns. */
class PortableBitmapIteratorTest {
    /** Sparse (array), dense (bitmap) and runs containers, with and without run containers in the file, empty too. */
    private static RoaringBitmap bitmap(final SplittableRandom rnd, final int shape) {
        final RoaringBitmap b = new RoaringBitmap();
        final int containers = 1 + rnd.nextInt(shape == 0 ? 1 : 40);
        for (int c = 0; c < containers; c++) {
            final int key = rnd.nextInt(70_000 / 64) * 61 + c; // spread keys, a few near 2^16 (the sign of high bits)
            final int kind = rnd.nextInt(3);
            final int base = (key % 65_536) << 16;
            if (kind == 0) {
                for (int i = 0; i < 1 + rnd.nextInt(300); i++) {
                    b.add(base | rnd.nextInt(65_536));
                }
            } else if (kind == 1) {
                for (int i = 0; i < 5000 + rnd.nextInt(20_000); i++) {
                    b.add(base | rnd.nextInt(65_536));
                }
            } else {
                for (int r = 0; r < 1 + rnd.nextInt(20); r++) {
                    final int from = rnd.nextInt(65_000);
                    final long start = Integer.toUnsignedLong(base | from);
                    b.add(start, start + 1 + rnd.nextInt(500));
                }
            }
        }
        if (shape == 2) {
            b.runOptimize();
        }
        if (shape == 3) {
            return new RoaringBitmap();
        }
        return b;
    }

    private static ByteBuffer serialize(final RoaringBitmap b) {
        final ByteBuffer buf = ByteBuffer.allocate(b.serializedSizeInBytes()).order(ByteOrder.LITTLE_ENDIAN);
        b.serialize(buf);
        buf.flip();
        return buf;
    }

    private static List<Integer> drain(final BatchIterator it, final int batch) {
        final List<Integer> out = new ArrayList<>();
        final int[] buf = new int[batch];
        while (it.hasNext()) {
            final int n = it.nextBatch(buf);
            for (int i = 0; i < n; i++) {
                out.add(buf[i]);
            }
            if (n == 0) {
                break;
            }
        }
        return out;
    }

    @Test
    void shouldReturnTheSameRowsAsRoaringInEveryBatchSize() {
        final SplittableRandom rnd = new SplittableRandom(17);
        for (int t = 0; t < 300; t++) {
            final RoaringBitmap b = bitmap(rnd, t % 4);
            final int batch = new int[] {1, 7, 256, 4096}[t % 4 == 3 ? 2 : rnd.nextInt(4)];
            final List<Integer> want = drain(b.getBatchIterator(), 4096);
            assertThat(drain(new PortableBitmapIterator(serialize(b)), batch)).as("bitmap %d, batch %d", t, batch)
                .isEqualTo(want);
        }
    }

    @Test
    void shouldAdvanceLikeRoaring() {
        final SplittableRandom rnd = new SplittableRandom(23);
        for (int t = 0; t < 300; t++) {
            final RoaringBitmap b = bitmap(rnd, t % 3 == 0 ? 2 : 1);
            final BatchIterator ours = new PortableBitmapIterator(serialize(b));
            final BatchIterator theirs = b.getBatchIterator();
            final int[] x = new int[1 + rnd.nextInt(64)];
            final int[] y = new int[x.length];
            int target = 0;
            for (int step = 0; step < 20 && theirs.hasNext(); step++) {
                target += rnd.nextInt(4) == 0 ? rnd.nextInt(1 << 22) : rnd.nextInt(2000);
                ours.advanceIfNeeded(target);
                theirs.advanceIfNeeded(target);
                assertThat(ours.hasNext()).isEqualTo(theirs.hasNext());
                final int n = theirs.nextBatch(y);
                assertThat(ours.nextBatch(x)).as("bitmap %d step %d target %d", t, step, target).isEqualTo(n);
                for (int i = 0; i < n; i++) {
                    assertThat(x[i]).as("bitmap %d step %d value %d", t, step, i).isEqualTo(y[i]);
                }
                if (n > 0) {
                    target = Math.max(target, y[n - 1] + 1);
                }
            }
            final BatchIterator copy = ours.clone();
            assertThat(drain(copy, 100)).isEqualTo(drain(ours, 9));
        }
    }
}
