package io.tradestore.parquet;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.apache.parquet.column.Encoding;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(TestRows.NoLeaks.class)
class ParquetExportTest {
    @TempDir
    Path tmp;

    @Test
    void shouldExportEveryTypeByDayAsDuckDbReadsIt() throws Exception {
        try (Store store = Store.open(tmp.resolve("store"))) {
            final ExportTables t = new ExportTables(store, ExportTables.schema("everything", Layout.COLUMN, 256), 7);
            t.append(5_000, 0, 4);
            final ExportResult r = ParquetExport.export(t.table, ExportOptions.defaults(tmp.resolve("out"))
                .withIncludeOpen(true));
            assertThat(r.rowsExported()).isEqualTo(t.rows.size());
            assertThat(duckRows(tmp.resolve("out/everything"), "epoch_ns(ts)", "epoch_ns(t2)"))
                .containsExactlyElementsOf(canonical(t.rows, 1));
        }
    }

    @Test
    void shouldWriteTheDocumentedTypesWithStatisticsAndReadBackWithParquetJava() throws Exception {
        try (Store store = Store.open(tmp.resolve("store"))) {
            final ExportTables t = new ExportTables(store, ExportTables.schema("typed", Layout.ROW, 512), 11);
            t.append(3_000, 0, 2);
            ParquetExport.export(t.table, ExportOptions.defaults(tmp.resolve("out")).withIncludeOpen(true));
            final List<Path> parquet = files(tmp.resolve("out/typed")).stream()
                .filter(p -> p.toString().endsWith(".parquet")).toList();
            assertThat(parquet).isNotEmpty().allSatisfy(p -> assertThat(p.getParent().getFileName().toString())
                .matches("date=(2026-11-1[678]|__HIVE_DEFAULT_PARTITION__)"));
            final List<Object[]> read = new ArrayList<>();
            for (final Path p : parquet) {
                try (ParquetFileReader f = ParquetFileReader.open(new LocalInputFile(p))) {
                    final MessageType schema = f.getFooter().getFileMetaData().getSchema();
                    assertThat(schema.toString().replaceAll("\\s+", " ")).isEqualTo("message typed { "
                        + "optional int64 id; optional int32 b (INTEGER(8,true)); optional int32 s (INTEGER(16,true)); "
                        + "optional int32 i; optional double d; optional int64 px (DECIMAL(18,6)); "
                        + "optional int64 whole (DECIMAL(18,0)); optional int64 ts (TIMESTAMP(NANOS,true)); "
                        + "optional int64 t2 (TIMESTAMP(NANOS,true)); optional binary sym (STRING); "
                        + "optional binary c (STRING); } ");
                    for (final BlockMetaData block : f.getRowGroups()) {
                        for (final ColumnChunkMetaData col : block.getColumns()) {
                            assertThat(col.getCodec()).isEqualTo(CompressionCodecName.ZSTD);
                            assertThat(col.getStatistics().isEmpty()).as("statistics of %s", col.getPath()).isFalse();
                        }
                        final ColumnChunkMetaData sym = block.getColumns().get(9);
                        // parquet-java keeps a dictionary when it pays: not in the few rows of a null-timestamp file
                        assertThat(block.getRowCount() < 100 || sym.getEncodings().stream()
                            .anyMatch(Encoding::usesDictionary)).as("symbols dictionary-encoded, %s", sym).isTrue();
                    }
                }
                read.addAll(readGroups(p, FilterCompat.NOOP));
            }
            assertThat(canonical(read, 1)).containsExactlyElementsOf(canonical(t.rows, 1));
        }
    }

