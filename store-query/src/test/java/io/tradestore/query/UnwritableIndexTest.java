package io.tradestore.query;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TestRows;
import io.tradestore.core.schema.Layout;
import io.tradestore.query.index.BitmapIndexes;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A store whose bitmap index files cannot be written (segment directories made read-only; or, for a user whom
 * permissions do not stop, such as root, a directory in the place of each index file) answers filters on indexed
 * columns as a scan does: the indexes a query builds are kept in memory within the summaries' budget, and the table
 * gets one warning, not one per query.
 */
class UnwritableIndexTest {
    private static final String[] QUERIES = {
        "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"client_id\",\"value\":5},"
            + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"v\",\"op\":\"sum\",\"col\":\"quantity\"}]}",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"in\",\"col\":\"side\",\"values\":[\"S\"]},\"groupBy\":[\"venue\"],"
            + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"p\",\"op\":\"max\",\"col\":\"price\"}]}",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"and\",\"args\":[{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\""
        + "SYM3\"},"
            + "{\"op\":\"ne\",\"col\":\"venue\",\"value\":\"XPAR\"}]},\"groupBy\":[\"side\"],\"aggs\":[{\"name\":\"n\""
            + ",\"op\":\"count\"}]}",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"in\",\"col\":\"client_id\",\"values\":[1,2,40]},\"columns\":[\"tra"
        + "de_id\",\"price\"],"
            + "\"orderBy\":[{\"col\":\"trade_id\"}],\"limit\":50}",
    };
    private static final Set<PosixFilePermission> READ_ONLY = PosixFilePermissions.fromString("r-xr-xr-x");
    private static final Set<PosixFilePermission> WRITABLE = PosixFilePermissions.fromString("rwxr-xr-x");
    @TempDir
    Path dir;
    private final List<Path> readOnly = new ArrayList<>();
    /** Kept here: java.util.logging holds its loggers weakly, and the handler must stay attached for the whole test. */
    private final Logger log = Logger.getLogger(BitmapIndexes.class.getName());
    private final List<LogRecord> warnings = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(final LogRecord r) {
            if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                synchronized (warnings) {
                    warnings.add(r);
                }
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private Store store;
    private QueryEngine engine;
    private QueryEngine scanning;
    private BitmapIndexes indexes;
    private TableSnapshot snap;

    @BeforeEach
    void setUp() throws IOException {
        log.addHandler(capture);
        log.setUseParentHandlers(false);
        store = Store.open(dir);
        new TradeData().write(store, TradeData.schema(Layout.COLUMN, 4096, 1024), 3 * 4096 + 100, 7, true);
        engine = new QueryEngine(store, 2);
        scanning = new QueryEngine(store, 2);
        indexes = engine.indexes();
        indexes.minSegmentRows(1);
        scanning.useIndexes(false);
        snap = engine.snapshot("trades");
        makeIndexFilesUnwritable();
    }

    @AfterEach
    void tearDown() throws IOException {
        log.removeHandler(capture);
        log.setUseParentHandlers(true);
        engine.close();
        scanning.close();
        store.close();
        for (final Path p : readOnly) {
            Files.setPosixFilePermissions(p, WRITABLE); // so that the temp directory can be deleted
        }
        TestRows.assertNoNativeLeaks();
    }

    @Test
    void shouldAnswerFromIndexesHeldInMemoryWhenTheirFilesCannotBeWritten() {
        for (final String q : QUERIES) {
            TradeData.assertSameAnswers(engine, scanning, q);
        }
        final long builds = indexes.builds();
        assertThat(builds).as("indexes built").isGreaterThan(0);
        assertThat(indexes.indexesInMemory()).as("indexes held in memory").isGreaterThan(0);
        assertThat(indexes.summaryBytes()).as("held indexes counted in the summaries' budget").isGreaterThan(0);
        for (final String q : QUERIES) {
            TradeData.assertSameAnswers(engine, scanning, q);
        }
        assertThat(indexes.builds()).as("the second round answered from the held indexes, none built again")
            .isEqualTo(builds);
        assertNoIndexFile();
        assertThat(warnings).as("one warning for the table, not one per query or index").hasSize(1);
        assertThat(warnings.get(0).getMessage())
            .contains("bitmap indexes of table directory " + snap.segment(0).directory().getParent())
            .contains("cannot write bitmap index");

        indexes.clear();
        assertThat(indexes.summaryBytes()).as("clear() gives the held bytes back").isZero();
        TradeData.assertSameAnswers(engine, scanning, QUERIES[0]);
        assertThat(warnings).as("still one warning after the indexes were built again").hasSize(1);
    }

    @Test
    void shouldScanWhatTheBudgetCannotHoldAndEvictIdleHeldIndexes() {
        indexes.summaryBudget(0);
        TradeData.assertSameAnswers(engine, scanning, QUERIES[0]);
        final long builds = indexes.builds();
        assertThat(builds).as("the first query built its indexes and answered from them").isGreaterThan(0);
        assertThat(indexes.indexesInMemory()).as("no room to hold them").isZero();
        TradeData.assertSameAnswers(engine, scanning, QUERIES[0]);
        assertThat(indexes.builds()).as("no room: the next query scans instead of building them again")
            .isEqualTo(builds);

        indexes.summaryBudget(BitmapIndexes.DEFAULT_SUMMARY_BUDGET);
        TradeData.assertSameAnswers(engine, scanning, QUERIES[0]);
        assertThat(indexes.indexesInMemory()).as("held once the budget has room").isGreaterThan(0);

        // room for what is held now and no more: the instrument and venue indexes take the place of the idle client
        // ones
        indexes.summaryIdleMillis(0);
        final long budget = indexes.summaryBytes();
        indexes.summaryBudget(budget);
        final long evictions = indexes.summaryEvictions();
        TradeData.assertSameAnswers(engine, scanning, QUERIES[2]);
        assertThat(indexes.summaryEvictions()).as("idle held indexes evicted to make room").isGreaterThan(evictions);
        assertThat(indexes.summaryBytes()).as("within the budget").isLessThanOrEqualTo(budget);
        TradeData.assertSameAnswers(engine, scanning, QUERIES[0]);
        assertNoIndexFile();
        assertThat(warnings).hasSize(1);
    }

    /**
     * Makes every segment directory read-only; where that does not stop a write (root), puts a directory in the place
     * of every index file instead, which no user can rename a file over.
     */
    private void makeIndexFilesUnwritable() throws IOException {
        boolean permissionsStopWrites = true;
        for (int i = 0; i < snap.segmentCount(); i++) {
            final Path d = snap.segment(i).directory();
            Files.setPosixFilePermissions(d, READ_ONLY);
            readOnly.add(d);
            final Path probe = d.resolve("write-probe");
            try {
                Files.createFile(probe);
                Files.delete(probe);
                permissionsStopWrites = false;
            } catch (final IOException expected) {
                // read-only for this user: the index files cannot be written
            }
        }
        if (permissionsStopWrites) {
            return;
        }
        for (final Path d : readOnly) {
            Files.setPosixFilePermissions(d, WRITABLE);
        }
        readOnly.clear();
        for (int i = 0; i < snap.segmentCount(); i++) {
            for (int c = 0; c < snap.schema().columnCount(); c++) {
                Files.createDirectories(BitmapIndexes.file(snap.segment(i), snap.schema().column(c))
                    .resolve("in-the-way"));
            }
        }
    }

    private void assertNoIndexFile() {
        for (int i = 0; i < snap.segmentCount(); i++) {
            for (int c = 0; c < snap.schema().columnCount(); c++) {
                final Path f = BitmapIndexes.file(snap.segment(i), snap.schema().column(c));
                assertThat(Files.isRegularFile(f)).as("%s written", f).isFalse();
            }
        }
    }
}
