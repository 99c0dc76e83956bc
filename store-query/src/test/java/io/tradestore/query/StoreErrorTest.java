package io.tradestore.query;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TestRows;
import io.tradestore.core.schema.Layout;
import io.tradestore.query.index.BitmapIndexes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A store error while a query runs (here: a bitmap index file that cannot be written, because a directory holds its
 * place) is INTERNAL marked as a store problem, with the store's message naming the file, so that a server shows it
 * instead of hiding it as a bug; and the engine goes on answering once the cause is gone.
 */
class StoreErrorTest {
    private static final String QUERY = "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM3\"},"
        + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"v\",\"op\":\"sum\",\"col\":\"quantity\"}]}";
    @TempDir
    Path dir;

    @Test
    void shouldReportAStoreErrorWithTheStoresMessage() throws Exception {
        try (Store store = Store.open(dir)) {
            new TradeData().write(store, TradeData.schema(Layout.COLUMN, 4096, 1024), 3 * 4096 + 100, 7, false);
            try (QueryEngine engine = new QueryEngine(store, 2); QueryEngine scanning = new QueryEngine(store, 2)) {
                engine.indexes().minSegmentRows(1);
                scanning.useIndexes(false);
                final TableSnapshot snap = engine.snapshot("trades");
                final Path index = BitmapIndexes.file(snap.segment(0), snap.schema().column(snap.schema().indexOf("instrument")));
                Files.createDirectories(index.resolve("in-the-way"));
                final QueryException e = catchThrowableOfType(QueryException.class, () -> engine.execute(QUERY));
                assertThat(e).as("the query answered").isNotNull();
                assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL);
                assertThat(e.storeProblem()).as("shown as the store's problem, not hidden as a bug").isTrue();
                assertThat(e.getMessage()).startsWith("store error while running the query: cannot write bitmap index " + index + ": ");
                Files.delete(index.resolve("in-the-way"));
                Files.delete(index);
                TradeData.assertSameResults(engine.execute(QUERY), scanning.execute(QUERY), QUERY);
                assertThat(Files.isRegularFile(index)).as("index written").isTrue();
            }
        }
        TestRows.assertNoNativeLeaks();
    }
}
