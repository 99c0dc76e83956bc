import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

// Not part of the build (the incubator module warns, and warnings are errors here). Run by hand:
//   javac --add-modules jdk.incubator.vector -d /tmp/vp store-query/src/test/vector-probe/VecProbe.java
//   flock /tmp/tradestore-bench.lock java --add-modules jdk.incubator.vector -cp /tmp/vp VecProbe
/** In-cache kernel of the engine's global sum(price*quantity) with null skipping: plain loop vs Vector API. */
public class VecProbe {
    static final VectorSpecies<Long> S = LongVector.SPECIES_PREFERRED;
    static long scalar(long[] p, long[] q, int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            final long x = p[i], y = q[i];
            sum += (x == Long.MIN_VALUE | y == Long.MIN_VALUE) ? 0 : x * y;
        }
        return sum;
    }
    static long vector(long[] p, long[] q, int n) {
        LongVector acc = LongVector.zero(S);
        int i = 0;
        for (; i < S.loopBound(n); i += S.length()) {
            LongVector x = LongVector.fromArray(S, p, i);
            LongVector y = LongVector.fromArray(S, q, i);
            VectorMask<Long> ok = x.compare(VectorOperators.NE, Long.MIN_VALUE).and(y.compare(VectorOperators.NE, Long.MIN_VALUE));
            acc = acc.add(x.mul(y), ok);
        }
        long sum = acc.reduceLanes(VectorOperators.ADD);
        for (; i < n; i++) {
            final long x = p[i], y = q[i];
            sum += (x == Long.MIN_VALUE | y == Long.MIN_VALUE) ? 0 : x * y;
        }
        return sum;
    }
    static long scalarGrouped(long[] p, long[] q, int[] g, long[] acc, int n) {
        for (int i = 0; i < n; i++) {
            final long x = p[i], y = q[i];
            if (!(x == Long.MIN_VALUE | y == Long.MIN_VALUE)) acc[(g[i] << 2) | (i & 3)] += x * y;
        }
        return acc[0];
    }
    public static void main(String[] a) {
        final int n = 4096;
        long[] p = new long[n], q = new long[n]; int[] g = new int[n]; long[] acc = new long[64];
        java.util.SplittableRandom r = new java.util.SplittableRandom(1);
        for (int i = 0; i < n; i++) { p[i] = 1_000_000 + r.nextInt(500_000_000); q[i] = 1 + r.nextInt(5000); g[i] = r.nextInt(2); }
        p[7] = Long.MIN_VALUE;
        final int reps = 50_000; // 204.8M rows
        for (int round = 0; round < 5; round++) {
            long t0 = System.nanoTime(), s1 = 0; for (int k = 0; k < reps; k++) s1 += scalar(p, q, n);
            long t1 = System.nanoTime(), s2 = 0; for (int k = 0; k < reps; k++) s2 += vector(p, q, n);
            long t2 = System.nanoTime(), s3 = 0; for (int k = 0; k < reps; k++) s3 += scalarGrouped(p, q, g, acc, n);
            long t3 = System.nanoTime();
            final double rows = (double) reps * n;
            if (round >= 2) {
                System.out.printf("species=%d rows=%.0f scalar %.0f ms (%.2f ns/row)  vector %.0f ms (%.2f ns/row)  grouped-scalar %.0f ms"
                    + "  same=%b%n", S.length(), rows, (t1 - t0) / 1e6, (t1 - t0) / rows, (t2 - t1) / 1e6, (t2 - t1) / rows, (t3 - t2) / 1e6,
                    s1 == s2);
            }
        }
    }
}
