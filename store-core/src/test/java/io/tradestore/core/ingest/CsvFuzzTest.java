package io.tradestore.core.ingest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.GZIPOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.TestRows;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A seeded fuzzer of the CSV loader: valid trades files (columns in any order, quoted fields, nulls) are mutated into
 * truncated files, wrong column counts, open quotes, bad numbers, decimals and timestamps, BOMs, CRLF and CR line ends,
 * NUL and invalid UTF-8 bytes, blank and overlong lines, empty and header-only files. Each file is loaded into two
 * tables, one in a single chunk and one cut into 40-byte chunks on two threads (and sometimes gzip-compressed): both
 * must agree exactly (rows, sums, dictionaries, messages, rejects). A failure must be a {@link LoadException} whose
 * message starts {@code FILE:LINE:COLUMN: } with a line and column inside the file, and must leave the table at its
 * last commit; skip mode must account for every row. Replay with {@code -Dtradestore.csvfuzz.seed=S
 * -Dtradestore.csvfuzz.cases=N}.
 */
@ExtendWith(TestRows.NoLeaks.class)
class CsvFuzzTest {
    private static final long SEED = Long.getLong("tradestore.csvfuzz.seed", 0xC5F_F022L);
    private static final int CASES = Integer.getInteger("tradestore.csvfuzz.cases", 250);
    private static final String[] COLUMNS =
        {"trade_id", "ts", "client_id", "venue", "instrument", "side", "price", "quantity"};
    private static final String[] BAD =
        {"", " ", "1e5", "12a", "--1", "+-1", "0x10", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "1.1234567", "1.", ".5", "1..2", "-0.000001",
        "99999999999999.999999",
        "9223372036854.775807", "9223372036854.775808", "2026-02-30T00:00:00Z", "2026-11-16T08:00:00.0000000001Z",
        "2026-11-16T25:00:00Z",
        "2026-11-16T08:00:00+99:00", "2026-11-16T08:00:00+14:00", "2026-11-16", "2262-04-11T23:47:16.854775808Z",
        "1677-09-21T00:12:43.145224191Z",
        "-1", "BB", "X", "b", "SELL", "\"\"", "\"a\"\"b\"", "\"x\ny\"", "\"open", "x\"y", "\u00e9", "\u0000", "NaN",
        "Infinity", "1_000"};
    private static final int[] CHUNKS = {40, 64, 97, 256};

    @TempDir
    Path dir;

    /** What a load did: the rows, sums and dictionaries after it, and its result or message. */
    private record Outcome(IngestFixtures.Summary summary, String result, List<String> rejects) {
    }

    @Test
    void shouldLoadOrRejectEveryMutatedFileTheSameWayWhateverTheChunkingAndKeepTheLastCommit() throws IOException {
        final Path a = dir.resolve("a");
        final Path b = dir.resolve("b");
        final Path seed = IngestFixtures.write(dir.resolve("seed.csv"), IngestFixtures.HEADER
            + "1,2026-11-16T08:00:00.000001Z,100001,XLON,SYM001,B,10.5,100\n2,2026-11-16T08:00:01Z,100002,XPAR,SYM002,"
            + "S,20.25,200\n");
        IngestFixtures.load(a, LoadOptions.defaults(), seed);
        IngestFixtures.load(b, LoadOptions.defaults(), seed);
        final List<String> failures = new ArrayList<>();
        int loaded = 0;
        int failed = 0;
        for (int i = 0; i < CASES && failures.size() < 10; i++) {
            final long s = SEED + i;
            final SplittableRandom r = new SplittableRandom(s);
            final byte[] csv = generate(r);
            final boolean skip = r.nextInt(4) == 0;
            final boolean gzip = r.nextInt(5) == 0;
            final int chunk = CHUNKS[r.nextInt(CHUNKS.length)];
            final Path plain = dir.resolve("in.csv");
            Files.write(plain, csv);
            final Path cut = gzip ? gzip(dir.resolve("in.csv.gz"), csv) : plain;
            final IngestFixtures.Summary beforeA = IngestFixtures.summarise(a);
            final Outcome x = load(a, LoadOptions.defaults().withMaxLineLength(400), skip, plain, plain.toString());
            final Outcome y =
                load(b, LoadOptions.defaults().withMaxLineLength(400).withChunkBytes(chunk).withThreads(2), skip, cut,
                plain.toString());
            final String where = "case " + i + " (seed " + s + ", chunk " + chunk + (gzip ? ", gzip" : "")
                + (skip ? ", skip" : "") + ")";
            if (gzip && y.result().contains("-byte buffer of compressed or piped input")) {
                // the documented limit of streamed input: a line longer than its buffer fails the load, where a mapped
                // file reads it (a header) or skips it; the failure must still be a proper one
                final String problem = check(y, beforeA, csv, plain.toString(), skip);
                if (problem != null) {
                    failures.add(where + ": " + problem + "\n  input: " + printable(csv));
                }
                if (!x.result().startsWith("failed")) {
                    // keep the two tables equal for the cases after this one
                    load(b, LoadOptions.defaults().withMaxLineLength(400), skip, plain, plain.toString());
                }
                continue;
            }
            if (!x.equals(y)) {
                failures.add(where + ": one chunk and " + chunk + "-byte chunks differ:\n  " + x.result() + " " + x
                    .rejects() + "\n  " + y.result()
                    + " " + y.rejects() + "\n  input: " + printable(csv));
                continue;
            }
            final String problem = check(x, beforeA, csv, plain.toString(), skip);
            if (problem != null) {
                failures.add(where + ": " + problem + "\n  input: " + printable(csv));
            }
            if (x.result().startsWith("loaded")) {
                loaded++;
            } else {
                failed++;
            }
        }
        assertThat(failures).as("loaded=%d failed=%d", loaded, failed).isEmpty();
        assertThat(loaded).isPositive();
        assertThat(failed).isPositive();
    }

