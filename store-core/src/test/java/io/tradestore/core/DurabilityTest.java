package io.tradestore.core;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.memory.FileAllocator;
import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;

/** Both durability modes commit, survive reopen and leave nothing mapped; SYNC goes through msync and fsync. */
@ExtendWith(TestRows.NoLeaks.class)
class DurabilityTest {
    @TempDir
    Path dir;

    @Test
    void shouldHaveRealBlockAllocationAndMsyncOnThisPlatform() {
        assertThat(FileAllocator.platform().describe()).isEqualTo("posix_fallocate");
        assertThat(MappedFile.msyncAvailable()).isTrue();
    }

    @ParameterizedTest
    @CsvSource({"SYNC,COLUMN,8", "SYNC,ROW,64", "SYNC,COLUMN,65536", "NONE,COLUMN,8", "NONE,ROW,65536"})
    void shouldCommitAndReopenInEveryDurabilityMode(final Durability durability, final Layout layout,
        final int segmentRows) {
        final Schema schema = TestRows.allTypes(layout, segmentRows);
        final long rows = segmentRows * 2L + 5;
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = table.writer(durability); TableReader reader = table.reader()) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                long next = 0;
                for (long commitAt : new long[] {1, segmentRows - 1L, segmentRows, segmentRows + 3L, rows}) {
                    while (next < commitAt) {
                        TestRows.write(w.append(f), next++);
                    }
                    w.commit();
                    assertThat(reader.snapshot().rowCount()).isEqualTo(commitAt);
                }
                // a commit of nothing but dictionary entries is published too
                w.dictionary(7).intern("only-in-the-dictionary");
                w.commit();
                assertThat(reader.snapshot().findSymbol(7, "only-in-the-dictionary")).isNotNegative();
            }
        }
        try (Store store = Store.open(dir); TableReader reader = store.table("all_types").reader()) {
            final TableSnapshot snap = reader.snapshot();
            assertThat(snap.rowCount()).isEqualTo(rows);
            TestRows.verifyRows(snap, 0, rows);
            assertThat(snap.findSymbol(7, "only-in-the-dictionary")).isNotNegative();
            TestRows.assertZonesExact(snap);
        }
    }
}
