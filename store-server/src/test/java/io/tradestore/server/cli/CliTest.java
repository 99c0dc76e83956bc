package io.tradestore.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.FileDamage;
import io.tradestore.core.segment.ZoneMapDescriptor;
import io.tradestore.core.txn.TxnDescriptor;
import io.tradestore.server.ChildJvm;
import io.tradestore.server.TestStores;
import io.tradestore.server.http.Http;

/** Each command's happy path and its bad-usage exit code, in process (serve in a child JVM, stopped by SIGTERM). */
class CliTest {
    @TempDir
    Path dir;

    /** The outcome of one command line. */
    record Run(int code, String out, String err) {
    }

    static Run run(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = TradestoreCli.commandLine(new PrintWriter(out, true), new PrintWriter(err, true))
            .execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void shouldExitWithUsageCodeWithoutACommandOrWithAnUnknownOne() {
        assertThat(run().code()).isEqualTo(2);
        final Run r = run("frobnicate");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("frobnicate");
        assertThat(run("--help").code()).isZero();
    }

    @Test
    void shouldPrintHelpForEveryCommand() {
        for (final String c : new String[] {"create", "query", "serve", "info", "check", "retain", "drop", "demo"}) {
            final Run r = run(c, "--help");
            assertThat(r.code()).as(c).isZero();
            assertThat(r.out()).as(c).contains("Usage: tradestore " + c);
        }
    }

    @Test
    void shouldCreateAStoreAndRefuseToCreateItTwice() {
        final Path store = dir.resolve("s");
        final Run r = run("create", store.toString(), "--segment-rows", "1024");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("created table 'trades'");
        assertThat(Files.isRegularFile(store.resolve("trades").resolve("_schema.json"))).isTrue();
        final Run again = run("create", store.toString());
        assertThat(again.code()).isEqualTo(1);
        assertThat(again.err()).contains("already exists").doesNotContain("Exception");
        assertThat(run("create").code()).isEqualTo(2);
        assertThat(run("create", store.toString(), "--layout", "DIAGONAL").code()).isEqualTo(2);
        assertThat(run("create", dir.resolve("q").toString(), "--table", "quotes", "--layout", "ROW").code()).isZero();
        final Run daily = run("create", store.toString(), "--table", "daily", "--partition-by", "day");
        assertThat(daily.code()).as(daily.err()).isZero();
        assertThat(daily.err()).contains("partitioned by DAY");
        assertThat(run("info", store.toString(), "daily").out()).contains("partitioned by DAY");
        final Run weekly = run("create", store.toString(), "--table", "weekly", "--partition-by", "WEEK");
        assertThat(weekly.code()).isEqualTo(2);
        assertThat(weekly.err()).contains("--partition-by").contains("unknown partitioning 'WEEK'");
    }

    @Test
    void shouldDescribeAStore() {
        TestStores.writeTrades(dir, 3000, 1);
        final Run r = run("info", dir.toString());
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("table      trades").contains("rows       3000")
            .contains("segments   3 of 1024 rows")
            .contains("bytes/row  49").contains("venue").contains("dictionary of 4 values").contains("allocator");
        assertThat(run("info", dir.toString(), "trades").code()).isZero();
        final Run missing = run("info", dir.toString(), "nosuch");
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.err()).contains("no table 'nosuch'");
        assertThat(run("info", dir.resolve("nowhere").toString()).code()).isEqualTo(1);
        assertThat(run("info").code()).isEqualTo(2);
    }

    /**
     * A table that does not open is reported in its place, and the healthy ones are still described.
     */
    @Test
    void shouldDescribeTheHealthyTablesBesideABrokenOne() throws Exception {
        TestStores.writeTrades(dir, 3000, 1);
        final Path broken = dir.resolve("broken");
        Files.createDirectories(broken);
        Files.copy(dir.resolve("trades").resolve("_schema.json"), broken.resolve("_schema.json"));
        final Run r = run("info", dir.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).contains("table      broken").contains("error      ").contains("table      trades")
            .contains("rows       3000");
        assertThat(r.err()).contains("error: table [broken] could not be described").doesNotContain("Exception");
    }

