package io.tradestore.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.tradestore.core.FileDamage;
import io.tradestore.core.Store;
import io.tradestore.core.TableReader;
import io.tradestore.core.TestRows;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.segment.ZoneMapDescriptor;
import io.tradestore.core.txn.TxnDescriptor;
import io.tradestore.query.index.BitmapIndexDescriptor;

/**
 * Damaged files under a running engine: a query either answers or fails with a coded {@link QueryException} whose
 * message names the damaged file; never an uncoded exception, never "internal error" for damage the engine can see,
 * never a JVM crash. Column values carry no checksum (docs/file-format.md), so a flipped byte in a value that breaks
 * nothing the engine checks changes answers silently; {@code tradestore check} finds those that break a dictionary or a
 * zone map. More damage than the build's 80 files per layout: {@code -Dtradestore.damage.iterations=N
 * -Dtradestore.damage.seed=S}.
 */
class DamagedStoreTest {
    private static final String[] QUERIES = {
        "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"q\",\"op\":\"sum\",\"col\":\"qu"
            + "antity\"}]}",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM3\"},\"aggs\":[{\"name"
        + "\":\"n\",\"op\":\"count\"},"
            + "{\"name\":\"lo\",\"op\":\"min\",\"col\":\"price\"}]}",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"in\",\"col\":\"venue\",\"values\":[\"XLON\",\"BATS\"]},\"groupBy\""
        + ":[\"side\"],"
            + "\"aggs\":[{\"name\":\"v\",\"op\":\"vwap\"}]}",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"client_id\",\"value\":7},\"aggs\":[{\"name\":\"n\","
        + "\"op\":\"count\"}]}",
        "{\"table\":\"trades\",\"groupBy\":[\"instrument\"],\"aggs\":[{\"name\":\"x\",\"op\":\"sum\",\"col\":\"price*q"
        + "uantity\"}],"
            + "\"orderBy\":[{\"col\":\"x\",\"desc\":true}],\"limit\":5}",
        "{\"table\":\"trades\",\"groupBy\":[\"venue\",{\"bucket\":\"1h\",\"col\":\"ts\",\"as\":\"h\"}],\"aggs\":[{\"na"
        + "me\":\"n\",\"op\":\"count\"}]}",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"range\",\"col\":\"price\",\"gte\":10,\"lt\":200},\"aggs\":[{\"name"
        + "\":\"a\",\"op\":\"min\","
            + "\"col\":\"ts\"},{\"name\":\"b\",\"op\":\"max\",\"col\":\"ts\"}]}",
        "{\"table\":\"trades\",\"columns\":[\"ts\",\"instrument\",\"price\"],\"filter\":{\"op\":\"eq\",\"col\":\"instr"
        + "ument\",\"value\":\"SYM1\"},"
            + "\"orderBy\":[{\"col\":\"ts\",\"desc\":true}],\"limit\":10}",
    };

    @TempDir
    Path dir;

    @Test
    void shouldNameTheFileWhenASymbolCodeLiesOutsideItsDictionary() throws IOException {
        final Path store = writeStore(Layout.COLUMN);
        final Path file = store.resolve("trades").resolve("seg-000002").resolve("instrument.d");
        // row 300 of segment 2 (4-byte codes): far beyond the ~50 instruments
        FileDamage.putInt(file, 4L * 300, 0x7000_0000);
        try (Store s = Store.open(store); QueryEngine e = new QueryEngine(s, 2)) {
            assertThatThrownBy(() -> e.execute(QUERIES[4])).isInstanceOfSatisfying(QueryException.class, x -> {
                assertThat(x.code()).isEqualTo(ErrorCode.INTERNAL);
                assertThat(x.getMessage()).contains("damaged data in trades: segment 2 block 1 column 'instrument'")
                    .contains(file.toString())
                    .contains("rows 256-511").contains("outside the committed dictionary")
                    .doesNotContain("internal error");
            });
            // queries that do not use the damaged codes still answer
            assertThat(e.execute(QUERIES[0]).value(0, 0)).isEqualTo(11_000L);
        }
    }

    /**
     * A zone-map entry damaged in place used to make a time-range count skip the rows it covers, without an error: the
     * max of ts in block 3 of segment 1 loses its top byte, so the block looked older than the range.
     */
    @Test
    void shouldNameTheZoneMapWhenAnEntryIsDamagedInPlace() throws IOException {
        final Path store = writeStore(Layout.COLUMN);
        final String count = "{\"table\":\"trades\",\"time\":{\"from\":\""
            + Instant.ofEpochSecond(TradeData.T0 / 1_000_000_000L + 2048)
            + "\",\"to\":\"" + Instant.ofEpochSecond(TradeData.T0 / 1_000_000_000L + 4096)
            + "\"},\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";
        final long expected;
        try (Store s = Store.open(store); QueryEngine e = new QueryEngine(s, 2)) {
            expected = (Long) e.execute(count).value(0, 0);
            assertThat(expected).as("segment 1's rows with a ts").isGreaterThan(2000L);
        }
        final Path zone = store.resolve("trades").resolve("seg-000001").resolve(ZoneMapDescriptor.FILE_NAME);
        final long maxTs = ZoneMapDescriptor.entryOffset(8, 3, 1) + 8;
        assertThat(FileDamage.getLong(zone, maxTs) >>> 56).as("the top byte of a ts in 2026").isEqualTo(0x18);
        FileDamage.xor(zone, maxTs + 7, 0x18);
        try (Store s = Store.open(store); QueryEngine e = new QueryEngine(s, 2)) {
            assertThatThrownBy(() -> e.execute(count)).isInstanceOfSatisfying(QueryException.class, x -> {
                assertThat(x.code()).isEqualTo(ErrorCode.INTERNAL);
                assertThat(x.getMessage())
                    .startsWith("cannot read table 'trades': damaged zone map " + zone + ": the entries of block 3"
                    + " (rows 768-1023 of the segment) of segment 1 fail their checksum");
            });
        }
    }

