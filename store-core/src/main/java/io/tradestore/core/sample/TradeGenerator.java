package io.tradestore.core.sample;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import io.tradestore.core.StoreException;

/**
 * Deterministic, realistic trades in the loader's CSV, for {@code tradestore generate}, tests, benchmarks and the
 * demo. The same rows and seed always give the same bytes.
 *
 * <ul>
 *   <li>five trading days, Monday 2026-11-16 to Friday 2026-11-20, 08:00 to 16:30 UTC, timestamps non-decreasing
 *       with microsecond precision ({@code 2026-11-16T08:00:00.000441Z});</li>
 *   <li>500 instruments {@code SYM000..SYM499} with Zipf-like popularity (s = 1, shuffled) and per-instrument price
 *       levels (log-uniform 5 to 500) that drift as a random walk in cents;</li>
 *   <li>8 venues by market identifier code, with skewed shares; 10,000 clients (ids 100000..109999) with Zipf-like
 *       activity; 50/50 sides; quantities with a heavy (Pareto) tail, round lots above 100.</li>
 * </ul>
 * About 65 bytes per row; one thread writes several million rows a second.
 */
public final class TradeGenerator {
    /** The header row, with its newline. */
    public static final String HEADER = "trade_id,ts,client_id,venue,instrument,side,price,quantity\n";
    /** Instrument count. */
    public static final int INSTRUMENTS = 500;
    /** Client count. */
    public static final int CLIENTS = 10_000;
    /** First client id. */
    public static final long FIRST_CLIENT_ID = 100_000;
    /** Trading days. */
    public static final int DAYS = 5;
    /** The venues (market identifier codes), most active first. */
    static final String[] VENUES = {"XLON", "XPAR", "XETR", "CEUX", "XAMS", "XMIL", "TRQX", "XMAD"};
    private static final double[] VENUE_SHARE = {0.27, 0.18, 0.16, 0.12, 0.09, 0.07, 0.06, 0.05};
    /** 2026-11-16T00:00:00Z in epoch microseconds. */
    static final long FIRST_DAY_MICROS = 1_794_787_200_000_000L;
    private static final long DAY_MICROS = 86_400_000_000L;
    private static final long OPEN_MICROS = 8 * 3_600_000_000L;
    private static final long SESSION_MICROS = 8 * 3_600_000_000L + 30 * 60_000_000L;
    private static final int TABLE_BITS = 20;

    private final long rows;
    private final long perDay;
    private final int[] instrumentTable = new int[1 << TABLE_BITS];
    private final int[] clientTable = new int[1 << TABLE_BITS];
    private final int[] venueTable = new int[1 << 10];
    private final int[] quantityTable = new int[1 << 16];
    private final long[] priceCents = new long[INSTRUMENTS];
    private final long[] basePriceCents = new long[INSTRUMENTS];
    private final byte[][] instrumentNames = new byte[INSTRUMENTS][];
    private final byte[][] venueNames = new byte[VENUES.length][];
    private final byte[][] datePrefixes = new byte[DAYS][];
    private long state;
    private long next;
    private long lastMicros;

    /**
     * Creates a generator of {@code rows} trades.
     *
     * @param rows how many rows the whole output has (timestamps spread over five days accordingly).
     * @param seed the random seed.
     */
    public TradeGenerator(final long rows, final long seed) {
        if (rows < 0) {
            throw new IllegalArgumentException("rows=" + rows + " must be >= 0");
        }
        this.rows = rows;
        this.perDay = Math.max(1, (rows + DAYS - 1) / DAYS);
        this.state = seed * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
        final int[] instrumentRank = permutation(INSTRUMENTS);
        final int[] clientRank = permutation(CLIENTS);
        fillZipf(instrumentTable, instrumentRank, 1.0);
        fillZipf(clientTable, clientRank, 0.9);
        int v = 0;
        double cumulative = 0;
        for (int i = 0; i < venueTable.length; i++) {
            while (v < VENUES.length - 1 && (i + 0.5) / venueTable.length > cumulative + VENUE_SHARE[v]) {
                cumulative += VENUE_SHARE[v];
                v++;
            }
            venueTable[i] = v;
        }
        for (int i = 0; i < quantityTable.length; i++) {
            final double u = (i + 0.5) / quantityTable.length;
            long q = (long) Math.ceil(10.0 / Math.pow(1 - u, 0.8));
            if (q > 100) {
                q = q / 100 * 100;
            }
            quantityTable[i] = (int) Math.min(q, 1_000_000);
        }
        for (int i = 0; i < INSTRUMENTS; i++) {
            final double level = 5 * Math.pow(100, nextDouble());
            basePriceCents[i] = Math.max(100, Math.round(level * 100));
            priceCents[i] = basePriceCents[i];
            instrumentNames[i] = String.format("SYM%03d", i).getBytes(StandardCharsets.US_ASCII);
        }
        for (int i = 0; i < VENUES.length; i++) {
            venueNames[i] = VENUES[i].getBytes(StandardCharsets.US_ASCII);
        }
        for (int d = 0; d < DAYS; d++) {
            datePrefixes[d] = ("2026-11-" + (16 + d) + "T").getBytes(StandardCharsets.US_ASCII);
        }
    }