    @Test
    void shouldPassCheckOnAHealthyStore() {
        TestStores.writeTrades(dir, 3000, 1);
        final Run r = run("check", dir.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("trades: ok (3000 rows, 3 segments");
        assertThat(run("check").code()).isEqualTo(2);
        assertThat(run("check", dir.toString(), "nosuch").code()).isEqualTo(1);
    }

    @Test
    void shouldRetainAndDropFromTheCommandLine() {
        TestStores.writeTrades(dir, 3000, 1); // 300 s of trades in segments of 1024 rows
        Run r = run("retain", dir.toString(), "--table", "trades", "--older-than", "60s");
        assertThat(r.code()).as(r.err()).isZero();
        // the newest row is 299.9 s in; segments 0 and 1 end before 239.9 s, segment 2 is still filling
        assertThat(r.err()).contains("dropped 2 segments (2048 rows)");
        r = run("check", dir.toString());
        assertThat(r.code()).as(r.out()).isZero();
        assertThat(r.out()).contains("trades: ok (952 rows, 1 segments");
        assertThat(run("retain", dir.toString(), "--table", "trades", "--ttl", "1h").code()).isZero();
        r = run("info", dir.toString(), "trades");
        assertThat(r.out()).contains("rows       952")
            .contains("retention  ttl 1h; 2 segments dropped so far (the rows below row 2048)");
        r = run("retain", dir.toString(), "--table", "trades", "--ttl", "3M");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--ttl").contains("months");
        assertThat(run("retain", dir.toString(), "--table", "trades").code()).isEqualTo(2);
        r = run("create", dir.toString(), "--table", "kept", "--ttl", "30d");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("TTL 30d");
        assertThat(run("info", dir.toString(), "kept").out()).contains("retention  ttl 30d; 0 segments");
        assertThat(run("create", dir.toString(), "--table", "bad", "--ttl", "soon").code()).isEqualTo(2);
        r = run("drop", dir.toString(), "--table", "trades");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(Files.exists(dir.resolve("trades"))).isFalse();
        r = run("drop", dir.toString(), "--table", "trades");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("unknown table 'trades'");
    }

    /** A directory that is not a store has nothing to check: that is a failure, never a silent exit 0. */
    @Test
    void shouldRefuseToCheckADirectoryThatIsNotAStore() throws Exception {
        final Path empty = Files.createDirectories(dir.resolve("empty"));
        final Path other = Files.createDirectories(dir.resolve("other"));
        Files.writeString(other.resolve("notes.txt"), "not a table");
        Files.createDirectories(other.resolve("photos"));
        final Path missing = dir.resolve("missing");
        final Path file = Files.writeString(dir.resolve("a-file"), "x");
        for (final String[] c
            : new String[][] {{empty.toString(), "it is empty"}, {other.toString(), "none of its 2 entries is a table"},
            {missing.toString(), "there is no such directory"}, {file.toString(), "it is not a directory"}}) {
            final Run r = run("check", c[0]);
            assertThat(r.code()).as(c[0]).isEqualTo(1);
            assertThat(r.out()).as(c[0]).isEmpty();
            assertThat(r.err()).as(c[0]).contains("error: " + c[0] + " is not a tradestore store: " + c[1])
                .contains("each a subdirectory holding _schema.json and _txn");
        }
        assertThat(empty).isEmptyDirectory();
    }

    @Test
    void shouldReportAZoneMapThatDoesNotCoverItsData() throws Exception {
        TestStores.writeTrades(dir, 3000, 1);
        final Path zone = dir.resolve("trades").resolve("seg-000001").resolve(ZoneMapDescriptor.FILE_NAME);
        final int quantity = 7;
        // block 2: min raised above every value
        FileDamage.putLong(zone, ZoneMapDescriptor.entryOffset(8, 2, quantity), 1_000_000);
        FileDamage.resealZoneMap(zone); // as a writer would have written it: the checksums pass, the data does not
        final Run r = run("check", dir.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).contains("trades: DAMAGED").contains("segment 1 block 2 column 'quantity'")
            .contains("does not cover");
        assertThat(r.err()).contains("damaged");
    }

    @Test
    void shouldReportAZoneMapEntryDamagedInPlace() throws Exception {
        TestStores.writeTrades(dir, 3000, 1);
        final Path zone = dir.resolve("trades").resolve("seg-000001").resolve(ZoneMapDescriptor.FILE_NAME);
        FileDamage.flip(zone, ZoneMapDescriptor.entryOffset(8, 2, 1) + 3); // a byte of the ts min of block 2
        final Run r = run("check", dir.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).contains("trades: DAMAGED").contains("damaged zone map " + zone)
            .contains("the entries of block 2 (rows 256-383 of the segment) of segment 1 fail their checksum");
    }

    @Test
    void shouldReportATransactionRecordThatFailsItsChecksum() throws Exception {
        TestStores.writeTrades(dir, 3000, 1);
        final Path txn = dir.resolve("trades").resolve(TxnDescriptor.FILE_NAME);
        for (int slot = 0; slot < 2; slot++) {
            final long at = TxnDescriptor.slotOffset(slot, 2) + TxnDescriptor.SLOT_ROW_COUNT_OFFSET;
            FileDamage.putLong(txn, at, FileDamage.getLong(txn, at) + 1);
        }
        final Run r = run("check", dir.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).contains("DAMAGED").contains("checksum");
    }

    @Test
    void shouldRejectBadQueryUsage() {
        TestStores.writeTrades(dir, 100, 1);
        assertThat(run("query", dir.toString()).code()).isEqualTo(2);
        assertThat(run("query", dir.toString(), "{}", "--format", "xml").code()).isEqualTo(2);
        assertThat(run("query", dir.toString(), "@" + dir.resolve("missing.json")).code()).isEqualTo(1);
        assertThat(run("query", dir.resolve("nowhere").toString(), "{}").code()).isEqualTo(1);
    }

    @Test
    void shouldReadTheQueryFromAnAtFileAsItsOwnTextNotAsArguments() throws Exception {
        TestStores.writeTrades(dir, 100, 1);
        // pretty-printed, with spaces and quotes: picocli's own @file expansion split this into words and lost the
        // quotes
        final Path file = dir.resolve("q with space.json");
        Files.writeString(file,
            "{\n  \"table\": \"trades\",\n  \"aggs\": [ {\"name\": \"n\", \"op\": \"count\"} ]\n}\n");
        final Run r = run("query", dir.toString(), "@" + file, "--format", "csv");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out().lines()).containsExactly("n", "100");
        final Path compact = dir.resolve("compact.json");
        Files.writeString(compact, "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}");
        assertThat(run("query", dir.toString(), "@" + compact, "--format", "csv").out().lines())
            .containsExactly("n", "100");
    }