    /**
     * Queries that read quantity (in the ROW layout, rows.d) in segment 2 on every path: no cached summary answers
     * them.
     */
    private static final String[] READING_QUANTITY = {
        "{\"table\":\"trades\",\"groupBy\":[\"side\"],\"aggs\":[{\"name\":\"q\",\"op\":\"sum\",\"col\":\"quantity\"}]}",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"range\",\"col\":\"quantity\",\"gte\":10,\"lt\":2000},\"aggs\":[{\""
        + "name\":\"n\","
            + "\"op\":\"count\"}]}",
    };

    /**
     * A column file cut short while an engine has it mapped (truncate -s 0 under a running server): reading the mapping
     * past the file's end faults, and the JVM throws an InternalError naming no file; on JDK 17 not at the read but at
     * the thread's next safepoint, after the query may have answered from the bytes the faulting reads returned (this
     * test, without the change, failed that way: the error came out of the next line of the test). The reader's
     * snapshot checks the lengths of its files first (here at every query: {@link TableReader#FILE_CHECK_PROPERTY} 0),
     * so every query fails as a store problem naming the file before it reads, and the JVM lives on.
     */
    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldNameAColumnFileTruncatedUnderAnOpenEngineBeforeReadingIt(final Layout layout) throws IOException {
        assertTruncationNamed(layout, "0");
    }

    /**
     * Without the check at every snapshot (an hour between checks here), the failure path names the file: the engine
     * asks the files' lengths when a query fails, an InternalError included (a worker's arrives wrapped). Only where
     * the JVM throws the fault's error inside the query: JDK 25 does at the next safepoint poll of the reading loop,
     * JDK 17 at the next safepoint of the thread, which may come after the query returned.
     */
    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldNameAColumnFileTruncatedUnderAnOpenEngineWhenAReadFaults(final Layout layout) throws IOException {
        assumeTrue(Runtime.version().feature() >= 25,
            "JDK 17 throws the fault's InternalError at a later safepoint, outside the query");
        assertTruncationNamed(layout, "3600000");
    }

    private void assertTruncationNamed(final Layout layout, final String fileCheckMs) throws IOException {
        final Path store = writeStore(layout);
        final Path victim = store.resolve("trades").resolve("seg-000002")
            .resolve(layout == Layout.ROW ? "rows.d" : "quantity.d");
        try (TestRows.TemporaryProperty check =
            new TestRows.TemporaryProperty(TableReader.FILE_CHECK_PROPERTY, fileCheckMs);
             Store s = Store.open(store); QueryEngine alone = new QueryEngine(s, 1); QueryEngine split =
                 new QueryEngine(s, 2)) {
            // one thread: a fault is the calling thread's; split into morsels of a block on two threads: often a
            // worker's
            split.smallQueryRows(0);
            split.morselRows(256);
            for (final QueryEngine e : new QueryEngine[] {alone, split}) {
                for (final String q : READING_QUANTITY) {
                    e.execute(q); // compiled and warm, as in a running server
                }
            }
            FileDamage.truncate(victim, 0);
            for (int round = 0; round < 3; round++) {
                for (final QueryEngine e : new QueryEngine[] {alone, split}) {
                    for (final String q : READING_QUANTITY) {
                        assertThatThrownBy(() -> e.execute(q)).as(q).isInstanceOfSatisfying(QueryException.class, x -> {
                            assertThat(x.code()).isEqualTo(ErrorCode.INTERNAL);
                            assertThat(x.storeProblem()).as(x.getMessage()).isTrue();
                            assertThat(x.getMessage())
                                .contains("damaged data in trades: segment 2 file " + victim
                                + " is 0 bytes, shorter than the "
                                + (layout == Layout.ROW ? 56 : 8) * 2048
                                + " bytes mapped (truncated while mapped); restore the table from a copy,"
                                + " or reload it");
                        });
                    }
                }
            }
        }
    }

