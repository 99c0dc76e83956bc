package io.tradestore.core;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.schema.Layout;

import static org.assertj.core.api.Assertions.assertThat;

/** Closing a store releases every mapping and allocation, whatever was left open inside it. */
class NativeLeakTest {
    @TempDir
    Path dir;

    @Test
    void shouldReleaseEverythingWhenTheStoreClosesWithWritersReadersAndAPrecreatedSegmentOpen() {
        TestRows.assertNoNativeLeaks();
        final Store store = Store.open(dir);
        final Table column = store.createTable(TestRows.allTypes(Layout.COLUMN, 1 << 16));
        final TableWriter w = column.writer();
        final AllTypesFlyweight f = new AllTypesFlyweight();
        TestRows.append(w, f, 0, 70_000);
        w.commit();
        final TableReader r1 = column.reader();
        final TableReader r2 = column.reader();
        assertThat(r1.snapshot().segmentCount()).isEqualTo(2);
        r2.snapshot();
        r2.close();
        TestRows.fill(dir.resolve("other"), TestRows.allTypes(Layout.ROW, 8), 30);
        assertThat(MappedFile.mappingCount()).isPositive();
        store.close();
        TestRows.assertNoNativeLeaks();
        store.close();
        r1.close();
        w.close();
        TestRows.assertNoNativeLeaks();
    }
}