    @Test
    void shouldSayWhyAFileCouldNotBeReadOrWritten() {
        TestStores.writeTrades(dir, 100, 1);
        final Path missing = dir.resolve("missing.json");
        final Run read = run("query", dir.toString(), "@" + missing);
        assertThat(read.code()).isEqualTo(1);
        assertThat(read.err()).isEqualTo("error: cannot read @" + missing + ": no such file or directory\n");
        final Path nodir = dir.resolve("nodir");
        final Run write = run("generate", "--rows", "3", "--out", nodir.resolve("x.csv").toString());
        assertThat(write.code()).isEqualTo(1);
        assertThat(write.err())
            .isEqualTo("error: cannot write " + nodir.resolve("x.csv") + ": its directory " + nodir
            + " does not exist\n");
        final Path file = dir.resolve("trades").resolve("_schema.json");
        final Run under = run("create", file.resolve("s").toString());
        assertThat(under.code()).isEqualTo(1);
        assertThat(under.err())
            .isEqualTo("error: cannot create store directory " + file.resolve("s") + ": not a directory\n");
    }

    /**
     * A --schema is checked against the existing table it loads into, with --table as without (it was ignored with
     * --table).
     */
    @Test
    void shouldCheckASchemaAgainstTheExistingTableWithOrWithoutTable() throws Exception {
        final Path store = dir.resolve("s");
        final Path csv = dir.resolve("t.csv");
        assertThat(run("generate", "--rows", "3", "--out", csv.toString()).code()).isZero();
        assertThat(run("load", store.toString(), csv.toString()).code()).isZero();
        final Path other = dir.resolve("other.json");
        Files.writeString(other,
            io.tradestore.core.schema.SchemaCodec.toJson(io.tradestore.core.flyweight.TradesSchema.SCHEMA, true)
            .replaceFirst("(\"quantity\"[^}]*\")i64\"", "$1i32\"")); // quantity i32
        assertThat(Files.readString(other)).contains("i32");
        for (final String[] args
            : new String[][] {{"--schema", other.toString()}, {"--schema", other.toString(), "--table", "trades"}}) {
            final String[] all = new String[3 + args.length];
            all[0] = "load";
            all[1] = store.toString();
            all[2] = csv.toString();
            System.arraycopy(args, 0, all, 3, args.length);
            final Run r = run(all);
            assertThat(r.code()).as(String.join(" ", args)).isEqualTo(1);
            assertThat(r.err()).as(String.join(" ", args)).contains("table 'trades' exists with other columns");
        }
        final Path same = dir.resolve("same.json");
        Files.writeString(same,
            io.tradestore.core.schema.SchemaCodec.toJson(io.tradestore.core.flyweight.TradesSchema.SCHEMA, true));
        assertThat(run("load", store.toString(), csv.toString(), "--schema", same.toString(), "--table", "trades")
            .code()).isZero();
    }

