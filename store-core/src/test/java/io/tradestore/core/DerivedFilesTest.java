package io.tradestore.core;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.SegmentDescriptor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Files derived from a segment's rows (the query module's bitmap indexes) are kept for wholly committed segments and
 * deleted from the others when a writer opens: after a crash that took the commit record back into a sealed segment,
 * its index would otherwise be read for the different rows that refill it.
 */
@ExtendWith(TestRows.NoLeaks.class)
class DerivedFilesTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldDropDerivedFilesOfSegmentsNotWhollyCommittedWhenAWriterOpens(final Layout layout) throws Exception {
        final Schema schema = TestRows.allTypes(layout, 8);
        final Path table = dir.resolve(schema.name());
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.openOrCreate(schema).writer()) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                for (int r = 0; r < 20; r++) {
                    TestRows.write(w.append(f), r);
                }
                w.commit(); // segments 0 and 1 whole, 4 rows of segment 2
            }
            for (int seg = 0; seg < 3; seg++) {
                Files.writeString(SegmentDescriptor.directory(table, seg).resolve("sym.bitmap"), "derived");
            }
            try (TableWriter w = store.table(schema.name()).writer()) {
                assertThat(w.committedRows()).isEqualTo(20);
            }
            assertThat(SegmentDescriptor.directory(table, 0).resolve("sym.bitmap")).exists();
            assertThat(SegmentDescriptor.directory(table, 1).resolve("sym.bitmap")).exists();
            assertThat(SegmentDescriptor.directory(table, 2).resolve("sym.bitmap")).doesNotExist();
            try (TableReader r = store.table(schema.name()).reader()) {
                TestRows.verifyRows(r.snapshot(), 0, 20);
            }
        }
    }
}
