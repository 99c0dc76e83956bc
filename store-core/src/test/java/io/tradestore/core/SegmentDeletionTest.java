package io.tradestore.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.SegmentDescriptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Segment files are created at full size, so the segments no committed row needs must not outlive what created them: a
 * failed load ({@link TableWriter#rollbackAndDeleteSegments}), a writer's close, or a crash (the next writer's open).
 */
@ExtendWith(TestRows.NoLeaks.class)
class SegmentDeletionTest {
    @TempDir
    Path dir;

    static List<String> segmentDirectories(final Path table) throws IOException {
        try (Stream<Path> s = Files.list(table)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("seg-")).sorted().toList();
        }
    }

    @ParameterizedTest
    @CsvSource({"COLUMN,staged", "ROW,staged", "COLUMN,staged-thread", "COLUMN,staging-off", "ROW,staging-off",
        "COLUMN,reserve"})
    void shouldDeleteTheSegmentsPastTheCommitAndCarryOnAppending(final Layout layout,
    final String how) throws IOException {
        final Schema schema = TestRows.allTypes(layout, 8);
        final int l = schema.indexOf("l");
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            final AllTypesFlyweight f = new AllTypesFlyweight();
            try (TableWriter w = TestRows.appendingWriter(table, how, f)) {
                TestRows.append(w, f, w.pendingRows(), 5);
                w.commit();
                TestRows.append(w, f, 5, 30);
                assertThat(segmentDirectories(table.directory())).hasSizeGreaterThanOrEqualTo(4);
                w.rollbackAndDeleteSegments();
                assertThat(w.pendingRows()).isEqualTo(5);
                assertThat(segmentDirectories(table.directory())).containsExactly("seg-000000");
                // the appender is left on row 29, in a deleted segment: it must write somewhere harmless, not into an
                // unmapping
                assertThat(f.row()).isEqualTo(29);
                f.l(123);
                assertThatThrownBy(() -> w.columnAddress(3, l)).isInstanceOf(IndexOutOfBoundsException.class);
                TestRows.append(w, f, 5, 20);
                w.commit();
                assertThat(segmentDirectories(table.directory()))
                    .containsExactly("seg-000000", "seg-000001", "seg-000002");
            }
            try (TableReader reader = table.reader()) {
                TestRows.verifyRows(reader.snapshot(), 0, 20);
                TestRows.assertZonesExact(reader.snapshot());
            }
        }
    }

    @Test
    void shouldDeleteTheSegmentsPastTheCommitWhenTheWriterCloses() throws IOException {
        final Schema schema = TestRows.allTypes(Layout.COLUMN, 8);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            try (TableWriter w = table.writer()) {
                final AllTypesFlyweight f = new AllTypesFlyweight();
                TestRows.append(w, f, 0, 8);
                w.commit();
                TestRows.append(w, f, 8, 30);
            }
            assertThat(segmentDirectories(table.directory())).containsExactly("seg-000000");
            try (TableReader reader = table.reader()) {
                TestRows.verifyRows(reader.snapshot(), 0, 8);
            }
        }
    }

    @Test
    void shouldDeleteTheSegmentsACrashLeftPastTheCommitWhenAWriterOpens() throws IOException {
        final Schema schema = TestRows.allTypes(Layout.COLUMN, 8);
        final Path table = dir.resolve(schema.name());
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.createTable(schema).writer()) {
                TestRows.append(w, new AllTypesFlyweight(), 0, 20);
                w.commit();
            }
            // what a killed writer leaves: segments it created past its last commit, a gap where one was deleted ahead
            for (final int seg : new int[] {3, 4, 9}) {
                Files.createDirectories(SegmentDescriptor.directory(table, seg));
                Files.write(SegmentDescriptor.directory(table, seg).resolve("l.d"), new byte[4096]);
            }
            try (TableWriter w = store.table(schema.name()).writer()) {
                assertThat(w.committedRows()).isEqualTo(20);
                assertThat(segmentDirectories(table)).containsExactly("seg-000000", "seg-000001", "seg-000002");
            }
            try (TableReader r = store.table(schema.name()).reader()) {
                TestRows.verifyRows(r.snapshot(), 0, 20);
            }
        }
    }
}
