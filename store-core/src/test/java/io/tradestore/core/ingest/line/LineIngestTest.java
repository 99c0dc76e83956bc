package io.tradestore.core.ingest.line;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.Store;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TableWriter;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.PartitionBy;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The line protocol's syntax, value forms and mapping onto columns, each line stored exactly or refused whole. */
class LineIngestTest {
    /** Columns: s symbol, c char, i8, i16, i32, i64, d decimal(6), f f64, t timestamp, ts designated. */
    static final Schema ALL = Schema.builder("all").column("s", "symbol").column("c", "char").column("b", "i8")
        .column("h", "i16").column("n", "i32").column("l", "i64").column("d", "decimal(6)").column("f", "f64")
        .column("t", "timestamp").column("ts", "timestamp").timestamp("ts").layout(Layout.COLUMN).segmentRows(64)
        .blockRows(16).build();
    private static final long NOW = 1_800_000_000_000_000_000L;

    @TempDir
    Path dir;
    private Store store;
    private StoreTables tables;
    private final LineIngest ingest = new LineIngest();

    @BeforeEach
    void open() {
        store = Store.open(dir.resolve("store"));
        store.createTable(ALL);
        tables = new StoreTables(store);
    }

    @AfterEach
    void close() {
        tables.close();
        store.close();
    }

    private LineIngest.Result send(final String body) {
        return send(body, Precision.NANOS);
    }

    private LineIngest.Result send(final String body, final Precision p) {
        final byte[] b = body.getBytes(StandardCharsets.UTF_8);
        return ingest.ingest(b, b.length, p, NOW, tables);
    }

    /** @return the one row a body stores into table all, as s c b h n l d f t ts. */
    private List<String> row(final String line) {
        final int before = tables.rows("all").size();
        send(line);
        final List<List<String>> rows = tables.rows("all");
        assertThat(rows).hasSize(before + 1);
        return rows.get(before);
    }

    private static List<String> values(final String... v) {
        return Arrays.asList(v);
    }

    @Test
    void shouldStoreEveryTypeFromItsLineForm() {
        assertThat(row("all,s=XLON,c=B b=-7i,h=300i,n=70000i,l=-9000000000000000000i,d=101.25,f=1.5,"
            + "t=1700000000000001t 1700000000000000123"))
            .isEqualTo(values("XLON", "B", "-7", "300", "70000", "-9000000000000000000", "101.250000", "1.5",
                "1700000000000001000", "1700000000000000123"));
    }

    @Test
    void shouldLeaveAbsentColumnsNullAndTimeUntimedLinesNow() {
        assertThat(row("all l=1i")).isEqualTo(values(null, null, null, null, null, "1", null, null, null,
            Long.toString(NOW)));
    }

