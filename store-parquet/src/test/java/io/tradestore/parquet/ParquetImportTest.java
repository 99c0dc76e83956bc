package io.tradestore.parquet;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.Table;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;
import io.tradestore.core.ingest.LoadException;
import io.tradestore.core.ingest.LoadProgress;
import io.tradestore.core.ingest.LoadResult;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.PartitionBy;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(TestRows.NoLeaks.class)
class ParquetImportTest {
    @TempDir
    Path tmp;

    @Test
    void shouldImportAnExportIntoANewTableRowForRow() throws Exception {
        try (Store store = Store.open(tmp.resolve("store"))) {
            final ExportTables t = new ExportTables(store, ExportTables.schema("source", Layout.COLUMN, 256), 13);
            t.append(4_000, 0, 3);
            ParquetExport.export(t.table, ExportOptions.defaults(tmp.resolve("out")).withIncludeOpen(true));
            for (final Schema target : List.of(ExportTables.schema("copy", Layout.ROW, 1024),
                ExportTables.schema("by_day", Layout.COLUMN, 512).with(PartitionBy.DAY))) {
                final Table copy = store.createTable(target);
                final LoadResult r;
                try (TableWriter w = copy.writer()) {
                    r = ParquetImport.load(w, ParquetImport.files(List.of(tmp.resolve("out"))), 0, LoadProgress.NONE);
                }
                assertThat(r.rowsLoaded()).isEqualTo(t.rows.size());
                assertThat(r.commits()).isEqualTo(1);
                assertThat(ParquetExportTest.canonical(rows(copy), 1)).as(target.name())
                    .containsExactlyElementsOf(ParquetExportTest.canonical(t.rows, 1));
            }
        }
    }