    @Test
    void shouldExitWithUsageCodeNamingTheOptionForEveryBadOptionValue() throws Exception {
        final Path store = dir.resolve("s");
        final Path csv = dir.resolve("t.csv");
        assertThat(run("generate", "--rows", "3", "--out", csv.toString()).code()).isZero();
        final String[][] cases = {
            {"--segment-rows", "create", store.toString(), "--table", "t3", "--segment-rows", "1000"},
            {"--segment-rows", "create", store.toString(), "--segment-rows", "0"},
            {"--table", "create", store.toString(), "--table", "Bad-Name"},
            {"--block-rows", "create", store.toString(), "--table", "t5", "--block-rows", "3"},
            {"--block-rows", "create", store.toString(), "--segment-rows", "1024", "--block-rows", "2048"},
            {"--threads", "load", store.toString(), csv.toString(), "--threads", "0"},
            {"--table", "load", store.toString(), csv.toString(), "--table", "Bad"},
            {"--max-errors", "load", store.toString(), csv.toString(), "--on-error", "skip", "--max-errors", "-1"},
            {"--commit-every", "load", store.toString(), csv.toString(), "--commit-every", "-5"},
            {"--on-error", "load", store.toString(), csv.toString(), "--on-error", "maybe"},
            {"--rows", "generate", "--rows", "-1"},
            {"--threads", "serve", store.toString(), "--threads", "0"},
            {"--queue", "serve", store.toString(), "--queue", "-1"},
            {"--port", "demo", "--port", "99999"},
        };
        for (final String[] c : cases) {
            final Run r = run(java.util.Arrays.copyOfRange(c, 1, c.length));
            final String line = String.join(" ", java.util.Arrays.copyOfRange(c, 1, c.length));
            assertThat(r.code()).as(line + "\n" + r.err()).isEqualTo(2);
            assertThat(r.err()).as(line).contains(c[0]).doesNotContain("/segmentRows").doesNotContain("/blockRows")
                .doesNotContain("/name")
                .doesNotContain("threads=").doesNotContain("Exception");
        }
        assertThat(Files.exists(store)).as("bad usage creates no store").isFalse();
        assertThat(run("create", store.toString(), "--segment-rows", "1000").err()).startsWith(
            "error: Invalid value for option '--segment-rows': 1000 must be a power of two between 2 and 1073741824\n");
        assertThat(run("load", store.toString(), csv.toString(), "--threads", "0").err()).startsWith(
            "error: Invalid value for option '--threads': 0 must be between 1 and 256\n");
        // a genuine failure stays exit 1: a missing schema file, an existing table
        assertThat(run("create", store.toString(), "--schema", dir.resolve("missing.json").toString(), "--segment-rows",
            "1000").code()).isEqualTo(1);
        assertThat(run("create", store.toString()).code()).isZero();
        assertThat(run("create", store.toString(), "--segment-rows", "1024").code()).isEqualTo(1);
    }