    @Test
    void shouldResolveEveryEscapeInNamesTagsAndStrings() {
        final Schema odd = Schema.builder("esc").column("k", "symbol").column("v", "symbol").column("w", "symbol")
            .column("ts", "timestamp").timestamp("ts").segmentRows(64).blockRows(16).build();
        store.createTable(odd);
        // tag value with comma, space, equals and a lone backslash; string with quote, backslash, comma, space,
        // equals and a newline; a key given with escapes that resolve to a plain name
        send("esc,k=a\\,b\\ c\\=d\\x v=\"q\\\"x\\\\y, z=\\n\nnext\",w=\"\" 1\n");
        assertThat(tables.rows("esc")).containsExactly(values("a,b c=d\\x", "q\"x\\y, z=\\n\nnext", null, "1"));
        // a backslash before anything but the escapable bytes is itself: 'es\c' is no table name
        assertThatThrownBy(() -> send("es\\c,k=x v=\"y\" 2\n")).hasMessageContaining("'es\\c' is not a valid");
        assertThat(tables.rows("esc")).hasSize(1);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "d=1|1.000000", "d=-1.5|-1.500000", "d=+2.25|2.250000", "d=.5|0.500000", "d=7.|7.000000",
        "d=1e3|1000.000000", "d=1.5E-2|0.015000", "d=123456.123456|123456.123456", "d=0.0000000|0.000000",
        "d=3i|3.000000", "d=-3u|ERR", "f=1|1.0", "f=-0.1|-0.1", "f=1e300|1.0E300", "f=2.5E-3|0.0025",
        "f=0.30000000000000004|0.30000000000000004", "f=Infinity|Infinity", "f=-Infinity|-Infinity",
        "f=NaN|NULL", "f=12i|12.0", "l=12i|12", "l=-12i|-12", "l=12u|12", "l=12|12", "l=-12|-12", "l=1e2|100",
        "l=1.5|ERR", "l=9223372036854775807i|9223372036854775807", "l=-9223372036854775808i|ERR",
        "l=9223372036854775808i|ERR", "b=127i|127", "b=128i|ERR", "b=-128i|ERR", "h=-32767i|-32767",
        "h=32768i|ERR", "n=2147483647i|2147483647", "n=2147483648i|ERR", "b=t|1", "b=T|1", "b=true|1",
        "b=True|1", "b=TRUE|1", "b=f|0", "b=F|0", "b=false|0", "b=False|0", "b=FALSE|0", "b=tRUE|ERR",
        "d=1.0000001|ERR", "d=1e-7|ERR", "d=1e13|ERR", "d=1.5.5|ERR", "d=1e|ERR", "d=--1|ERR", "d=abc|ERR",
        "d=\"1\"|ERR", "f=1_000|ERR", "l=12x|ERR", "l=i|ERR", "l=-i|ERR", "t=5t|5000", "t=5i|ERR", "t=5|ERR",
        "s=\"\"|NULL", "s=\"x\"|x", "s=1i|ERR", "c=\"S\"|S", "c=\"SS\"|ERR", "c=\"\"|NULL"})
    void shouldReadEveryValueFormExactlyOrRefuseIt(final String field, final String expected) {
        final String column = field.substring(0, field.indexOf('='));
        final int index = ALL.indexOf(column);
        if ("ERR".equals(expected)) {
            assertThatThrownBy(() -> send("all " + field + "\n")).isInstanceOf(LineProtocolException.class)
                .satisfies(e -> {
                    final LineProtocolException x = (LineProtocolException) e;
                    assertThat(x.line()).isEqualTo(1);
                    assertThat(x.column()).isIn(column, null);
                });
            assertThat(tables.rows("all")).isEmpty();
        } else {
            assertThat(row("all " + field).get(index)).isEqualTo("NULL".equals(expected) ? null : expected);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"NANOS,1700000000123456789,1700000000123456789", "MICROS,1700000000123456,1700000000123456000",
        "MILLIS,1700000000123,1700000000123000000", "SECONDS,1700000000,1700000000000000000",
        "MINUTES,28333333,1699999980000000000", "HOURS,472222,1699999200000000000", "SECONDS,-5,-5000000000"})
    void shouldScaleTimestampsByPrecision(final Precision p, final long sent, final long nanos) {
        send("all l=1i " + sent + "\n", p);
        assertThat(tables.rows("all").get(0).get(9)).isEqualTo(Long.toString(nanos));
    }

    @Test
    void shouldRefuseATimestampBeyondNanosecondRange() {
        assertThatThrownBy(() -> send("all l=1i 9300000000\n", Precision.SECONDS))
            .hasMessageContaining("line 1, position 10 (column ts)").hasMessageContaining("beyond the range");
    }

    @Test
    void shouldSkipCommentsAndBlankLinesAndAcceptCrlf() {
        final LineIngest.Result r = send("# a comment\r\n\n   \n\t\nall l=1i 5\r\n  # indented comment\nall l=2i\r\n"
            + "all,s=A l=3i   \n");
        assertThat(r.rows()).isEqualTo(3);
        assertThat(tables.rows("all")).extracting(v -> v.get(5)).containsExactly("1", "2", "3");
    }

    @Test
    void shouldCountLinesAcrossCommentsBlankLinesAndMultiLineStrings() {
        assertThatThrownBy(() -> send("# c\n\nall s=\"a\nb\",l=1i\nall l=2i\n\nall l=x\n"))
            .isInstanceOf(LineProtocolException.class)
            .satisfies(e -> assertThat(((LineProtocolException) e).line()).isEqualTo(7))
            .hasMessageStartingWith("line 7, position 7: field 'l' has value 'x'");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "all|4|no fields",
        "'all '|5|expected a field name",
        "all,s=A|8|no fields",
        "all,s l=1i|6|has no '=' and value",
        "all,=A l=1i|5|empty name",
        "all,s= l=1i|7|has no value",
        "all,s=a=b l=1i|8|escape it as",
        "all l=|7|has no value",
        "all l=1i,|10|expected a field name",
        "all l=1i x|10|expected an integer timestamp",
        "all l=1i 12x|10|expected an integer timestamp",
        "all l=1i 1 2|12|unexpected '2'",
        "all l=\"x|7|no closing quote",
        "all,s=a\\|8|a backslash at the end",
        "all l=1i\rx|9|unexpected '\\r'",
        "all,zz=A l=1i|5|has no column 'zz'",
        "all l=1i,l=2i|10|appears twice",
        "all ts=1i|5|designated timestamp",
        "All l=1i|1|not a valid table name",
        "nope l=1i|1|there is no table 'nope'",
        ",s=a l=1i|1|where the table name should be"})
    void shouldRefuseBadLinesWithTheirPosition(final String line, final int position, final String message) {
        tables.mayCreate = false;
        send("all l=0i\n");
        assertThatThrownBy(() -> send("all l=1i\n" + line + "\nall l=2i\n")).isInstanceOf(LineProtocolException.class)
            .hasMessageContaining(message).satisfies(e -> {
                final LineProtocolException x = (LineProtocolException) e;
                assertThat(x.line()).isEqualTo(2);
                assertThat(x.position()).isEqualTo(position);
            });
        assertThat(tables.rows("all")).hasSize(1);
    }

    @Test
    void shouldCommitEveryTableOfARequestOrNone() {
        final Schema other = Schema.builder("other").column("x", "i64").column("ts", "timestamp").timestamp("ts")
            .segmentRows(64).blockRows(16).build();
        store.createTable(other);
        final StringBuilder body = new StringBuilder();
        for (int i = 0; i < 150; i++) { // over two segments of 64 rows in each table
            body.append("all l=").append(i).append("i\nother x=").append(i).append("i\n");
        }
        assertThatThrownBy(() -> send(body + "other x=bad\n")).hasMessageStartingWith("line 301,");
        assertThat(tables.rows("all")).isEmpty();
        assertThat(tables.rows("other")).isEmpty();
        final LineIngest.Result r = send(body.toString());
        assertThat(r.rows()).isEqualTo(300);
        assertThat(r.tables()).isEqualTo(2);
        assertThat(tables.rows("other")).extracting(v -> v.get(0)).first().isEqualTo("0");
        assertThat(tables.rows("all")).hasSize(150).extracting(v -> v.get(5)).last().isEqualTo("149");
    }

    /** Lines that change their keys' order, or alternate between tables whose columns share positions. */
    @Test
    void shouldMapKeysWhateverTheirOrderAndTable() {
        final Schema other = Schema.builder("other").column("x", "i64").column("l", "decimal(2)").column("ts",
            "timestamp").timestamp("ts").segmentRows(64).blockRows(16).build();
        store.createTable(other);
        send("all l=1i,d=2 1\nall l=3i,d=4 2\nother x=5i,l=6 3\nall l=7i,d=8 4\nall d=9,l=10i 5\n"
            + "other l=11,x=12i 6\nall d=13,l=14i 7\n");
        assertThat(tables.rows("all")).extracting(v -> v.get(5) + "/" + v.get(6)).containsExactly("1/2.000000",
            "3/4.000000", "7/8.000000", "10/9.000000", "14/13.000000");
        assertThat(tables.rows("other")).extracting(v -> v.get(0) + "/" + v.get(1)).containsExactly("5/6.00",
            "12/11.00");
    }

    @Test
    void shouldCreateATableFromItsFirstLineOnlyWhenTheWholeRequestIsGood() {
        assertThatThrownBy(() -> send("fresh,venue=XLON qty=1i,px=1.5,ok=t,note=\"n\",at=5t 7\nfresh qty=x\n"))
            .hasMessageStartingWith("line 2, position 11: field 'qty'");
        assertThat(store.hasTable("fresh")).isFalse();
        assertThatThrownBy(() -> send("fresh,venue=XLON qty=1i 7\nfresh,venue=X extra=1i 8\n"))
            .hasMessageContaining("has no column 'extra'");
        assertThat(store.hasTable("fresh")).isFalse();
        send("fresh,venue=XLON qty=1i,px=1.5,ok=t,note=\"n\",at=5t 7\nall l=1i\nfresh qty=2i 8\n");
        assertThat(store.table("fresh").schema().columns()).extracting(c -> c.name() + ":" + c.typeName())
            .containsExactly("venue:symbol", "qty:i64", "px:f64", "ok:i8", "note:symbol", "at:timestamp",
                "timestamp:timestamp");
        assertThat(store.table("fresh").schema().timestampIndex()).isEqualTo(6);
        assertThat(tables.rows("fresh")).containsExactly(values("XLON", "1", "1.5", "1", "n", "5000", "7"),
            values(null, "2", null, null, null, null, "8"));
        assertThat(tables.rows("all")).hasSize(1);
    }

    @Test
    void shouldRefuseToCreateATableWhenCreatingIsOff() {
        tables.mayCreate = false;
        assertThatThrownBy(() -> send("fresh x=1i\n")).hasMessageContaining("there is no table 'fresh'");
        assertThat(store.hasTable("fresh")).isFalse();
    }

    @Test
    void shouldRefuseColumnNamesATableCannotHave() {
        assertThatThrownBy(() -> send("fresh Qty=1i\n")).hasMessageContaining("'Qty' cannot name a column");
        assertThatThrownBy(() -> send("fresh timestamp=1i\n")).hasMessageContaining("designated timestamp");
        assertThat(store.hasTable("fresh")).isFalse();
    }

    @Test
    void shouldKeepSymbolsAddedByARefusedRequestOutOfTheDictionary() {
        assertThatThrownBy(() -> send("all,s=NEW1 l=1i\nall,s=NEW2 l=x\n")).isInstanceOf(LineProtocolException.class);
        send("all,s=OLD l=1i\n");
        assertThat(tables.rows("all")).containsExactly(values("OLD", null, null, null, null, "1", null, null, null,
            Long.toString(NOW)));
        assertThat(store.table("all").reader().snapshot().dictionarySize(0)).isEqualTo(1);
    }

    @Test
    void shouldRefuseSymbolsThatAreNotUtf8() {
        final byte[] b = "all,s=\u00ff l=1i\n".getBytes(StandardCharsets.ISO_8859_1);
        assertThatThrownBy(() -> ingest.ingest(b, b.length, Precision.NANOS, NOW, tables))
            .hasMessageContaining("not valid UTF-8");
    }
    @Test
    void shouldParseAgainWhenATableIsMadeWithOtherColumnsWhileTheRequestParsed() {
        // another request creates the table first, with a column this request's first line does not name
        final LineIngest.Tables racing = new LineIngest.Tables() {
            @Override
            public Schema schema(final String name) {
                return tables.schema(name);
            }

            @Override
            public TableWriter writer(final String name) {
                return tables.writer(name);
            }

            @Override
            public boolean mayCreate() {
                return true;
            }

            @Override
            public void create(final Schema schema) {
                if (!store.hasTable(schema.name())) {
                    tables.create(Schema.builder(schema.name()).column("venue", "symbol").column("side", "char")
                        .column("px", "f64").column("timestamp", "timestamp").timestamp("timestamp").build());
                }
            }

            @Override
            public void checkCancelled() {
            }
        };
        final String body = "race,venue=XLON px=1.5 1700000000000000000\n";
        final LineIngest.Result r = new LineIngest().ingest(body.getBytes(StandardCharsets.UTF_8),
            body.length(), Precision.NANOS, 0, racing);
        assertThat(r.rows()).isEqualTo(1);
        assertThat(tables.rows("race")).containsExactly(Arrays.asList("XLON", null, "1.5", "1700000000000000000"));
    }
    @Test
    void shouldPutARequestsRowsOfEachPeriodTogetherOnAPartitionedTable() {
        store.createTable(Schema.builder("ticks").segmentRows(64).blockRows(16).column("px", "i64")
            .column("timestamp", "timestamp").timestamp("timestamp").partitionBy(PartitionBy.DAY).build());
        final long day = 86_400_000_000_000L;
        final StringBuilder b = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            b.append("ticks px=").append(i).append("i ").append(1_700_000_000_000_000_000L + i % 2 * day + i)
                .append('\n');
        }
        final byte[] body = b.toString().getBytes(StandardCharsets.UTF_8);
        assertThat(new LineIngest().ingest(body, body.length, Precision.NANOS, 0, tables).rows()).isEqualTo(40);
        // the days alternate line by line, and still make one segment each, rows in their order
        try (TableReader r = store.table("ticks").reader()) {
            final TableSnapshot snap = r.snapshot();
            assertThat(snap.liveRows()).isEqualTo(40);
            assertThat(snap.segmentCount()).isEqualTo(2);
            for (int seg = 0; seg < 2; seg++) {
                final List<Long> px = new java.util.ArrayList<>();
                for (int k = 0; k < snap.segmentRowCount(seg); k++) {
                    px.add(NativeMemory.getLong(snap.rowAddress(((long) seg << 6) + k, 0)));
                }
                final int first = seg;
                assertThat(px).containsExactlyElementsOf(
                    java.util.stream.LongStream.range(0, 20).map(k -> 2 * k + first).boxed().toList());
            }
        }
    }
}
