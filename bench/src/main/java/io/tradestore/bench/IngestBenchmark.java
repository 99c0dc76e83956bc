package io.tradestore.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.ingest.CsvLoader;
import io.tradestore.core.ingest.LoadOptions;
import io.tradestore.core.ingest.LoadResult;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.http.QueryServer;
import io.tradestore.server.http.ServerConfig;
import io.tradestore.server.ingest.IngestConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Line protocol over HTTP on loopback from a Java sender in the same JVM (so the two cores hold the sender, the server
 * and, in the last step, a query load): requests of {@code --batch} rows of generated trades (the BenchTrades data set,
 * formatted once up front as the bodies a client would send; each later pass over them moves their timestamps on, in
 * place, as a live feed's), back to back on {@code --connections} keep-alive connections, each answered 204 after its
 * commit. Steps, in one sitting:
 * <ol>
 *   <li>the same rows as CSV through the loader ({@code tradestore load}'s path), into a table of their own;</li>
 *   <li>the rows over HTTP alone: rows/s and the cost against the loader;</li>
 *   <li>the rows over HTTP again, for {@code --seconds}, while {@code --query-rate} selective queries a second (the
 *   HTTP benchmark's window workload: one instrument over two hours) run against the table being written: rows/s,
 *   and the queries' p50 and p99 (coordinated omission corrected);</li>
 *   <li>the same with the sender offering {@code --ingest-rate} rows a second, as a live feed does, instead of sending
 *   each request as soon as the last is answered: the queries' latency beside a given ingest rate, not beside an
 *   ingest that takes every cycle the queries leave.</li>
 * </ol>
 * Run with {@code bench/ingest-bench.sh} (the chronicle flags); prints one line per step.
 */
@Command(name = "IngestBenchmark", mixinStandardHelpOptions = true,
    description = "Line protocol over HTTP from a Java sender, against the CSV loader and under a query load.")
public final class IngestBenchmark implements Callable<Integer> {
    @Option(names = "--dir", description = "scratch directory, emptied first (default: ${DEFAULT-VALUE})")
    Path dir = Path.of("/tmp/tradestore-ingest-bench");

    @Option(names = "--rows", description = "distinct rows generated and sent per pass (default: ${DEFAULT-VALUE})")
    int rows = 4_000_000;

    @Option(names = "--batch", description = "rows per request, committed together (default: ${DEFAULT-VALUE})")
    int batch = 10_000;

    @Option(names = "--connections", description = "sender connections (default: ${DEFAULT-VALUE})")
    int connections = 2;

    @Option(names = "--ingest-threads", description = "the server's ingest threads (default: the server's, "
        + "${DEFAULT-VALUE})")
    int ingestThreads = IngestConfig.defaultThreads();

    @Option(names = "--seconds", description = "seconds of the step under query load (default: ${DEFAULT-VALUE})")
    int seconds = 20;

    @Option(names = "--query-rate", description = "selective queries a second in the last step (default: "
        + "${DEFAULT-VALUE})")
    int queryRate = 100;

    @Option(names = "--ingest-rate", description = "rows a second the sender offers in the paced step under the "
        + "queries, as a live feed would (0: no paced step) (default: ${DEFAULT-VALUE})")
    long ingestRate = 2_000_000;

    private IngestConfig ingestConfig() {
        final IngestConfig d = IngestConfig.defaults();
        return new IngestConfig(d.maxBodyLength(), d.create(), d.waitMs(), d.durability(), ingestThreads, d.queue(),
            d.segmentRows(), d.idleMs(), d.retentionMs(), d.partitionBy());
    }

    /**
     * Each pass over the requests moves their timestamps this much later, as a live feed's would be (the data set spans
     * five days): queries on a time window then touch one pass's rows, as they would on live data.
     */
    private static final long CYCLE_NS = 6 * 86_400_000_000_000L;
    /** Seconds of queries before the measured ones (at most the measured seconds), while the ingest already runs. */
    private static final int WARMUP_SECONDS = 5;
    /** Where each request's line timestamps start (19 digits each). */
    private final List<int[]> stamps = new ArrayList<>();
    static final String SECTION_START = "<!-- ingest:start (generated by bench/ingest-bench.sh --report; edits "
        + "inside are lost) -->";
    static final String SECTION_END = "<!-- ingest:end -->";

    @Option(names = "--report", paramLabel = "FILE", description = "also write the figures as a section of this "
        + "Markdown file (docs/benchmarks.md), between its ingest markers")
    Path report;

    private final PrintStream out = System.out;
    private final StringBuilder lines = new StringBuilder();

    /** @param args see {@code --help}. */
    public static void main(final String[] args) {
        System.exit(new CommandLine(new IngestBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        BenchCommand.deleteTree(dir);
        Files.createDirectories(dir);
        final List<byte[]> requests = new ArrayList<>();
        final Path csv = dir.resolve("trades.csv");
        final long bytes = generate(requests, csv);
        say("data: %,d rows of BenchTrades in %d requests of %,d rows, %.1f MB of line protocol "
            + "(%.0f bytes/row)%n", rows, requests.size(), batch, bytes / 1e6, (double) bytes / rows);
        try (Store store = Store.open(dir.resolve("store"))) {
            final double loadRate = load(store, csv);
            say("tradestore load (CSV, the same rows):     %,12.0f rows/s%n", loadRate);
            store.createTable(TradesSchema.SCHEMA);
            try (QueryEngine engine = new QueryEngine(store, 1);
                 QueryServer server = QueryServer.start(store, engine,
                     new ServerConfig("127.0.0.1", 0, 2, 64, 1 << 20, 10_000, null), ingestConfig())) {
                final InetSocketAddress address = server.address();
                // warm-up pass, then the measured pass of the same rows
                send(address, requests, 0, 0, 0, new AtomicBoolean());
                final long t0 = System.nanoTime();
                final long sent = send(address, requests, requests.size(), 0, 0, new AtomicBoolean());
                final double httpRate = sent / ((System.nanoTime() - t0) / 1e9);
                say("line protocol over HTTP, alone:           %,12.0f rows/s  (%.2fx the CSV "
                    + "loader's time per row)%n", httpRate, loadRate / httpRate);
                final long next = underQueries(address, requests, 2L * requests.size(), 0);
                if (ingestRate > 0) {
                    underQueries(address, requests, next, ingestRate);
                }
            }
        }
        if (report != null) {
            writeReport(String.format(Locale.ROOT, "--rows %d --batch %d --connections %d --seconds %d "
                + "--query-rate %d --ingest-rate %d", rows, batch, connections, seconds, queryRate, ingestRate));
        }
        return 0;
    }

    private void say(final String format, final Object... args) {
        final String text = String.format(Locale.ROOT, format, args);
        out.print(text);
        lines.append(text);
    }

    private void writeReport(final String commandLine) throws IOException {
        final String md = String.format(Locale.ROOT, "### Ingest over HTTP%n%nGenerated by `bench/ingest-bench.sh %s` "
            + "on %s (%s; load average after the run %s). One JVM holds the sender, the server and the query load, "
            + "on the machine's %d cores.%n%n```%n%s```%n", commandLine, ShapesBenchmark.now(),
            QueryBenchmark.machine(), QueryBenchmark.loadAverage(), Runtime.getRuntime().availableProcessors(), lines);
        MarkdownSection.write(report, SECTION_START, SECTION_END, md);
    }

    /**
     * Sends requests for {@link #seconds} while the query load runs, and prints both.
     *
     * @param first overall index of the first request (its pass moves the timestamps on).
     * @param rate rows a second the sender offers, or 0 to send each request as soon as the last is answered.
     * @return the overall index of the request after the last one sent.
     */
    private long underQueries(final InetSocketAddress address, final List<byte[]> requests, final long first,
        final long rate) throws Exception {
        final AtomicBoolean stop = new AtomicBoolean();
        final long t0 = System.nanoTime();
        final CompletableFuture<Long> sender = CompletableFuture.supplyAsync(() -> {
            try {
                return send(address, requests, first,
                    TimeUnit.SECONDS.toNanos(Math.min(WARMUP_SECONDS, seconds) + seconds + 1), rate, stop);
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        final byte[][] queries = HttpWorkload.requests("window", HttpWorkload.bodies("window"));
        final HttpBenchmark.Run run;
        try (NioLoad load = new NioLoad(address, 4)) {
            // a warm-up of the queries: the first ones load or build the indexes and summaries of the segments they
            // touch (once per segment), then the measured run
            HttpBenchmark.fixedRate(load, queries, queryRate, Math.min(WARMUP_SECONDS, seconds), false, out,
                TimeUnit.MILLISECONDS.toNanos(50));
            run = HttpBenchmark.fixedRate(load, queries, queryRate, seconds, false, out,
                TimeUnit.MILLISECONDS.toNanos(50)).run();
        }
        stop.set(true);
        final long sent = sender.get(120, TimeUnit.SECONDS);
        final double achieved = sent / ((System.nanoTime() - t0) / 1e9);
        if (rate == 0) {
            say("line protocol over HTTP, under %d q/s:     %,12.0f rows/s  (sent as fast as answered)%n", queryRate,
                achieved);
        } else {
            say("line protocol over HTTP, under %d q/s:     %,12.0f rows/s  (offered %,d rows/s)%n", queryRate,
                achieved, rate);
        }
        say("  the queries (one instrument over a two-hour window):  %s%n", run.line());
        return first + sent / batch;
    }

    /**
     * Sends every request once from overall index {@code first} (or, with a duration, round and round until it is over
     * or {@code stop}), spread over the connections, each waiting for its answer before the next; the passes' index
     * moves the timestamps on. With a rate, request {@code first + k} is not sent before {@code k * batch / rate}
     * seconds from the start (a feed's schedule: a late request goes at once, and the rows/s achieved show it).
     *
     * @return rows committed.
     */
    private long send(final InetSocketAddress address, final List<byte[]> requests, final long first,
        final long durationNs, final long rate, final AtomicBoolean stop) throws IOException {
        final AtomicLong next = new AtomicLong(first);
        final long startNs = System.nanoTime();
        final long endNs = startNs + durationNs;
        final double requestNs = rate == 0 ? 0 : batch * 1e9 / rate;
        final List<CompletableFuture<Long>> senders = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            senders.add(CompletableFuture.supplyAsync(() -> {
                long committed = 0;
                final byte[] copy = new byte[requests.stream().mapToInt(r -> r.length).max().orElse(0)];
                try (SocketChannel ch = SocketChannel.open(address)) {
                    ch.socket().setTcpNoDelay(true);
                    final ByteBuffer answer = ByteBuffer.allocate(4096);
                    while (!stop.get()) {
                        final long i = next.getAndIncrement();
                        if (durationNs == 0 ? i >= first + requests.size() : System.nanoTime() > endNs) {
                            break;
                        }
                        final long due = startNs + (long) ((i - first) * requestNs);
                        for (long now = System.nanoTime(); now < due; now = System.nanoTime()) {
                            LockSupport.parkNanos(due - now);
                        }
                        final int k = (int) (i % requests.size());
                        final ByteBuffer req = ByteBuffer.wrap(shifted(requests.get(k), stamps.get(k),
                            (i / requests.size()) * CYCLE_NS, copy), 0, requests.get(k).length);
                        while (req.hasRemaining()) {
                            ch.write(req);
                        }
                        answer.clear();
                        while (!headEnded(answer)) {
                            if (ch.read(answer) < 0) {
                                throw new IOException("the server closed the connection");
                            }
                        }
                        final String status = new String(answer.array(), 9, 3, StandardCharsets.US_ASCII);
                        if (!"204".equals(status)) {
                            throw new IOException("answer " + new String(answer.array(), 0, answer.position(),
                                StandardCharsets.UTF_8));
                        }
                        committed += batch;
                    }
                } catch (final IOException e) {
                    throw new UncheckedIOException(e);
                }
                return committed;
            }));
        }
        long total = 0;
        for (final CompletableFuture<Long> s : senders) {
            total += s.join();
        }
        return total;
    }

    /**
     * @return the request with its timestamps moved by {@code shiftNs}, written into the start of {@code into} (the
     *     sender's cost of formatting fresh timestamps), or the request itself when there is nothing to move.
     */
    private static byte[] shifted(final byte[] request, final int[] at, final long shiftNs, final byte[] into) {
        if (shiftNs == 0) {
            return request;
        }
        System.arraycopy(request, 0, into, 0, request.length);
        for (final int p : at) {
            long v = 0;
            for (int k = 0; k < 19; k++) {
                v = v * 10 + (into[p + k] - '0');
            }
            v += shiftNs;
            for (int k = 18; k >= 0; k--) {
                into[p + k] = (byte) ('0' + v % 10);
                v /= 10;
            }
        }
        return into;
    }

    private static boolean headEnded(final ByteBuffer b) {
        final int n = b.position();
        final byte[] a = b.array();
        return n >= 4 && a[n - 4] == '\r' && a[n - 3] == '\n' && a[n - 2] == '\r' && a[n - 1] == '\n';
    }

    /** Formats the rows as line protocol requests and as one CSV file; returns the line protocol bytes. */
    private long generate(final List<byte[]> requests, final Path csv) throws IOException {
        final BenchTrades gen = new BenchTrades(rows, 42);
        final BenchTrades.Batch b = new BenchTrades.Batch(batch);
        final StringBuilder lines = new StringBuilder(batch * 130);
        final StringBuilder text = new StringBuilder(batch * 100);
        long bytes = 0;
        try (java.io.BufferedWriter w = Files.newBufferedWriter(csv, StandardCharsets.US_ASCII)) {
            w.write("trade_id,ts,client_id,venue,instrument,side,price,quantity\n");
            for (long done = 0; done < rows; done += b.size) {
                b.size = 0;
                gen.fill(b);
                lines.setLength(0);
                text.setLength(0);
                final int[] at = new int[b.size];
                for (int i = 0; i < b.size; i++) {
                    final String price = java.math.BigDecimal.valueOf(b.price[i], 6).toPlainString();
                    lines.append("trades,venue=").append(BenchTrades.VENUES[b.venue[i]]).append(",instrument=")
                        .append(BenchTrades.instrument(b.instrument[i])).append(",side=").append((char) b.side[i])
                        .append(" trade_id=").append(b.tradeId[i]).append("i,client_id=").append(b.clientId[i])
                        .append("i,price=").append(price).append(",quantity=").append(b.quantity[i]).append("i ");
                    at[i] = lines.length();
                    lines.append(b.tsMicros[i] * 1000).append('\n');
                    text.append(b.tradeId[i]).append(',').append(b.tsMicros[i] * 1000).append(',')
                        .append(b.clientId[i]).append(',').append(BenchTrades.VENUES[b.venue[i]]).append(',')
                        .append(BenchTrades.instrument(b.instrument[i])).append(',').append((char) b.side[i])
                        .append(',').append(price).append(',').append(b.quantity[i]).append('\n');
                }
                w.append(text);
                final byte[] body = lines.toString().getBytes(StandardCharsets.US_ASCII);
                final byte[] head = ("POST /write?precision=n HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain"
                    + "\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
                final byte[] req = new byte[head.length + body.length];
                System.arraycopy(head, 0, req, 0, head.length);
                System.arraycopy(body, 0, req, head.length, body.length);
                requests.add(req);
                for (int i = 0; i < b.size; i++) {
                    at[i] += head.length; // the timestamps' places in the request, past its head
                }
                stamps.add(at);
                bytes += body.length;
            }
        }
        return bytes;
    }

    /** Loads the CSV into a table of its own twice (a warm-up, then the measured load); returns rows/s. */
    private double load(final Store store, final Path csv) {
        double rate = 0;
        for (int pass = 0; pass < 2; pass++) {
            final String name = "loaded" + pass;
            try (TableWriter w = store.createTable(TradesSchema.SCHEMA.with(name, TradesSchema.SCHEMA.layout(),
                TradesSchema.SCHEMA.segmentRows(), TradesSchema.SCHEMA.blockRows())).writer()) {
                final LoadResult r = CsvLoader.load(w, List.of(csv), LoadOptions.defaults(), null);
                rate = r.rowsPerSecond();
            }
        }
        return rate;
    }
}