    @Test
    void shouldWritePagesWhoseRowIndexesLineUpAcrossColumns() throws Exception {
        // one large segment over two days: each file takes part of every batch, and its columns run to many pages
        try (Store store = Store.open(tmp.resolve("store"))) {
            final ExportTables t = new ExportTables(store, ExportTables.schema("big", Layout.COLUMN, 1 << 18), 5);
            t.append(100_000, 0, 2);
            ParquetExport.export(t.table, ExportOptions.defaults(tmp.resolve("out")).withIncludeOpen(true));
            final List<Object[]> read = new ArrayList<>();
            final List<Object[]> picked = new ArrayList<>();
            for (int k = 1; k < 25; k++) {
                final Object[] row = t.rows.get(k * 3_989);
                if (row[0] != null) {
                    picked.add(row);
                }
            }
            final List<Object[]> found = new ArrayList<>();
            int pagedColumns = 0;
            for (final Path p : files(tmp.resolve("out/big"))) {
                if (!p.toString().endsWith(".parquet")) {
                    continue;
                }
                try (ParquetFileReader f = ParquetFileReader.open(new LocalInputFile(p))) {
                    for (final BlockMetaData block : f.getRowGroups()) {
                        for (final ColumnChunkMetaData col : block.getColumns()) {
                            final OffsetIndex pages = f.readOffsetIndex(col);
                            final ColumnIndex index = f.readColumnIndex(col);
                            assertThat(pages.getFirstRowIndex(0)).isZero();
                            long nulls = 0;
                            for (int i = 0; i < pages.getPageCount(); i++) {
                                assertThat(pages.getLastRowIndex(i, block.getRowCount()))
                                    .isGreaterThanOrEqualTo(pages.getFirstRowIndex(i));
                                nulls += index.getNullCounts().get(i);
                            }
                            assertThat(pages.getLastRowIndex(pages.getPageCount() - 1, block.getRowCount()))
                                .isEqualTo(block.getRowCount() - 1);
                            assertThat(nulls).as("page null counts of %s", col.getPath())
                                .isEqualTo(col.getStatistics().getNumNulls());
                            pagedColumns += pages.getPageCount() > 1 ? 1 : 0;
                        }
                    }
                }
                read.addAll(readGroups(p, FilterCompat.NOOP));
                // the column index picks the page of each id; the other columns' pages must yield the same row
                for (final Object[] row : picked) {
                    found.addAll(readGroups(p, FilterCompat.get(FilterApi.eq(FilterApi.longColumn("id"),
                        (Long) row[0]))));
                }
            }
            assertThat(pagedColumns).as("columns of more than one page").isGreaterThan(10);
            assertThat(canonical(found, 1)).isNotEmpty().containsExactlyElementsOf(canonical(picked, 1));
            assertThat(canonical(read, 1)).containsExactlyElementsOf(canonical(t.rows, 1));
        }
    }

    @Test
    void shouldWriteMicrosecondsForSpark() throws Exception {
        try (Store store = Store.open(tmp.resolve("store"))) {
            final ExportTables t = new ExportTables(store, ExportTables.schema("micro", Layout.COLUMN, 1024), 3);
            t.append(2_000, 0, 2);
            ParquetExport.export(t.table, ExportOptions.defaults(tmp.resolve("out")).withIncludeOpen(true)
                .withUnit(TimestampUnit.MICROS));
            assertThat(duckRows(tmp.resolve("out/micro"), "epoch_us(ts) * 1000", "epoch_us(t2) * 1000"))
                .containsExactlyElementsOf(canonical(t.rows, 1000));
            // one directory holds one unit
            assertThatThrownBy(() -> ParquetExport.export(t.table, ExportOptions.defaults(tmp.resolve("out"))))
                .hasMessageContaining("holds timestamps in micros, not nanos");
        }
    }

