package io.tradestore.core.ingest.line;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableReader;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * 10,000 requests, each three good lines and one randomly mutated line (bytes inserted, deleted, replaced, doubled
 * or swapped, from an alphabet of the protocol's own syntax): every mutated line is stored exactly as
 * {@link LineOracle} reads it, or refused with its line number and nothing of its request committed.
 */
class LineMutationTest {
    private static final long NOW = 1_800_000_000_000_000_000L;
    private static final String ALPHABET = " ,=\"\\\r\t#-+.eEiutfNI0123456789axlsd";
    private static final int REQUESTS = 10_000;

    @TempDir
    Path dir;

    @Test
    void shouldStoreEachMutatedLineExactlyOrRefuseItWithItsLineNumber() {
        final Schema schema = LineIngestTest.ALL.with("all", LineIngestTest.ALL.layout(), 1 << 16, 1 << 12);
        final LineOracle oracle = new LineOracle(schema, NOW);
        final LineIngest ingest = new LineIngest();
        final Random rnd = new Random(Long.getLong("tradestore.mutationSeed", 20261129L)); // replay another with -D
        int accepted = 0;
        int refused = 0;
        try (Store store = Store.open(dir); StoreTables tables = new StoreTables(store)) {
            store.createTable(schema);
            tables.mayCreate = false; // a mutated table name is refused, not a new table
            long rows = 0;
            for (int r = 0; r < REQUESTS; r++) {
                final String[] good = {goodLine(rnd), goodLine(rnd), goodLine(rnd)};
                final String mutated = mutate(goodLine(rnd), rnd);
                final String body = good[0] + "\n" + good[1] + "\n" + good[2] + "\n" + mutated + "\n";
                List<String> expected;
                boolean refuse = false;
                try {
                    expected = oracle.row(mutated);
                } catch (final LineOracle.Refused e) {
                    expected = null;
                    refuse = true;
                }
                final byte[] b = body.getBytes(StandardCharsets.UTF_8);
                try {
                    ingest.ingest(b, b.length, Precision.NANOS, NOW, tables);
                    if (refuse) {
                        fail("request %d: accepted a line the oracle refuses: %s", r, show(mutated));
                    }
                    final List<List<String>> stored = tables.rows("all", rows);
                    assertThat(stored).as("request %d", r).hasSize(expected == null ? 3 : 4);
                    if (expected != null) {
                        assertThat(stored.get(3)).as("request %d: %s", r, show(mutated)).isEqualTo(expected);
                    }
                    rows += stored.size();
                    accepted++;
                } catch (final LineProtocolException e) {
                    if (!refuse) {
                        fail("request %d: refused a line the oracle stores as %s: %s (%s)", r, expected,
                            show(mutated), e.getMessage());
                    }
                    assertThat(e.line()).as("request %d: %s: %s", r, show(mutated), e.getMessage()).isEqualTo(4);
                    try (TableReader reader = store.table("all").reader()) {
                        assertThat(reader.snapshot().rowCount()).as("request %d kept nothing", r).isEqualTo(rows);
                    }
                    refused++;
                }
            }
        }
        // the mutations hit both ways often enough to mean something
        assertThat(accepted).isGreaterThan(REQUESTS / 10);
        assertThat(refused).isGreaterThan(REQUESTS / 10);
    }

    private static String show(final String line) {
        return "'" + line.replace("\r", "\\r").replace("\t", "\\t") + "'";
    }

    /** A line of table all naming a random subset of its columns, each in a random valid form. */
    static String goodLine(final Random rnd) {
        final StringBuilder b = new StringBuilder("all");
        if (rnd.nextBoolean()) {
            b.append(",s=").append(rnd.nextBoolean() ? "XLON" : "a\\ b\\,c\\=d");
        }
        if (rnd.nextBoolean()) {
            b.append(",c=").append(rnd.nextBoolean() ? "B" : "S");
        }
        final StringBuilder f = new StringBuilder();
        if (rnd.nextInt(3) == 0) {
            f.append(",b=").append(rnd.nextBoolean() ? (rnd.nextInt(255) - 127) + "i"
                : rnd.nextBoolean() ? "t" : "FALSE");
        }
        if (rnd.nextInt(3) == 0) {
            f.append(",h=").append(rnd.nextInt(65535) - 32767).append(rnd.nextBoolean() ? "i" : "");
        }
        if (rnd.nextInt(3) == 0) {
            f.append(",n=").append(rnd.nextInt() | 1).append('i');
        }
        if (rnd.nextBoolean()) {
            f.append(",l=").append(rnd.nextLong() >> rnd.nextInt(64)).append('i');
        }
        if (rnd.nextBoolean()) {
            // at most 2^42 as a mantissa of any scale up to 6: within decimal(6)'s range
            final BigDecimal d = BigDecimal.valueOf(rnd.nextLong() >> (rnd.nextInt(40) + 22), rnd.nextInt(7));
            f.append(",d=").append(rnd.nextInt(4) == 0 ? d.toString() : d.toPlainString());
        }
        if (rnd.nextBoolean()) {
            f.append(",f=").append(rnd.nextBoolean() ? Double.toString(rnd.nextGaussian() * 1e3)
                : Long.toString(rnd.nextInt(1000)));
        }
        if (rnd.nextInt(4) == 0) {
            f.append(",t=").append(1_700_000_000_000_000L + rnd.nextInt(1_000_000)).append('t');
        }
        if (rnd.nextInt(4) == 0) {
            f.append(",s=\"q\\\"x\\\\y, z\"");
            if (b.indexOf(",s=") >= 0) {
                f.setLength(f.length() - ",s=\"q\\\"x\\\\y, z\"".length());
            }
        }
        if (f.length() == 0) {
            f.append(",l=1i");
        }
        b.append(' ').append(f, 1, f.length());
        if (rnd.nextBoolean()) {
            b.append(' ').append(1_795_000_000_000_000_000L + rnd.nextInt(Integer.MAX_VALUE));
        }
        return b.toString();
    }

    static String mutate(final String line, final Random rnd) {
        final StringBuilder b = new StringBuilder(line);
        final int edits = 1 + rnd.nextInt(2);
        for (int e = 0; e < edits; e++) {
            final int at = rnd.nextInt(b.length() + 1);
            final char c = ALPHABET.charAt(rnd.nextInt(ALPHABET.length()));
            switch (rnd.nextInt(5)) {
                case 0:
                    b.insert(at, c);
                    break;
                case 1:
                    if (at < b.length()) {
                        b.deleteCharAt(at);
                    }
                    break;
                case 2:
                    if (at < b.length()) {
                        b.setCharAt(at, c);
                    }
                    break;
                case 3:
                    final int to = Math.min(b.length(), at + 1 + rnd.nextInt(4));
                    b.insert(at, b.substring(at, to));
                    break;
                default:
                    if (at + 1 < b.length()) {
                        final char x = b.charAt(at);
                        b.setCharAt(at, b.charAt(at + 1));
                        b.setCharAt(at + 1, x);
                    }
            }
        }
        return b.toString();
    }
}
