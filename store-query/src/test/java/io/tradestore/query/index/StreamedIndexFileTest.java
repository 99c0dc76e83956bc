package io.tradestore.query.index;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TestRows;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.spi.Deadline;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An index file a seal writes a bitmap at a time holds the same bytes, checksum included, as the heap image a query's
 * build makes: for every indexable column of the all-types table (symbols, chars, integers of each width, nulls), both
 * those worth indexing and those that are not; and it loads.
 */
@ExtendWith(TestRows.NoLeaks.class)
class StreamedIndexFileTest {
    @TempDir
    Path dir;

    @Test
    void shouldWriteTheBytesOfTheHeapImage() throws Exception {
        final int segmentRows = 1 << 16;
        final Schema schema = TestRows.allTypes(Layout.COLUMN, segmentRows);
        TestRows.fill(dir, schema, segmentRows + 100);
        try (Store store = Store.open(dir); TableReader reader = store.table(schema.name()).reader()) {
            final TableSnapshot snap = reader.snapshot();
            int indexed = 0;
            for (int ci = 0; ci < schema.columnCount(); ci++) {
                final Column c = schema.column(ci);
                if (!BitmapIndexes.indexable(c)) {
                    continue;
                }
                final ByteBuffer image = BitmapIndexFiles.build(snap.segment(0), c, segmentRows, dir.resolve("x"),
                    Deadline.NONE);
                final Path streamed = dir.resolve(c.name() + ".streamed");
                BitmapIndexFiles.buildFile(snap.segment(0), c, segmentRows, streamed, Deadline.NONE);
                final byte[] expected = new byte[image.capacity()];
                image.duplicate().position(0).get(expected);
                assertThat(Files.readAllBytes(streamed)).as(c.name()).isEqualTo(expected);
                final SegmentIndex loaded = BitmapIndexFiles.load(streamed, segmentRows);
                assertThat(loaded).as(c.name()).isNotNull();
                indexed += loaded == SegmentIndex.NONE ? 0 : 1;
            }
            assertThat(indexed).isGreaterThan(2);
        }
    }
}