    @Test
    void shouldWriteOnlyWhatIsNewOnAReRun() throws Exception {
        try (Store store = Store.open(tmp.resolve("store"))) {
            final ExportTables t = new ExportTables(store, ExportTables.schema("grow", Layout.COLUMN, 256), 5);
            t.append(1_000, 0, 2);
            final ExportOptions sealed = ExportOptions.defaults(tmp.resolve("out"));
            final ExportResult first = ParquetExport.export(t.table, sealed);
            assertThat(first.filesWritten()).isPositive();
            assertThat(first.rowsExported()).isEqualTo(768); // three sealed segments of 256; the open one waits
            final Map<Path, Long> before = modified(tmp.resolve("out/grow"));
            final ExportResult again = ParquetExport.export(t.table, sealed);
            assertThat(again.filesWritten()).isZero();
            assertThat(again.filesKept()).isEqualTo(first.filesWritten());
            t.append(1_000, 2, 1);
            final ExportResult third = ParquetExport.export(t.table, sealed);
            assertThat(third.filesKept()).isEqualTo(first.filesWritten());
            assertThat(third.rowsExported()).isEqualTo(1_792);
            final Map<Path, Long> after = modified(tmp.resolve("out/grow"));
            for (final Map.Entry<Path, Long> e : before.entrySet()) {
                if (e.getKey().toString().endsWith(".parquet")) {
                    assertThat(after.get(e.getKey())).as("untouched %s", e.getKey()).isEqualTo(e.getValue());
                }
            }
            // the open segment's committed rows, then again once it has grown
            final ExportResult open = ParquetExport.export(t.table, sealed.withIncludeOpen(true));
            assertThat(open.rowsExported()).isEqualTo(2_000);
            t.append(10, 3, 1);
            assertThat(ParquetExport.export(t.table, sealed.withIncludeOpen(true)).filesWritten()).isPositive();
            assertThat(duckRows(tmp.resolve("out/grow"), "epoch_ns(ts)", "epoch_ns(t2)"))
                .containsExactlyElementsOf(canonical(t.rows, 1));
            final String manifest = Files.readString(tmp.resolve("out/grow/_tradestore_export.json"));
            assertThat(manifest).contains("\"rows\" : 2010").contains("\"crc32c\"");
        }
    }

    @Test
    void shouldExportWholeDaysOfARange() throws Exception {
        try (Store store = Store.open(tmp.resolve("store"))) {
            final ExportTables t = new ExportTables(store, ExportTables.schema("ranged", Layout.COLUMN, 128), 9);
            t.append(3_000, 0, 4);
            final long from = ExportOptions.parseDay("2026-11-17");
            final long to = ExportOptions.parseDay("2026-11-19");
            ParquetExport.export(t.table, ExportOptions.defaults(tmp.resolve("out")).withIncludeOpen(true)
                .withRange(from, to));
            final List<Object[]> inRange = t.rows.stream()
                .filter(v -> v[7] != null && (Long) v[7] >= from && (Long) v[7] < to).toList();
            assertThat(inRange).hasSizeGreaterThan(1000);
            assertThat(duckRows(tmp.resolve("out/ranged"), "epoch_ns(ts)", "epoch_ns(t2)"))
                .containsExactlyElementsOf(canonical(inRange, 1));
            assertThatThrownBy(() -> ExportOptions.defaults(tmp).withRange(from + 1, to))
                .hasMessageContaining("is not a UTC midnight");
        }
    }

    @Test
    void shouldRefuseADecimalParquetCannotHoldNamingTheRow() throws Exception {
        try (Store store = Store.open(tmp.resolve("store"))) {
            final ExportTables t = new ExportTables(store, ExportTables.schema("wide", Layout.COLUMN, 64), 1);
            t.append(100, 0, 1);
            try (TableWriter w = t.table.writer()) {
                final long row = w.appendRow();
                final int seg = (int) (row >>> 6);
                NativeMemory.putLong(w.columnAddress(seg, 7) + (row & 63) * w.columnStride(7),
                    ExportTables.START + 1);
                NativeMemory.putLong(w.columnAddress(seg, 5) + (row & 63) * w.columnStride(5),
                    1_000_000_000_000_000_000L);
                w.commit();
            }
            assertThatThrownBy(() -> ParquetExport.export(t.table, ExportOptions.defaults(tmp.resolve("out"))
                .withIncludeOpen(true))).hasMessageContaining("row 100 (segment 1): column 'px' holds "
                + "1000000000000.000000, which has more than 18 digits");
            assertThat(files(tmp.resolve("out/wide"))).noneMatch(p -> p.getFileName().toString().endsWith(".tmp"))
                .noneMatch(p -> p.toString().contains("000001.parquet"));
        }
    }

