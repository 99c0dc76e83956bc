package io.tradestore.query;

import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.function.LongPredicate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An AND whose ranges on one column no value satisfies at once keeps no row and reads nothing; beside it in an OR, the
 * other arguments alone decide which blocks are read. Ranges that do meet, and negations of two-sided ranges, are left
 * to the scan; every answer matches a plain evaluation, nulls included.
 */
class ContradictoryRangesTest {
    private static final int ROWS = 50_000;

    @TempDir
    Path dir;

    private final long[] n = new long[ROWS];

    @Test
    void shouldReadNothingForRangesThatCannotMeet() {
        final SplittableRandom r = new SplittableRandom(20_261_130L);
        final Schema schema = Schema.builder("t").layout(Layout.COLUMN).segmentRows(16_384).blockRows(1024)
            .column("n", "i64").column("id", "i64").build();
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.createTable(schema).writer()) {
                for (int row = 0; row < ROWS; row++) {
                    n[row] = r.nextInt(10) == 0 ? Long.MIN_VALUE : r.nextInt(-20, 40);
                    TestRows.appendLongs(w, n[row], row);
                }
                w.commit();
            }
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                final String never = "{\"op\":\"and\",\"args\":[{\"op\":\"not\",\"arg\":"
                    + "{\"op\":\"range\",\"col\":\"n\",\"gte\":12}},{\"op\":\"eq\",\"col\":\"n\",\"value\":14}]}";
                final QueryResult none = engine.execute(count(never));
                assertThat(none.value(0, 0)).isEqualTo(0L);
                assertThat(none.stats().segmentsScanned()).isZero();
                // OR'ed with a range of ids, which are sorted: only that range's blocks are read
                final String ids = "{\"op\":\"range\",\"col\":\"id\",\"gte\":20000,\"lt\":21000}";
                final QueryResult either = engine.execute(
                    count("{\"op\":\"or\",\"args\":[" + never + "," + ids + "]}"));
                assertThat(either.value(0, 0)).isEqualTo(1000L);
                assertThat(either.stats().rowsScanned()).isEqualTo(engine.execute(count(ids)).stats().rowsScanned())
                    .isLessThan(ROWS);
                for (int q = 0; q < 400; q++) {
                    final String a = leaf(r);
                    final String b = leaf(r);
                    final long expected = countWhere(a, b);
                    final String query = count("{\"op\":\"and\",\"args\":[" + a + "," + b + "]}");
                    assertThat(engine.execute(query).value(0, 0)).as(query).isEqualTo(expected);
                }
            }
        }
    }

    private static String count(final String filter) {
        return "{\"table\":\"t\",\"filter\":" + filter + ",\"aggs\":[{\"name\":\"c\",\"op\":\"count\"}]}";
    }

    /** A range on n, one- or two-sided, possibly negated; its predicate is rebuilt from the text by countWhere. */
    private static String leaf(final SplittableRandom r) {
        final int lo = r.nextInt(-25, 45);
        final int hi = r.nextInt(-25, 45);
        final String range = switch (r.nextInt(3)) {
            case 0 -> "{\"op\":\"range\",\"col\":\"n\",\"gte\":" + lo + "}";
            case 1 -> "{\"op\":\"range\",\"col\":\"n\",\"lt\":" + hi + "}";
            default -> "{\"op\":\"range\",\"col\":\"n\",\"gte\":" + lo + ",\"lte\":" + hi + "}";
        };
        return r.nextBoolean() ? "{\"op\":\"not\",\"arg\":" + range + "}" : range;
    }

    private long countWhere(final String a, final String b) {
        final LongPredicate pa = predicate(a);
        final LongPredicate pb = predicate(b);
        long c = 0;
        for (final long v : n) {
            c += v != Long.MIN_VALUE && pa.test(v) && pb.test(v) ? 1 : 0;
        }
        return c;
    }

    private static LongPredicate predicate(final String leaf) {
        final boolean not = leaf.startsWith("{\"op\":\"not\"");
        final long gte = bound(leaf, "\"gte\":", Long.MIN_VALUE);
        final long lt = bound(leaf, "\"lt\":", Long.MAX_VALUE);
        final long lte = bound(leaf, "\"lte\":", Long.MAX_VALUE);
        final LongPredicate in = v -> v >= gte && v < lt && v <= lte;
        return not ? in.negate() : in;
    }

    private static long bound(final String s, final String key, final long absent) {
        final int at = s.indexOf(key);
        if (at < 0) {
            return absent;
        }
        int end = at + key.length();
        while (end < s.length() && (Character.isDigit(s.charAt(end)) || s.charAt(end) == '-')) {
            end++;
        }
        return Long.parseLong(s.substring(at + key.length(), end));
    }
}