    @Test
    void shouldRejectBadServeUsage() {
        TestStores.writeTrades(dir, 100, 1);
        final Run open = run("serve", dir.toString(), "--bind", "0.0.0.0");
        assertThat(open.code()).isEqualTo(2);
        assertThat(open.err()).contains("--token");
        assertThat(run("serve").code()).isEqualTo(2);
        assertThat(run("serve", dir.toString(), "--threads", "0").code()).isEqualTo(2);
        assertThat(run("serve", dir.toString(), "--port", "http").code()).isEqualTo(2);
    }

    @Test
    void shouldServeUntilSigtermThenExitZero() throws Exception {
        TestStores.writeTrades(dir, 3000, 1);
        try (ChildJvm child = ChildJvm.start("serve", dir.toString(), "--port", "0",
            "--pg-port", "0", "--threads", "2")) {
            final int port = child.awaitPort();
            final Http.Response r = new Http(port).get("/v1/tables");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).contains("\"rows\":3000");
            child.terminate();
            final int code = child.waitFor(20);
            assertThat(code).as(child.output()).isZero();
            assertThat(child.output()).contains("stopped after");
        }
    }

    @Test
    void shouldRunTheDemoAnswerItsExamplesAndCleanUp() throws Exception {
        final Path parent = dir.resolve("demo");
        Files.createDirectories(parent);
        try (ChildJvm child = ChildJvm.start("demo", "--rows", "30000", "--port", "0",
            "--pg-port", "0", "--dir", parent.toString())) {
            child.awaitLine("out: More: curl", 120); // printed on stdout after the three answers
            final String out = child.output();
            assertThat(out).contains("# Notional by side").contains("# VWAP of the 10 most traded instruments")
                .contains("# One-minute bars of");
            assertThat(out.lines().filter(l -> l.startsWith("out: curl -s http://127.0.0.1:")).count()).isEqualTo(3);
            assertThat(out.lines().filter(l -> l.startsWith("out: {\"columns\":")).count()).as(out).isEqualTo(3);
            final int port =
                Integer.parseInt(out.replaceAll("(?s).*server is at http://127\\.0\\.0\\.1:(\\d+).*", "$1"));
            assertThat(new Http(port).get("/v1/tables/trades").json().path("rows").asLong()).isEqualTo(30_000);
            // the console comes first, and the page is there
            assertThat(out.lines().filter(l -> l.startsWith("out: ") && l.length() > 5).findFirst())
                .hasValue("out: Open the console in a browser: http://127.0.0.1:" + port + "/");
            assertThat(new Http(port).get("/").status()).isEqualTo(200);
            // and the psql line names the PostgreSQL port the demo listens on
            final int pgPort = Integer.parseInt(out.replaceAll(
                "(?s).*out: psql -h 127\\.0\\.0\\.1 -p (\\d+) -U tradestore -d tradestore.*", "$1"));
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", pgPort)) {
                assertThat(s.isConnected()).isTrue();
            }
            child.terminate();
            assertThat(child.waitFor(30)).as(child.output()).isZero();
            assertThat(child.output()).contains("removed");
        }
        try (java.util.stream.Stream<Path> left = Files.list(parent)) {
            assertThat(left).as("temporary store removed").isEmpty();
        }
    }

    @Test
    void shouldRejectBadDemoUsage() {
        assertThat(run("demo", "--rows", "0").code()).isEqualTo(2);
        assertThat(run("demo", "--port", "99999").code()).isEqualTo(2);
        assertThat(run("demo", "extra").code()).isEqualTo(2);
    }
}