    private static Map<Path, Long> modified(final Path dir) throws Exception {
        final Map<Path, Long> m = new TreeMap<>();
        for (final Path p : files(dir)) {
            m.put(p, Files.getLastModifiedTime(p).toMillis() * 1_000_000 + Files.readAllBytes(p).length);
        }
        return m;
    }

    static List<String> canonical(final List<Object[]> rows, final long tsUnit) {
        final List<String> out = new ArrayList<>();
        for (final Object[] v : rows) {
            final StringBuilder b = new StringBuilder();
            for (int c = 0; c < v.length; c++) {
                Object x = v[c];
                if (x != null && (c == 7 || c == 8)) {
                    x = Math.floorDiv((Long) x, tsUnit) * tsUnit;
                }
                b.append(c == 0 ? "" : "|").append(text(x));
            }
            out.add(b.toString());
        }
        out.sort(null);
        return out;
    }

    private static String text(final Object x) {
        if (x == null) {
            return "null";
        }
        if (x instanceof BigDecimal) {
            return ((BigDecimal) x).toPlainString();
        }
        if (x instanceof Double || x instanceof Float) {
            return Double.toString(((Number) x).doubleValue());
        }
        if (x instanceof Number) {
            return Long.toString(((Number) x).longValue());
        }
        return x.toString();
    }

    /** @return the rows of a file of the typed test table, read by parquet-java's example reader through a filter. */
    static List<Object[]> readGroups(final Path p, final FilterCompat.Filter filter) throws Exception {
        final List<Object[]> read = new ArrayList<>();
        try (ParquetReader<Group> r = new ParquetReader.Builder<Group>(new LocalInputFile(p)) {
            @Override
            protected ReadSupport<Group> getReadSupport() {
                return new GroupReadSupport();
            }
        }.withFilter(filter).build()) {
            Group g;
            while ((g = r.read()) != null) {
                read.add(new Object[] {
                    g.getFieldRepetitionCount(0) == 0 ? null : g.getLong(0, 0),
                    g.getFieldRepetitionCount(1) == 0 ? null : g.getInteger(1, 0),
                    g.getFieldRepetitionCount(2) == 0 ? null : g.getInteger(2, 0),
                    g.getFieldRepetitionCount(3) == 0 ? null : g.getInteger(3, 0),
                    g.getFieldRepetitionCount(4) == 0 ? null : g.getDouble(4, 0),
                    g.getFieldRepetitionCount(5) == 0 ? null : BigDecimal.valueOf(g.getLong(5, 0), 6),
                    g.getFieldRepetitionCount(6) == 0 ? null : BigDecimal.valueOf(g.getLong(6, 0), 0),
                    g.getFieldRepetitionCount(7) == 0 ? null : g.getLong(7, 0),
                    g.getFieldRepetitionCount(8) == 0 ? null : g.getLong(8, 0),
                    g.getFieldRepetitionCount(9) == 0 ? null : g.getString(9, 0),
                    g.getFieldRepetitionCount(10) == 0 ? null : g.getString(10, 0)});
            }
        }
        return read;
    }

    /** @return every row of the export in DuckDB, canonical and sorted. */
    static List<String> duckRows(final Path dir, final String ts, final String t2) throws SQLException {
        final List<String> out = new ArrayList<>();
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:");
             Statement st = duck.createStatement();
             ResultSet rs = st.executeQuery("SELECT id, b, s, i, d, px, whole, " + ts + ", " + t2 + ", sym, c FROM "
                 + "read_parquet('" + dir + "/**/*.parquet', hive_partitioning = true)")) {
            while (rs.next()) {
                final StringBuilder b = new StringBuilder();
                for (int c = 1; c <= 11; c++) {
                    b.append(c == 1 ? "" : "|").append(text(rs.getObject(c)));
                }
                out.add(b.toString());
            }
        }
        out.sort(null);
        return out;
    }

    static List<Path> files(final Path dir) throws Exception {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).sorted().toList();
        }
    }
}
