package io.tradestore.bench;

import java.util.SplittableRandom;

/**
 * Deterministic benchmark trades, generated a batch of columns at a time (no CSV in between): five trading days
 * (Monday 2026-11-16 to Friday 2026-11-20, 08:00 to 16:30 UTC) with strictly increasing microsecond timestamps (so
 * first/last by time have no ties), 500 instruments {@code SYM000..SYM499} with Zipf popularity (s = 1, shuffled) and
 * per-instrument price levels (log-uniform 5 to 500) drifting as a random walk in cents, 8 venues with skewed shares,
 * 10,000 clients (ids 100000..109999) with Zipf activity, 50/50 sides, quantities with a heavy (Pareto) tail in round
 * lots above 100. The same rows and seed always give the same trades.
 */
public final class BenchTrades {
    /** Instrument count. */
    public static final int INSTRUMENTS = 500;
    /** Client count. */
    public static final int CLIENTS = 10_000;
    /** First client id. */
    public static final long FIRST_CLIENT_ID = 100_000;
    /** The venues, most active first. */
    public static final String[] VENUES = {"XLON", "XPAR", "XETR", "XAMS", "XMIL", "XMAD", "XSWX", "XWBO"};
    /** 2026-11-16T00:00:00Z in epoch microseconds. */
    public static final long FIRST_DAY_MICROS = 1_794_787_200_000_000L;
    /** Trading days. */
    public static final int DAYS = 5;
    private static final long DAY_MICROS = 86_400_000_000L;
    private static final long OPEN_MICROS = 8 * 3_600_000_000L;
    private static final long SESSION_MICROS = 8 * 3_600_000_000L + 30 * 60_000_000L;
    private static final double[] VENUE_SHARES = {30, 20, 15, 10, 8, 7, 6, 4};
    private static final int TABLE = 1 << 16;

    private final long rows;
    private final SplittableRandom random;
    private final int[] instrumentTable = new int[TABLE];
    private final int[] clientTable = new int[TABLE];
    private final int[] venueTable = new int[TABLE];
    private final long[] levelCents = new long[INSTRUMENTS];
    private final long[] priceCents = new long[INSTRUMENTS];
    private long next;

    /** One batch of generated trades, column by column; symbols are indexes into the instrument and venue lists. */
    public static final class Batch {
        /** Rows filled. */
        public int size;
        /** trade_id (the row number from 1). */
        public final long[] tradeId;
        /** ts in epoch microseconds. */
        public final long[] tsMicros;
        /** client_id. */
        public final long[] clientId;
        /** Venue index into {@link #VENUES}. */
        public final int[] venue;
        /** Instrument index (SYM + three digits). */
        public final int[] instrument;
        /** 'B' or 'S'. */
        public final byte[] side;
        /** Price as a decimal(6) mantissa. */
        public final long[] price;
        /** Quantity. */
        public final long[] quantity;

        /** @param capacity rows per batch. */
        public Batch(final int capacity) {
            tradeId = new long[capacity];
            tsMicros = new long[capacity];
            clientId = new long[capacity];
            venue = new int[capacity];
            instrument = new int[capacity];
            side = new byte[capacity];
            price = new long[capacity];
            quantity = new long[capacity];
        }

        /** @return rows the batch can hold. */
        public int capacity() {
            return tradeId.length;
        }
    }

    /**
     * @param rows total rows of the data set (timestamps are spread over five days accordingly).
     * @param seed random seed.
     */
    public BenchTrades(final long rows, final long seed) {
        this.rows = rows;
        this.random = new SplittableRandom(seed);
        fillZipf(instrumentTable, shuffled(INSTRUMENTS), 1.0);
        fillZipf(clientTable, shuffled(CLIENTS), 1.0);
        final double sum = 100;
        int k = 0;
        for (int v = 0; v < VENUE_SHARES.length; v++) {
            final int end = v == VENUE_SHARES.length - 1 ? TABLE : k + (int) (VENUE_SHARES[v] / sum * TABLE);
            while (k < end) {
                venueTable[k++] = v;
            }
        }
        for (int i = 0; i < INSTRUMENTS; i++) {
            levelCents[i] = Math.max(500, Math.round(500 * Math.pow(100, random.nextDouble())));
            priceCents[i] = levelCents[i];
        }
    }

