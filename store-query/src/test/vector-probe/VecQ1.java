import io.tradestore.core.*;
import io.tradestore.core.memory.NativeMemory;
import java.nio.file.Path;
import java.util.Arrays;
import jdk.incubator.vector.*;
import sun.misc.Unsafe;

// Not part of the build (the incubator module warns, and warnings are errors here). Run by hand after
// `mvn -B -o -pl store-query -am test-compile`, with CP = store-core and store-query classes plus their dependencies:
//   javac --add-modules jdk.incubator.vector -cp $CP -d /tmp/vq store-query/src/test/vector-probe/VecQ1.java
//   flock /tmp/tradestore-bench.lock java <tradestore.jvmFlags> --add-modules jdk.incubator.vector -cp /tmp/vq:$CP VecQ1 <store dir>
/** Query 1's grouped kernel on the 50M-row store: plain array loop vs copy-to-heap + Vector API masked sums (two keys). */
public class VecQ1 {
    static final VectorSpecies<Long> L = LongVector.SPECIES_512;
    static final VectorSpecies<Byte> B = ByteVector.SPECIES_64;
    static Unsafe U;
    static TableSnapshot snap;
    static long sink;
    public static void main(String[] a) throws Exception {
        var f = Unsafe.class.getDeclaredField("theUnsafe"); f.setAccessible(true); U = (Unsafe) f.get(null);
        try (Store st = Store.open(Path.of(a[0]))) {
            snap = st.table("trades").reader().snapshot();
            for (int round = 0; round < 3; round++) {
                time("plain", VecQ1::plain); time("vector", VecQ1::vector); time("copy only", VecQ1::copyOnly);
            }
        }
    }
    static void time(String name, Runnable r) {
        double[] t = new double[9];
        for (int i = 0; i < 11; i++) { long s = System.nanoTime(); r.run(); if (i >= 2) t[i - 2] = (System.nanoTime() - s) / 1e6; }
        Arrays.sort(t); System.out.printf("%-10s %.1f ms (%.2f ns/row)%n", name, t[4], t[4] * 1e6 / snap.rowCount());
    }
    static void plain() {
        long[] cnt = new long[256], sum = new long[256];
        for (int seg = 0; seg < snap.segmentCount(); seg++) {
            long ka = snap.segment(seg).columnBase(5), pa = snap.segment(seg).columnBase(6), qa = snap.segment(seg).columnBase(7); int N = snap.segmentRowCount(seg);
            for (int st = 0; st < N; st += 4096) { int n = Math.min(4096, N - st); plainB(n, ka + st, pa + 8L * st, qa + 8L * st, cnt, sum); }
        }
        sink += cnt['B'] + sum['S'];
    }
    static int plainB(int n, long ka, long a0, long b0, long[] r, long[] s0) {
        int k = 0;
        for (int i = 0; i < n; i++) {
            final int g = NativeMemory.getByte(ka + i) & 0xFF;
            final long x = NativeMemory.getLong(a0 + 8L * i);
            final long y = NativeMemory.getLong(b0 + 8L * i);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE) { k++; } else { r[g]++; s0[g] += x * y; }
        }
        return k;
    }
    static final byte[] KB = new byte[4096 + 64]; static final long[] PB = new long[4096], QB = new long[4096];
    static void copy(int n, long ka, long pa, long qa) {
        U.copyMemory(null, ka, KB, Unsafe.ARRAY_BYTE_BASE_OFFSET, n);
        U.copyMemory(null, pa, PB, Unsafe.ARRAY_LONG_BASE_OFFSET, 8L * n);
        U.copyMemory(null, qa, QB, Unsafe.ARRAY_LONG_BASE_OFFSET, 8L * n);
    }
    static void copyOnly() {
        for (int seg = 0; seg < snap.segmentCount(); seg++) {
            long ka = snap.segment(seg).columnBase(5), pa = snap.segment(seg).columnBase(6), qa = snap.segment(seg).columnBase(7); int N = snap.segmentRowCount(seg);
            for (int st = 0; st < N; st += 4096) { int n = Math.min(4096, N - st); copy(n, ka + st, pa + 8L * st, qa + 8L * st); sink += PB[5]; }
        }
    }
    static void vector() {
        long sB = 0, sS = 0, cB = 0, cS = 0, other = 0;
        for (int seg = 0; seg < snap.segmentCount(); seg++) {
            long ka = snap.segment(seg).columnBase(5), pa = snap.segment(seg).columnBase(6), qa = snap.segment(seg).columnBase(7); int N = snap.segmentRowCount(seg);
            for (int st = 0; st < N; st += 4096) {
                int n = Math.min(4096, N - st);
                copy(n, ka + st, pa + 8L * st, qa + 8L * st);
                LongVector aB = LongVector.zero(L), aS = LongVector.zero(L), nB = LongVector.zero(L), nS = LongVector.zero(L);
                int i = 0;
                for (; i < L.loopBound(n); i += 8) {
                    LongVector x = LongVector.fromArray(L, PB, i), y = LongVector.fromArray(L, QB, i);
                    LongVector k = (LongVector) ByteVector.fromArray(B, KB, i).castShape(L, 0);
                    VectorMask<Long> ok = x.compare(VectorOperators.NE, Long.MIN_VALUE).and(y.compare(VectorOperators.NE, Long.MIN_VALUE));
                    VectorMask<Long> mb = k.compare(VectorOperators.EQ, 'B').and(ok), ms = k.compare(VectorOperators.EQ, 'S').and(ok);
                    LongVector p = x.mul(y);
                    aB = aB.add(p, mb); aS = aS.add(p, ms); nB = nB.add(1, mb); nS = nS.add(1, ms);
                }
                sB += aB.reduceLanes(VectorOperators.ADD); sS += aS.reduceLanes(VectorOperators.ADD);
                long c1 = nB.reduceLanes(VectorOperators.ADD), c2 = nS.reduceLanes(VectorOperators.ADD);
                cB += c1; cS += c2; other += i - c1 - c2;
            }
        }
        sink += sB + sS + cB + cS + other;
        if (other != 0) System.out.println("other " + other);
    }
}