    private static Path gzip(final Path file, final byte[] csv) throws IOException {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(csv);
        }
        Files.write(file, out.toByteArray());
        return file;
    }

    private Outcome load(final Path store, final LoadOptions options, final boolean skip, final Path file,
        final String name) {
        final Path rejects = dir.resolve("rejects.txt");
        String result;
        try {
            final LoadResult r =
                IngestFixtures.load(store,
                skip ? options.withOnError(OnError.SKIP).withRejects(rejects).withMaxErrors(1000)
                : options, file);
            result = "loaded read=" + r.rowsRead() + " loaded=" + r.rowsLoaded() + " rejected=" + r.rowsRejected();
        } catch (final LoadException e) {
            result = "failed " + e.getMessage().replace(file.toString(), name) + " [line=" + e.line() + " column=" + e
                .column() + " file="
                + (e.file() == null ? null : e.file().replace(file.toString(), name)) + "]";
        } catch (final RuntimeException | Error e) {
            result = "threw " + e;
        }
        List<String> lines = List.of();
        if (skip && Files.exists(rejects)) {
            try {
                lines = new ArrayList<>();
                for (final String l : Files.readAllLines(rejects, StandardCharsets.UTF_8)) {
                    lines.add(l.replace(file.toString(), name));
                }
                Files.delete(rejects);
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return new Outcome(IngestFixtures.summarise(store), result, lines);
    }

    /** @return what is wrong with an outcome both chunkings agree on, or null. */
    private static String check(final Outcome o, final IngestFixtures.Summary before, final byte[] csv,
        final String file, final boolean skip) {
        if (o.result().startsWith("threw")) {
            return "not a LoadException: " + o.result();
        }
        if (o.result().startsWith("failed")) {
            if (!o.summary().equals(before)) {
                return "a failed load changed the table: " + o.result() + "\n  before " + before + "\n  after  " + o
                    .summary();
            }
            final String message = o.result().substring("failed ".length());
            if (message.startsWith("too many rejected rows")) {
                return null;
            }
            final String pos = placeProblem(message, csv, file);
            return pos == null ? null : pos + ": " + o.result();
        }
        // loaded: "loaded read=R loaded=L rejected=J"
        final String[] f = o.result().split("[ =]");
        final long read = Long.parseLong(f[2]);
        final long rows = Long.parseLong(f[4]);
        final long rejected = Long.parseLong(f[6]);
        if (read != rows + rejected || o.summary().rows() != before.rows() + rows) {
            return "rows do not add up: " + o.result() + ", table " + before.rows() + " -> " + o.summary().rows();
        }
        if (!skip && rejected != 0) {
            return "fail mode rejected rows: " + o.result();
        }
        if (skip && o.rejects().size() != rejected) {
            return "rejects file has " + o.rejects().size() + " lines for " + rejected + " rejected rows";
        }
        for (final String line : o.rejects()) {
            final String pos = placeProblem(line, csv, file);
            if (pos != null) {
                return pos + ": reject '" + line + "'";
            }
        }
        return null;
    }

    /** @return null when {@code message} starts FILE:LINE:COLUMN: with a line and column inside the file. */
    private static String placeProblem(final String message, final byte[] csv, final String file) {
        if (!message.startsWith(file + ":")) {
            return "the message does not start with the file name";
        }
        final String[] p = message.substring(file.length() + 1).split(":", 3);
        final long line;
        final long column;
        try {
            line = Long.parseLong(p[0]);
            column = Long.parseLong(p[1]);
        } catch (final NumberFormatException | ArrayIndexOutOfBoundsException e) {
            return "no LINE:COLUMN after the file name";
        }
        final List<Integer> lengths = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= csv.length; i++) {
            if (i == csv.length || csv[i] == '\n') {
                lengths.add(i - start);
                start = i + 1;
            }
        }
        if (line < 1 || line > lengths.size() + 1) {
            return "line " + line + " is outside the file's " + lengths.size() + " lines";
        }
        final long max = line <= lengths.size() ? lengths.get((int) line - 1) + 1 : 1;
        if (column < 1 || column > max) {
            return "column " + column + " is outside line " + line + " (" + (max - 1) + " bytes)";
        }
        return null;
    }

    private static String printable(final byte[] b) {
        final StringBuilder s = new StringBuilder();
        for (int i = 0; i < Math.min(b.length, 1500); i++) {
            final int c = b[i] & 0xFF;
            s.append(c >= 0x20
                && c < 0x7F ? String.valueOf((char) c) : c == '\r' ? "\\r" : c == '\n' ? "\\n"
                : String.format("\\x%02x", c));
        }
        return b.length > 1500 ? s + "...(" + b.length + " bytes)" : s.toString();
    }

    // ---------------------------------------------------------------- generation

    static byte[] generate(final SplittableRandom r) {
        final int[] order = {0, 1, 2, 3, 4, 5, 6, 7};
        if (r.nextBoolean()) {
            for (int i = order.length - 1; i > 0; i--) {
                final int j = r.nextInt(i + 1);
                final int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        }
        final List<List<String>> rows = new ArrayList<>();
        final List<String> header = new ArrayList<>();
        for (final int c : order) {
            header.add(COLUMNS[c]);
        }
        rows.add(header);
        final int n = r.nextInt(8) == 0 ? 0 : 1 + r.nextInt(25);
        for (int i = 0; i < n; i++) {
            final String[] v = {String.valueOf(1000 + r.nextInt(100_000)),
                r.nextBoolean()
                ? String.format("2026-11-16T%02d:%02d:%02d.%06dZ", r.nextInt(24), r.nextInt(60), r.nextInt(60),
                r.nextInt(1_000_000))
                    : String.valueOf(1_795_000_000_000_000_000L + r.nextLong(1L << 40)),
                r.nextInt(10) == 0 ? "" : String.valueOf(r.nextInt(1000)),
                r.nextInt(10) == 0 ? "" : new String[] {"XLON", "XPAR", "\"X,Q\"", "\"X\"\"Y\""}[r.nextInt(4)],
                "SYM" + r.nextInt(40),
                r.nextInt(10) == 0 ? "" : r.nextBoolean() ? "B" : "S",
                r.nextInt(10) == 0 ? "" : r.nextInt(1000) + "." + r.nextInt(1_000_000),
                r.nextInt(10) == 0 ? "" : String.valueOf(r.nextInt(100_000))};
            final List<String> row = new ArrayList<>();
            for (final int c : order) {
                row.add(v[c]);
            }
            rows.add(row);
        }
        // field-level mutations
        final int m = r.nextInt(3);
        for (int k = 0; k < m && rows.size() > 1; k++) {
            final List<String> row = rows.get(1 + r.nextInt(rows.size() - 1));
            switch (r.nextInt(4)) {
                case 0:
                    row.remove(r.nextInt(row.size()));
                    break;
                case 1:
                    row.add(r.nextInt(row.size() + 1), BAD[r.nextInt(BAD.length)]);
                    break;
                default:
                    row.set(r.nextInt(row.size()), BAD[r.nextInt(BAD.length)]);
                    break;
            }
        }
        if (r.nextInt(12) == 0) {
            header.set(r.nextInt(header.size()),
                new String[] {"price", "notes", "", "\"ts\"", " ts", "TS"}[r.nextInt(6)]);
        }
        final String eol = new String[] {"\n", "\n", "\n", "\r\n", "\r"}[r.nextInt(5)];
        final StringBuilder text = new StringBuilder();
        for (final List<String> row : rows) {
            text.append(String.join(",", row)).append(eol);
            if (r.nextInt(30) == 0) {
                text.append(eol); // a blank line
            }
        }
        if (r.nextInt(4) == 0 && text.length() > 0) {
            text.setLength(text.length() - eol.length()); // no newline at the end
        }
        if (r.nextInt(25) == 0) {
            text.append("9,2026-11-16T08:00:00Z,1,XLON,").append("L".repeat(500)).append(",B,1,1").append(eol);
        }
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        // byte-level mutations
        switch (r.nextInt(10)) {
            case 0:
                bytes = java.util.Arrays.copyOf(bytes, r.nextInt(bytes.length + 1));
                break;
            case 1: {
                final byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
                final byte[] x = new byte[bytes.length + 3];
                System.arraycopy(bom, 0, x, 0, 3);
                System.arraycopy(bytes, 0, x, 3, bytes.length);
                bytes = x;
                break;
            }
            case 2:
                if (bytes.length > 0) {
                    for (int k = 0; k < 2; k++) {
                        bytes[r.nextInt(bytes.length)] =
                            new byte[] {0, (byte) 0xFF, (byte) 0xC3, '"', ',', '\n', '\r'}[r.nextInt(7)];
                    }
                }
                break;
            case 3:
                bytes = new byte[0];
                break;
            default:
                break;
        }
        return bytes;
    }
}