    @Test
    void shouldImportWhatDuckDbWritesWithItsOwnTypes() throws Exception {
        final Path file = tmp.resolve("duck.parquet");
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement st = duck.createStatement()) {
            st.execute("COPY (SELECT i::BIGINT AS id, (i % 100 - 50)::TINYINT AS b, (i * 7)::SMALLINT AS s, "
                + "i::INTEGER AS i, i / 8.0 AS d, (i / 1000.0)::DECIMAL(12, 3) AS px, i::BIGINT AS whole, "
                + "TIMESTAMP '2026-11-16 09:00:00' + to_microseconds(i * 1001) AS ts, DATE '2026-11-16' + (i % 3)::INT "
                + "AS t2, CASE WHEN i % 5 = 0 THEN NULL ELSE 'SYM' || (i % 7) END AS sym, "
                + "chr(65 + (i % 26)::INT) AS c FROM range(3000) r(i)) TO '" + file + "' (FORMAT parquet)");
        }
        try (Store store = Store.open(tmp.resolve("store"))) {
            final Table table = store.createTable(ExportTables.schema("from_duck", Layout.COLUMN, 1024));
            try (TableWriter w = table.writer()) {
                ParquetImport.load(w, List.of(file), 1000, LoadProgress.NONE);
            }
            final List<Object[]> expected = new ArrayList<>();
            for (long i = 0; i < 3000; i++) {
                final long ts = ExportTables.START + 9 * 3_600_000_000_000L + i * 1001_000L;
                expected.add(new Object[] {i, (byte) (i % 100 - 50), (short) (i * 7), (int) i, i / 8.0,
                    BigDecimal.valueOf(i, 3).setScale(6), BigDecimal.valueOf(i), ts,
                    ExportTables.START + (i % 3) * ExportTables.DAY, i % 5 == 0 ? null : "SYM" + i % 7,
                    String.valueOf((char) ('A' + i % 26))});
            }
            assertThat(ParquetExportTest.canonical(rows(table), 1))
                .containsExactlyElementsOf(ParquetExportTest.canonical(expected, 1));
        }
    }

    @Test
    void shouldRefuseFilesThatDoNotFitBeforeWritingARow() throws Exception {
        final Path good = tmp.resolve("in/a.parquet");
        final Path extra = tmp.resolve("in/b.parquet");
        final Path scale = tmp.resolve("scale.parquet");
        final Path wide = tmp.resolve("wide.parquet");
        java.nio.file.Files.createDirectories(good.getParent());
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement st = duck.createStatement()) {
            st.execute("COPY (SELECT TIMESTAMP '2026-11-16 09:00:00' AS ts, 5::TINYINT AS b) TO '" + good
                + "' (FORMAT parquet)");
            st.execute("COPY (SELECT TIMESTAMP '2026-11-16 09:00:00' AS ts, 5 AS venue) TO '" + extra
                + "' (FORMAT parquet)");
            st.execute("COPY (SELECT TIMESTAMP '2026-11-16 09:00:00' AS ts, 1.1234567::DECIMAL(10, 7) AS px) TO '"
                + scale + "' (FORMAT parquet)");
            st.execute("COPY (SELECT TIMESTAMP '2026-11-16 09:00:00' + to_seconds(i) AS ts, (i * 100)::INTEGER AS b "
                + "FROM range(5) r(i)) TO '" + wide + "' (FORMAT parquet)");
        }
        try (Store store = Store.open(tmp.resolve("store"))) {
            final ExportTables t = new ExportTables(store, ExportTables.schema("target", Layout.COLUMN, 256), 2);
            t.append(300, 0, 1);
            try (TableWriter w = t.table.writer()) {
                assertThatThrownBy(() -> ParquetImport.load(w, ParquetImport.files(List.of(good.getParent())), 0,
                    LoadProgress.NONE)).isInstanceOf(LoadException.class)
                    .hasMessageContaining("b.parquet: column 'venue' is not a column of table 'target'");
                assertThatThrownBy(() -> ParquetImport.load(w, List.of(scale), 0, LoadProgress.NONE))
                    .hasMessageContaining("column 'px' is INT64 DECIMAL(10,7), with more fraction digits than "
                        + "decimal(6) holds");
                final LoadException e = (LoadException) org.assertj.core.api.Assertions.catchThrowable(
                    () -> ParquetImport.load(w, List.of(good, wide), 0, LoadProgress.NONE));
                assertThat(e).hasMessageContaining("wide.parquet: row 3, column 'b': 200 is beyond the range of i8 "
                    + "(-127 to 127)");
                assertThat(e.line()).isEqualTo(3);
                assertThat(e.column()).isEqualTo(2);
                assertThat(w.committedRows()).isEqualTo(300);
                assertThat(w.pendingRows()).as("rows appended, none pending").isEqualTo(300);
            }
            assertThat(rows(t.table)).hasSize(300);
        }
    }

    /** @return the table's committed rows in the {@link ExportTables} form. */
    static List<Object[]> rows(final Table table) {
        final List<Object[]> out = new ArrayList<>();
        try (TableReader reader = table.reader()) {
            final TableSnapshot s = reader.snapshot();
            for (int seg = s.firstSegment(); seg < s.segmentCount(); seg++) {
                for (int r = 0; r < s.segmentRowCount(seg); r++) {
                    final Object[] v = new Object[11];
                    for (int c = 0; c < 11; c++) {
                        final long a = s.columnAddress(seg, c) + (long) r * s.columnStride(c);
                        v[c] = switch (c) {
                            case 1 -> nullIf(NativeMemory.getByte(a), Byte.MIN_VALUE);
                            case 2 -> nullIf(NativeMemory.getShort(a), Short.MIN_VALUE);
                            case 3 -> nullIf(NativeMemory.getInt(a), Integer.MIN_VALUE);
                            case 4 -> Double.isNaN(NativeMemory.getDouble(a)) ? null : NativeMemory.getDouble(a);
                            case 5 -> NativeMemory.getLong(a) == Long.MIN_VALUE ? null
                                : BigDecimal.valueOf(NativeMemory.getLong(a), 6);
                            case 6 -> NativeMemory.getLong(a) == Long.MIN_VALUE ? null
                                : BigDecimal.valueOf(NativeMemory.getLong(a), 0);
                            case 9 -> NativeMemory.getInt(a) < 0 ? null : s.symbolValue(c, NativeMemory.getInt(a));
                            case 10 -> NativeMemory.getByte(a) == 0 ? null
                                : String.valueOf((char) NativeMemory.getByte(a));
                            default -> nullIf(NativeMemory.getLong(a), Long.MIN_VALUE);
                        };
                    }
                    out.add(v);
                }
            }
        }
        return out;
    }

    private static Object nullIf(final long v, final long sentinel) {
        return v == sentinel ? null : v;
    }
}
