package io.tradestore.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.tradestore.core.Store;
import io.tradestore.core.ingest.CsvLoader;
import io.tradestore.core.ingest.LoadOptions;
import io.tradestore.core.sample.TradeGenerator;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.cli.TradestoreCli;
import io.tradestore.server.http.Http;
import io.tradestore.server.http.QueryServer;
import io.tradestore.server.http.ServerConfig;

/**
 * Runs every example of docs/cli.md and docs/http-api.md, and checks docs/openapi.yaml names every route and status.
 */
class DocsExamplesTest {
    private static final Pattern EXPECT = Pattern.compile("#\\s*->\\s*(\\d{3})\\s*$");

    @TempDir
    Path dir;

    static Path docs() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("docs"))) {
            p = p.getParent();
        }
        assertThat(p).as("docs directory above " + Path.of("").toAbsolutePath()).isNotNull();
        return p.resolve("docs");
    }

    /** @return the lines inside ```sh blocks. */
    static List<String> shellLines(final Path md) throws IOException {
        final List<String> out = new ArrayList<>();
        boolean in = false;
        for (final String line : Files.readAllLines(md)) {
            if (line.startsWith("```")) {
                in = !in && line.startsWith("```sh");
                continue;
            }
            if (in && !line.isBlank()) {
                out.add(line.trim());
            }
        }
        return out;
    }

    /** Splits a shell line into words, honouring single quotes; stops at an unquoted #. */
    static List<String> words(final String line) {
        final List<String> w = new ArrayList<>();
        final StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        boolean any = false;
        for (int i = 0; i < line.length(); i++) {
            final char c = line.charAt(i);
            if (c == '\'') {
                quoted = !quoted;
                any = true;
            } else if (!quoted && c == '#') {
                break;
            } else if (!quoted && Character.isWhitespace(c)) {
                if (any) {
                    w.add(cur.toString());
                    cur.setLength(0);
                    any = false;
                }
            } else {
                cur.append(c);
                any = true;
            }
        }
        if (any) {
            w.add(cur.toString());
        }
        return w;
    }

    /** @param name a directory under the test's. @return a store there with the default trades table, loaded. */
    private Path tradesStore(final String name) throws IOException {
        final Path store = dir.resolve(name);
        try (Store s = Store.open(store)) {
            s.createTable(io.tradestore.core.flyweight.TradesSchema.SCHEMA);
        }
        load(store);
        return store;
    }

    private void load(final Path store) throws IOException {
        final Path csv = dir.resolve("trades.csv");
        TradeGenerator.writeCsv(csv, 20_000, 42);
        try (Store s = Store.open(store)) {
            CsvLoader.load(s.table("trades"), List.of(csv), LoadOptions.defaults(), null);
        }
    }

    @Test
    void shouldRunEveryCliExample() throws IOException {
        final Path store = dir.resolve("data");
        boolean loaded = false;
        int ran = 0;
        for (final String line : shellLines(docs().resolve("cli.md"))) {
            final List<String> w = words(line);
            assertThat(w.get(0)).as(line).isEqualTo("bin/tradestore");
            final String command = w.get(1);
            if (command.equals("serve") || command.equals("demo")) {
                continue; // long-running: CliTest runs both in a child JVM
            }
            final String[] args = w.subList(1, w.size()).stream().map(a -> a.equals("data") ? store.toString()
                : a.startsWith("exports") ? dir.resolve(a).toString() : a)
                .toArray(String[]::new);
            final StringWriter out = new StringWriter();
            final StringWriter err = new StringWriter();
            final int code = TradestoreCli.commandLine(new PrintWriter(out, true), new PrintWriter(err, true))
                .execute(args);
            assertThat(code).as(line + "\nstdout: " + out + "\nstderr: " + err).isZero();
            ran++;
            if (!loaded && command.equals("create")) {
                load(store);
                loaded = true;
            }
        }
        assertThat(ran).isGreaterThanOrEqualTo(7);
        // the export examples wrote the table, as Parquet, under the test's directory
        assertThat(dir.resolve("exports/trades/_tradestore_export.json")).isRegularFile();
        assertThat(dir.resolve("exports-spark/trades/_tradestore_export.json")).isRegularFile();
    }

    @Test
    void shouldAnswerEveryHttpExampleAsDocumented() throws IOException {
        final Path store = tradesStore("data");
        final Path md = docs().resolve("http-api.md");
        final String text = Files.readString(md);
        try (Store s = Store.open(store); QueryEngine engine = new QueryEngine(s, 2);
             QueryServer server =
                 QueryServer.start(s, engine, new ServerConfig("127.0.0.1", 0, 2, 16, 1 << 20, 10_000, null))) {
            final Http http = new Http(server.port());
            JsonNode firstAnswer = null;
            JsonNode firstError = null;
            JsonNode sqlError = null;
            int ran = 0;
            for (final String line : shellLines(md)) {
                final Matcher m = EXPECT.matcher(line);
                final int expected = m.find() ? Integer.parseInt(m.group(1)) : 200;
                final List<String> w = words(line);
                assertThat(w.get(0)).as(line).isEqualTo("curl");
                String url = null;
                String body = null;
                String q = null;
                final List<String> params = new ArrayList<>();
                boolean get = false;
                for (int i = 1; i < w.size(); i++) {
                    switch (w.get(i)) {
                        case "-s":
                            break;
                        case "-o":
                            i++; // the file the answer goes to: the test reads it from the response
                            break;
                        case "-G":
                            get = true;
                            break;
                        case "-d":
                            if (get) {
                                params.add(w.get(++i));
                            } else {
                                body = w.get(++i);
                            }
                            break;
                        case "--data-urlencode":
                            q = w.get(++i).substring(2);
                            break;
                        case "--data-binary":
                            body = w.get(++i);
                            break;
                        case "-H":
                            i++; // the content type: /v1/sql takes any
                            break;
                        default:
                            url = w.get(i);
                    }
                }
                assertThat(url).as(line).startsWith("http://127.0.0.1:8080/");
                String path = url.substring("http://127.0.0.1:8080".length());
                final Http.Response r;
                if (get && q != null) {
                    path += "?q=" + URLEncoder.encode(q, StandardCharsets.UTF_8) + params.stream().map(p -> "&" + p)
                        .reduce("", String::concat);
                    r = http.get(path);
                } else if (body != null) {
                    r = http.post(path, body);
                } else {
                    r = http.get(path);
                }
                assertThat(r.status()).as(line + "\n" + r.body()).isEqualTo(expected);
                if (firstAnswer == null && body != null && expected == 200) {
                    firstAnswer = r.json();
                }
                if (firstError == null && expected != 200) {
                    firstError = r.json();
                }
                if (path.startsWith("/v1/sql") && expected != 200) {
                    sqlError = r.json();
                }
                ran++;
            }
            assertThat(ran).isGreaterThanOrEqualTo(9);
            // the documented answer of the first example has the real answer's columns
            final int start = text.indexOf("```json") + "```json".length();
            final JsonNode documented = Http.MAPPER.readTree(text.substring(start, text.indexOf("```", start)));
            assertThat(documented.path("columns")).isEqualTo(firstAnswer.path("columns"));
            assertThat(documented.path("rows").size()).isEqualTo(firstAnswer.path("rows").size());
            // the documented error (the second JSON block) is the server's answer to the first failing example, word
            // for word
            final int errorStart = text.indexOf("```json", start) + "```json".length();
            assertThat(Http.MAPPER.readTree(text.substring(errorStart, text.indexOf("```", errorStart))))
                .isEqualTo(firstError);
            // and the documented SQL error (the block after "position") is the answer to the failing SQL example
            final int sqlStart = text.indexOf("```json", text.indexOf("has `position` instead")) + "```json".length();
            assertThat(Http.MAPPER.readTree(text.substring(sqlStart, text.indexOf("```", sqlStart))))
                .isEqualTo(sqlError);
        }
    }

    /**
     * Every ```sql block of docs/sql.md runs on the engine; a block whose first line is {@code -- refused: ...} must be
     * refused with a line and column.
     */
    @Test
    void shouldRunEverySqlExampleAndRefuseEveryRefusedOne() throws IOException {
        final Path store = tradesStore("sqldocs");
        final List<String> blocks = new ArrayList<>();
        StringBuilder block = null;
        for (final String line : Files.readAllLines(docs().resolve("sql.md"))) {
            if (line.startsWith("```")) {
                if (block != null) {
                    blocks.add(block.toString());
                }
                block = line.startsWith("```sql") ? new StringBuilder() : null;
            } else if (block != null) {
                block.append(line).append('\n');
            }
        }
        int ran = 0;
        int refused = 0;
        try (Store s = Store.open(store); QueryEngine engine = new QueryEngine(s, 2)) {
            for (final String sql : blocks) {
                if (sql.startsWith("-- refused")) {
                    assertThatThrownBy(() -> engine.executeSql(sql)).as(sql)
                        .isInstanceOfSatisfying(io.tradestore.query.sql.SqlException.class,
                            e -> assertThat(e.line()).isPositive());
                    refused++;
                } else {
                    assertThat(engine.executeSql(sql).columns()).as(sql).isNotEmpty();
                    ran++;
                }
            }
        }
        assertThat(ran).isGreaterThanOrEqualTo(5);
        assertThat(refused).isGreaterThanOrEqualTo(8);
    }

    @Test
    void shouldDescribeEveryRouteAndStatusInOpenApi() throws IOException {
        final String yaml = Files.readString(docs().resolve("openapi.yaml"));
        for (final String path
            : new String[] {"/v1/query:", "/v1/sql:", "/v1/tables:", "/v1/tables/{name}:", "/metrics:", "/health:",
                "/v1/queries/{id}:", "/:", "/console/{file}:"}) {
            assertThat(yaml).contains("\n  " + path);
        }
        for (final String status : new String[] {"200", "400", "401", "404", "405", "413", "500", "503", "504"}) {
            assertThat(yaml).contains("'" + status + "':");
        }
        // every error code of http-api.md's table (the engine's and the server's own) is in the Error schema's enum
        final String codeEnum = section(yaml, "              enum: [MALFORMED_JSON", "            message:");
        final Matcher row = Pattern.compile("(?m)^\\| (\\d{3}) \\| `([A-Z_]+)` \\|")
            .matcher(Files.readString(docs().resolve("http-api.md")));
        final List<String> codes = new ArrayList<>();
        while (row.find()) {
            codes.add(row.group(2));
            assertThat(yaml).as(row.group(2)).contains("'" + row.group(1) + "':");
        }
        assertThat(codes).hasSizeGreaterThanOrEqualTo(13).contains("MALFORMED_REQUEST");
        for (final io.tradestore.query.ErrorCode c : io.tradestore.query.ErrorCode.values()) {
            assertThat(codes).contains(c.name());
        }
        for (final String code : codes) {
            assertThat(codeEnum).as("Error.code enum").containsPattern("[\\[ ]" + code + "[,\\]]");
        }
        // every field of query-language.md's table is a property of the Query schema (options.x under options)
        final String query = section(yaml, "\n    Query:\n", "\n    Result:\n");
        final String options = section(query, "\n        options:\n", "\n    Result");
        final String fieldTable = section(Files.readString(docs().resolve("query-language.md")), "## Fields", "\n## ");
        final Matcher field = Pattern.compile("(?m)^\\| `([a-zA-Z.]+)` \\|").matcher(fieldTable);
        int fields = 0;
        while (field.find()) {
            final String f = field.group(1);
            if (f.startsWith("options.")) {
                assertThat(options).as(f).contains("\n            " + f.substring("options.".length()) + ":");
            } else {
                assertThat(query).as(f).contains("\n        " + f + ":");
            }
            fields++;
        }
        assertThat(fields).isGreaterThanOrEqualTo(12);
        assertThat(yaml).doesNotContain("\t");
    }

    /** @return the text from the first {@code from} to the next {@code to} after it (to the end when absent). */
    private static String section(final String text, final String from, final String to) {
        final int start = text.indexOf(from);
        assertThat(start).as(from).isNotNegative();
        final int end = text.indexOf(to, start + from.length());
        return text.substring(start, end < 0 ? text.length() : end);
    }
}