    /** @param i an instrument index. @return its symbol. */
    public static String instrument(final int i) {
        return String.format("SYM%03d", i);
    }

    private int[] shuffled(final int n) {
        final int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            ids[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            final int j = random.nextInt(i + 1);
            final int x = ids[i];
            ids[i] = ids[j];
            ids[j] = x;
        }
        return ids;
    }

    /** Fills an inverse-CDF table so that rank k (mapped through {@code ids}) has weight 1/(k+1)^s. */
    private static void fillZipf(final int[] table, final int[] ids, final double s) {
        final double[] cdf = new double[ids.length];
        double sum = 0;
        for (int k = 0; k < ids.length; k++) {
            sum += 1.0 / Math.pow(k + 1, s);
            cdf[k] = sum;
        }
        int k = 0;
        for (int i = 0; i < table.length; i++) {
            final double u = (i + 0.5) / table.length * sum;
            while (cdf[k] < u) {
                k++;
            }
            table[i] = ids[k];
        }
    }

    /** @return the index of the instrument of popularity rank {@code rank} (0 = most traded). */
    public int instrumentOfRank(final int rank) {
        return rankOf(instrumentTable, rank);
    }

    /** @return the client id of activity rank {@code rank} (0 = most active). */
    public long clientOfRank(final int rank) {
        return FIRST_CLIENT_ID + rankOf(clientTable, rank);
    }

    private static int rankOf(final int[] table, final int rank) {
        int seen = 0;
        int last = -1;
        for (final int id : table) {
            if (id != last) {
                if (seen++ == rank) {
                    return id;
                }
                last = id;
            }
        }
        return table[table.length - 1];
    }

    /** @return rows generated so far. */
    public long generated() {
        return next;
    }

    /**
     * Fills the batch with the next trades.
     *
     * @param b the batch.
     * @return rows filled (0 when all rows were generated).
     */
    public int fill(final Batch b) {
        final int n = (int) Math.min(b.capacity(), rows - next);
        final long perDay = (rows + DAYS - 1) / DAYS;
        for (int i = 0; i < n; i++) {
            final long row = next + i;
            final long day = row / perDay;
            final long j = row - day * perDay;
            b.tradeId[i] = row + 1;
            b.tsMicros[i] = FIRST_DAY_MICROS + day * DAY_MICROS + OPEN_MICROS + j * SESSION_MICROS / perDay;
            final long r = random.nextLong();
            final int inst = instrumentTable[(int) (r & (TABLE - 1))];
            b.instrument[i] = inst;
            b.clientId[i] = FIRST_CLIENT_ID + clientTable[(int) ((r >>> 16) & (TABLE - 1))];
            b.venue[i] = venueTable[(int) ((r >>> 32) & (TABLE - 1))];
            b.side[i] = (r >>> 48 & 1) == 0 ? (byte) 'B' : (byte) 'S';
            long q = 1 + (long) (10 / Math.pow(random.nextDouble() + 1e-9, 0.8));
            if (q > 100) {
                q = q / 100 * 100;
            }
            b.quantity[i] = Math.min(q, 1_000_000);
            long p = priceCents[inst];
            final long unit = Math.max(1, p / 5_000);
            final long pull = p > levelCents[inst] * 11 / 10 ? -unit : p < levelCents[inst] * 9 / 10 ? unit : 0;
            p = Math.max(1, p + ((r >>> 49) % 5 - 2) * unit + pull);
            priceCents[inst] = p;
            b.price[i] = p * 10_000;
        }
        b.size = n;
        next += n;
        return n;
    }
}