    @Test
    void shouldReportATableWhoseFilesDoNotOpenAsAServerErrorNotAsAnUnknownTable() throws IOException {
        final Path store = writeStore(Layout.COLUMN);
        final Path txn = store.resolve("trades").resolve(TxnDescriptor.FILE_NAME);
        FileDamage.truncate(txn, 20);
        try (Store s = Store.open(store); QueryEngine e = new QueryEngine(s, 2)) {
            assertThatThrownBy(() -> e.execute(QUERIES[0])).isInstanceOfSatisfying(QueryException.class, x -> {
                assertThat(x.code()).isEqualTo(ErrorCode.INTERNAL);
                assertThat(x.code().httpStatus()).isEqualTo(500);
                assertThat(x.getMessage()).startsWith("cannot read table 'trades': ").contains(txn.toString());
            });
        }
    }

    @Test
    void shouldRebuildABitmapIndexWhoseHeaderIsDamaged() throws IOException {
        final Path store = writeStore(Layout.COLUMN);
        final Path index = store.resolve("trades").resolve("seg-000001")
            .resolve("instrument" + BitmapIndexDescriptor.SUFFIX);
        FileDamage.write(index, BitmapIndexDescriptor.MIN_OFFSET, (byte) 3); // every lookup would land three slots off
        try (Store s = Store.open(store); QueryEngine e = new QueryEngine(s, 2); QueryEngine scan =
        new QueryEngine(s, 2)) {
            e.indexes().minSegmentRows(0);
            scan.useIndexes(false);
            for (final String q : new String[] {QUERIES[1], QUERIES[7]}) {
                final QueryResult r = TradeData.assertSameAnswers(e, scan, q);
                assertThat(r.stats().indexedSegments()).as(q).isPositive();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldAnswerOrNameTheDamagedFileWhateverFileIsDamaged(final Layout layout) throws IOException {
        final Path pristine = writeStore(layout);
        final List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.walk(pristine)) {
            s.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().equals("_lock")).forEach(files::add);
        }
        assertThat(files).as("bitmap indexes and summaries on disk")
            .anyMatch(p -> p.getFileName().toString().endsWith(BitmapIndexDescriptor.SUFFIX));
        final SplittableRandom rnd =
            new SplittableRandom(layout.ordinal() + Long.getLong("tradestore.damage.seed", 11));
        int answered = 0;
        int named = 0;
        for (int it = 0, n = Integer.getInteger("tradestore.damage.iterations", 80); it < n; it++) {
            final Path work = dir.resolve("w" + it);
            FileDamage.copyTree(pristine, work);
            final Path victim = work.resolve(pristine.relativize(files.get(rnd.nextInt(files.size()))));
            final String how = damage(victim, rnd);
            final String what = "iteration " + it + ": " + how + " " + work.relativize(victim);
            try (Store s = Store.open(work); QueryEngine e = new QueryEngine(s, 2)) {
                e.indexes().minSegmentRows(0);
                for (final String q : QUERIES) {
                    e.execute(q);
                }
                answered++;
            } catch (final QueryException x) {
                assertThat(x.code()).as(what).isEqualTo(ErrorCode.INTERNAL);
                assertThat(x.getMessage()).as(what).doesNotContain("internal error");
                final String name = victim.getFileName().toString();
                // a changed schema file is found as a transaction record that does not belong to it
                assertThat(x.getMessage().contains(name) || name.equals("_schema.json") && x.getMessage()
                    .contains("_txn"))
                    .as(what + ": " + x.getMessage()).isTrue();
                named++;
            } catch (final RuntimeException x) {
                fail(what + ": " + x, x);
            }
            FileDamage.deleteTree(work);
        }
        assertThat(answered).as("damage that leaves answers possible").isPositive();
        assertThat(named).as("damage reported with the file").isPositive();
    }

    private Path writeStore(final Layout layout) {
        final Path store = dir.resolve("pristine-" + layout);
        try (Store s = Store.open(store)) {
            new TradeData().write(s, TradeData.schema(layout, 2048, 256), 11_000, 1, true);
            try (QueryEngine e = new QueryEngine(s, 2)) {
                e.indexes().minSegmentRows(0);
                for (final String q : QUERIES) {
                    e.execute(q);
                }
            }
        }
        return store;
    }

    /** Damages a file: flips bits or writes junk in its first 4 KB, flips a byte anywhere, or truncates it. */
    private static String damage(final Path f, final SplittableRandom rnd) throws IOException {
        final long len = Files.size(f);
        switch (len == 0 ? 2 : rnd.nextInt(4)) {
            case 0:
                for (int i = 0, n = 1 + rnd.nextInt(4); i < n; i++) {
                    FileDamage.xor(f, rnd.nextLong(Math.min(len, 4096)), 1 << rnd.nextInt(8));
                }
                return "bits flipped in the head of";
            case 1:
                FileDamage.xor(f, rnd.nextLong(len), 0xFF);
                return "a byte flipped in";
            case 2:
                FileDamage.truncate(f, len == 0 ? 0 : rnd.nextLong(len));
                return "truncated";
            default:
                final byte[] junk = new byte[8];
                rnd.nextBytes(junk);
                FileDamage.write(f, rnd.nextLong(Math.min(len, 4096)), junk);
                return "junk written into";
        }
    }
}