    private int[] permutation(final int n) {
        final int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            final int j = (int) ((nextLong() >>> 1) % (i + 1));
            final int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    /** Fills an inverse-CDF table so that rank k (mapped through {@code ids}) has weight 1/(k+1)^s. */
    private static void fillZipf(final int[] table, final int[] ids, final double s) {
        final int n = ids.length;
        final double[] cdf = new double[n];
        double sum = 0;
        for (int k = 0; k < n; k++) {
            sum += 1 / Math.pow(k + 1, s);
            cdf[k] = sum;
        }
        int k = 0;
        for (int i = 0; i < table.length; i++) {
            final double u = (i + 0.5) / table.length * sum;
            while (k < n - 1 && cdf[k] < u) {
                k++;
            }
            table[i] = ids[k];
        }
        // the rarest rank still owns several entries (500 ranks at s=1: ~300; 10,000 at s=0.9: ~11), so a large sample
        // holds every id
    }

    private long nextLong() {
        long z = state += 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private double nextDouble() {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }

    /** @return rows written so far. */
    public long rowsWritten() {
        return next;
    }

    /**
     * Writes the next row at {@code buf[offset]}; the buffer needs 128 free bytes.
     *
     * @param buf    the buffer.
     * @param offset where to write.
     * @return the offset after the row's newline.
     */
    public int writeRow(final byte[] buf, final int offset) {
        final long i = next++;
        final int day = (int) Math.min(DAYS - 1, i / perDay);
        final long j = i - day * perDay;
        final long step = Math.max(1, SESSION_MICROS / perDay);
        final long r1 = nextLong();
        final long r2 = nextLong();
        long micros = FIRST_DAY_MICROS + day * DAY_MICROS + OPEN_MICROS + j * SESSION_MICROS / perDay
            + ((r1 >>> 1) % step);
        if (micros < lastMicros) {
            micros = lastMicros;
        }
        lastMicros = micros;
        final int instrument = instrumentTable[(int) (r1 & ((1 << TABLE_BITS) - 1))];
        final int client = clientTable[(int) ((r1 >>> 20) & ((1 << TABLE_BITS) - 1))];
        final int venue = venueTable[(int) ((r1 >>> 40) & (venueTable.length - 1))];
        final boolean buy = (r2 & 1) == 0;
        final int quantity = quantityTable[(int) ((r2 >>> 1) & 0xFFFF)];
        final long price = drift(instrument, (int) ((r2 >>> 17) & 0xFFFF));

        int p = offset;
        p = writeLong(buf, p, i + 1);
        buf[p++] = ',';
        final byte[] date = datePrefixes[day];
        System.arraycopy(date, 0, buf, p, date.length);
        p += date.length;
        long t = micros % DAY_MICROS;
        final int micro = (int) (t % 1_000_000);
        t /= 1_000_000;
        p = two(buf, p, (int) (t / 3600));
        buf[p++] = ':';
        p = two(buf, p, (int) (t / 60 % 60));
        buf[p++] = ':';
        p = two(buf, p, (int) (t % 60));
        buf[p++] = '.';
        p = fixed(buf, p, micro, 6);
        buf[p++] = 'Z';
        buf[p++] = ',';
        p = writeLong(buf, p, FIRST_CLIENT_ID + client);
        buf[p++] = ',';
        final byte[] v = venueNames[venue];
        System.arraycopy(v, 0, buf, p, v.length);
        p += v.length;
        buf[p++] = ',';
        final byte[] s = instrumentNames[instrument];
        System.arraycopy(s, 0, buf, p, s.length);
        p += s.length;
        buf[p++] = ',';
        buf[p++] = (byte) (buy ? 'B' : 'S');
        buf[p++] = ',';
        p = writeLong(buf, p, price / 100);
        buf[p++] = '.';
        p = two(buf, p, (int) (price % 100));
        buf[p++] = ',';
        p = writeLong(buf, p, quantity);
        buf[p++] = '\n';
        return p;
    }

    /** Moves an instrument's price one step of its random walk (about 0.02% a trade, pulled back to its level). */
    private long drift(final int instrument, final int random) {
        long p = priceCents[instrument];
        final long unit = Math.max(1, p / 5000);
        final long pull = (basePriceCents[instrument] - p) / 2000;
        p += (random % 5 - 2) * unit + pull;
        if (p < 1) {
            p = 1;
        }
        priceCents[instrument] = p;
        return p;
    }

    private static int two(final byte[] buf, final int p, final int v) {
        buf[p] = (byte) ('0' + v / 10);
        buf[p + 1] = (byte) ('0' + v % 10);
        return p + 2;
    }

    private static int fixed(final byte[] buf, final int p, final int v, final int digits) {
        int x = v;
        for (int i = digits - 1; i >= 0; i--) {
            buf[p + i] = (byte) ('0' + x % 10);
            x /= 10;
        }
        return p + digits;
    }

    private static int writeLong(final byte[] buf, final int p, final long v) {
        int n = 1;
        for (long x = v; x >= 10; x /= 10) {
            n++;
        }
        long x = v;
        for (int i = n - 1; i >= 0; i--) {
            buf[p + i] = (byte) ('0' + x % 10);
            x /= 10;
        }
        return p + n;
    }

    /**
     * Writes the header and all remaining rows.
     *
     * @param out where to write (not closed).
     * @throws IOException when writing fails.
     */
    public void writeCsv(final OutputStream out) throws IOException {
        final byte[] buf = new byte[1 << 20];
        final byte[] header = HEADER.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(header, 0, buf, 0, header.length);
        int p = header.length;
        while (next < rows) {
            if (p > buf.length - 128) {
                out.write(buf, 0, p);
                p = 0;
            }
            p = writeRow(buf, p);
        }
        out.write(buf, 0, p);
        out.flush();
    }

    /**
     * Writes a CSV file of generated trades.
     *
     * @param file the file (replaced).
     * @param rows how many rows.
     * @param seed the seed.
     * @return the file's size in bytes.
     */
    public static long writeCsv(final Path file, final long rows, final long seed) {
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            new TradeGenerator(rows, seed).writeCsv(out);
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + StoreException.reason(e), e);
        }
        try {
            return Files.size(file);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
