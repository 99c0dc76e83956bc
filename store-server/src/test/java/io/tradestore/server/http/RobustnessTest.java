package io.tradestore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.tradestore.core.Store;
import io.tradestore.query.QueryEngine;
import io.tradestore.server.TestStores;

/**
 * Sends 10,000 seeded malformed or mutated queries to the real engine over HTTP: truncated JSON, flipped bytes, invalid
 * UTF-8, wrong types, huge numbers, deep nesting, unknown operators and fields, giant IN lists. Every answer must be
 * 200 or 4xx (never 500) and the server must be alive at the end. Replay one body with -Drobustness.seed=N.
 */
class RobustnessTest {
    private static final int BODIES = Integer.getInteger("robustness.bodies", 10_000);
    private static final long SEED = Long.getLong("robustness.seed", 20261117L);
    private static final int CLIENTS = 6;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String[] BASES = {
        "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}",
        "{\"table\":\"trades\",\"groupBy\":[\"side\"],\"aggs\":[{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*"
        + "quantity\"}]}",
        "{\"table\":\"trades\",\"time\":{\"from\":\"2026-11-17T08:00:00Z\",\"to\":\"2026-11-17T08:02:00Z\"},"
            + "\"filter\":{\"op\":\"and\",\"args\":[{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM042\"},"
            + "{\"op\":\"in\",\"col\":\"venue\",\"values\":[\"XLON\",\"XPAR\"]},{\"op\":\"range\",\"col\":\"quantity\""
            + ",\"gte\":100,\"lt\":10000},"
            + "{\"op\":\"not\",\"arg\":{\"op\":\"eq\",\"col\":\"side\",\"value\":\"S\"}}]},"
            + "\"groupBy\":[\"venue\",{\"bucket\":\"1m\",\"col\":\"ts\",\"as\":\"minute\"}],"
            + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"vwap\",\"op\":\"vwap\"},{\"name\":\"hi\",\"op\""
            + ":\"max\",\"col\":\"price\"},"
            + "{\"name\":\"open\",\"op\":\"first\",\"col\":\"price\"},{\"name\":\"p99\",\"op\":\"percentile\",\"col\":"
            + "\"quantity\",\"p\":99}],"
            + "\"orderBy\":[{\"col\":\"n\",\"desc\":true}],\"limit\":10,\"options\":{\"timeoutMs\":5000}}",
        "{\"table\":\"trades\",\"groupBy\":[\"instrument\"],\"aggs\":[{\"name\":\"vwap\",\"op\":\"vwap\"},"
            + "{\"name\":\"clients\",\"op\":\"countDistinct\",\"col\":\"client_id\"}],\"orderBy\":[{\"col\":\"vwap\","
            + "\"desc\":true}],\"limit\":10}",
        "{\"table\":\"trades\",\"columns\":[\"trade_id\",\"ts\",\"price\"],\"filter\":{\"op\":\"range\",\"col\":\"pric"
        + "e\",\"gt\":\"60.5\"},"
            + "\"orderBy\":[{\"col\":\"price\"}],\"limit\":5}",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"or\",\"args\":[{\"op\":\"eq\",\"col\":\"client_id\",\"value\":7},"
            + "{\"op\":\"ne\",\"col\":\"ts\",\"value\":1795420800000000000}]},\"aggs\":[{\"name\":\"q\",\"op\":\"avg\""
            + ",\"col\":\"quantity\"},"
            + "{\"name\":\"lo\",\"op\":\"min\",\"col\":\"ts\"},"
            + "{\"name\":\"close\",\"op\":\"last\",\"col\":\"price\"}]}",
    };
    private static final String[] WORDS =
        {"op", "col", "value", "values", "args", "arg", "eq", "ne", "in", "range", "and", "or", "not",
        "sum", "count", "vwap", "first", "last", "percentile", "countDistinct", "bucket", "1m", "1h", "0s", "-1m",
        "table", "trades",
        "price*quantity", "price*price*price", "*", "", "ts", "side", "venue", "instrument", "__proto__", "../trades",
        "XLON", "zz",
        "\u0000", "\uD83D\uDE00", "gte", "lt", "limit", "orderBy", "groupBy", "aggs", "columns", "filter", "time",
        "from", "to"};
    private static final String[] HUGE =
        {"1e400", "-1e400", "99999999999999999999999999999999999999", "-9223372036854775809",
        "9223372036854775808", "1e-400", "-0", "0.0000000000000000000000001", "123456789012345678901234567890.5",
        "1E+2147483648",
        "9223372036854775807", "-9223372036854775808", "2147483648", "-2147483649", "NaN", "Infinity", "1.5", "-1", "0",
        "\"99999999999999999999.999999999\"", "\"2026-13-45T99:99:99Z\"", "\"+1000000000-01-01T00:00:00Z\"", "\"\"",
        "[]", "{}", "null",
        "true", "\"1e400\"", "1" + "0".repeat(5000)};

    @TempDir
    Path dir;

    @Test
    void shouldAnswerEveryMalformedOrMutatedBodyWith200Or4xx() throws Exception {
        TestStores.writeTrades(dir, 3000, 3);
        final List<String> failures = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger[] byStatus = new AtomicInteger[600];
        for (int i = 0; i < byStatus.length; i++) {
            byStatus[i] = new AtomicInteger();
        }
        final ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try (Store store = Store.open(dir); QueryEngine engine = new QueryEngine(store, 2);
             QueryServer server = QueryServer.start(store, engine,
                 new ServerConfig("127.0.0.1", 0, 2, 64, 1 << 20, 10_000, null))) {
            final Http http = new Http(server.port());
            final List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                final int client = c;
                done.add(clients.submit(() -> {
                    for (int i = client; i < BODIES; i += CLIENTS) {
                        final byte[] body = body(SEED + i);
                        final Http.Response r = http.post("/v1/query", body);
                        byStatus[r.status()].incrementAndGet();
                        if (!(r.status() == 200 || r.status() >= 400 && r.status() < 500)) {
                            failures.add("seed=" + (SEED + i) + " status=" + r.status() + " answer="
                                + cut(r.body(), 300) + " body="
                                + cut(new String(body, StandardCharsets.UTF_8), 300));
                        } else if (r.status() != 200) {
                            final JsonNode e = r.json().path("error");
                            if (!e.path("code").isTextual() || !e.path("message").isTextual() || !e.path("path")
                                .isTextual()) {
                                failures.add("seed=" + (SEED + i) + " error body lacks code/message/path: "
                                    + cut(r.body(), 300));
                            }
                        }
                    }
                    return null;
                }));
            }
            for (final Future<?> f : done) {
                f.get(10, TimeUnit.MINUTES);
            }
            final StringBuilder summary = new StringBuilder();
            for (int s = 0; s < byStatus.length; s++) {
                if (byStatus[s].get() > 0) {
                    summary.append(s).append('=').append(byStatus[s].get()).append(' ');
                }
            }
            System.out.println("RobustnessTest: " + BODIES + " bodies, statuses " + summary);
            assertThat(failures).withFailMessage(() -> failures.size() + " answers other than 200/4xx, first 20:\n"
                + String.join("\n", failures.subList(0, Math.min(20, failures.size())))).isEmpty();
            assertThat(http.get("/health").status()).isEqualTo(200);
            assertThat(http.post("/v1/query", BASES[0]).status()).isEqualTo(200);
        } finally {
            clients.shutdownNow();
        }
    }

    private static String cut(final String s, final int n) {
        return s.length() <= n ? s : s.substring(0, n) + "...(" + s.length() + " chars)";
    }

    /**
     * Builds one body from its seed.
     *
     * @param seed the seed.
     * @return the body bytes.
     */
    static byte[] body(final long seed) {
        final Random rnd = new Random(seed);
        final String base = BASES[rnd.nextInt(BASES.length)];
        final byte[] b = base.getBytes(StandardCharsets.UTF_8);
        switch (rnd.nextInt(11)) {
            case 0: // truncated JSON
                return java.util.Arrays.copyOf(b, rnd.nextInt(b.length));
            case 1: // random byte edits
                return byteEdits(b, rnd);
            case 2: // invalid UTF-8 in a string or between tokens
                return invalidUtf8(base, b, rnd);
            case 3: { // wrong types: a random node replaced by a random value
                final JsonNode root = tree(base);
                replaceRandom(root, rnd, randomValue(rnd, 2));
                return root.toString().getBytes(StandardCharsets.UTF_8);
            }
            case 4: { // huge and odd numbers spliced in as raw text
                final JsonNode root = tree(base);
                final String marker = "\"@@HUGE@@\"";
                replaceRandom(root, rnd, NODES.textNode("@@HUGE@@"));
                return root.toString().replace(marker, HUGE[rnd.nextInt(HUGE.length)]).getBytes(StandardCharsets.UTF_8);
            }
            case 5: // deep nesting
                return deepNesting(rnd);
            case 6: // unknown operators, fields and names
                return unknownNames(base, rnd);
            case 7: // giant IN lists (kept rare: each is up to ~0.5 MB)
                return giantIn(rnd);
            case 8: // not an object at all
                return new String[] {"[]", "1", "\"trades\"", "null", "true", "{}", "[{}]", "{\"table\":null}",
                "{\"table\":\"\"}",
                    "{\"table\":\"../../etc/passwd\"}", "{\"table\":\"trades\"}", "{\"table\":\"trades\",\"aggs\":[]}",
                    " ", "{\"a\":1,\"a\":2}",
                    "{\"table\":\"trades\",\"table\":\"trades\"}", "\uFEFF{\"table\":\"trades\"}",
                    "{\"table\":\"trades\"} trailing",
                    "{\"table\":\"trades\"}{\"table\":\"trades\"}", "/* c */ {\"table\":\"trades\"}",
                    "{'table':'trades'}"}
                    [rnd.nextInt(20)].getBytes(StandardCharsets.UTF_8);
            case 9: // required parts removed
                return removedPart(base, rnd);
            default: { // several structural mutations at once
                final JsonNode root = tree(base);
                for (int k = 0; k < 1 + rnd.nextInt(4); k++) {
                    replaceRandom(root, rnd,
                        rnd.nextBoolean() ? randomValue(rnd, 2) : NODES.textNode(WORDS[rnd.nextInt(WORDS.length)]));
                }
                return root.toString().getBytes(StandardCharsets.UTF_8);
            }
        }
    }

    /** @return the body with one to five bytes changed, removed or inserted (JSON tokens among them). */
    private static byte[] byteEdits(final byte[] b, final Random rnd) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(b, 0, b.length);
        byte[] m = out.toByteArray();
        for (int k = 1 + rnd.nextInt(5); k > 0; k--) {
            final int at = rnd.nextInt(m.length);
            switch (rnd.nextInt(3)) {
                case 0:
                    m[at] = (byte) rnd.nextInt(256);
                    break;
                case 1:
                    m = splice(m, at, 1, new byte[0]);
                    break;
                default:
                    final byte[] tokens = "{}[]\":,\\0-e.".getBytes(StandardCharsets.UTF_8);
                    m = splice(m, at, 0, new byte[] {tokens[rnd.nextInt(tokens.length)]});
                    break;
            }
        }
        return m;
    }

    /** @return the body with an invalid UTF-8 sequence in the table name or anywhere. */
    private static byte[] invalidUtf8(final String base, final byte[] b, final Random rnd) {
        final byte[][] bad =
            {{(byte) 0xC3, 0x28}, {(byte) 0xFF}, {(byte) 0x80}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xE2, (byte) 0x82},
                {(byte) 0xC0, (byte) 0xAF}};
        final int quote = base.indexOf("\"trades\"") + 2;
        final int at = rnd.nextBoolean() ? quote : rnd.nextInt(b.length);
        return splice(b, at, 0, bad[rnd.nextInt(bad.length)]);
    }

    /** @return a filter nested a few or thousands of levels deep, now and then with one brace too many. */
    private static byte[] deepNesting(final Random rnd) {
        final int depth = 1 + rnd.nextInt(rnd.nextBoolean() ? 50 : 5000);
        final StringBuilder sb =
            new StringBuilder("{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}],\"filter\":");
        final String open = rnd.nextBoolean() ? "{\"op\":\"not\",\"arg\":" : "{\"op\":\"and\",\"args\":[";
        for (int i = 0; i < depth; i++) {
            sb.append(open);
        }
        sb.append("{\"op\":\"eq\",\"col\":\"side\",\"value\":\"B\"}");
        for (int i = 0; i < depth; i++) {
            sb.append(open.endsWith("[") ? "]}" : "}");
        }
        if (rnd.nextBoolean()) {
            sb.append('}');
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** @return the base with an unknown operator, column or field in one of its objects. */
    private static byte[] unknownNames(final String base, final Random rnd) {
        final JsonNode root = tree(base);
        final List<ObjectNode> objects = new ArrayList<>();
        collectObjects(root, objects);
        final ObjectNode o = objects.get(rnd.nextInt(objects.size()));
        if (o.has("op") && rnd.nextBoolean()) {
            o.put("op", WORDS[rnd.nextInt(WORDS.length)]);
        } else if (o.has("col") && rnd.nextBoolean()) {
            o.put("col", WORDS[rnd.nextInt(WORDS.length)]);
        } else {
            o.set(WORDS[rnd.nextInt(WORDS.length)], randomValue(rnd, 1));
        }
        return root.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** @return a filter with an IN list of up to 50,000 values, strings and numbers mixed. */
    private static byte[] giantIn(final Random rnd) {
        final int n = rnd.nextInt(50) == 0 ? 20_000 + rnd.nextInt(30_000) : 1 + rnd.nextInt(2000);
        final StringBuilder sb =
            new StringBuilder("{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}],"
            + "\"filter\":{\"op\":\"in\",\"col\":\"");
        final String col =
            new String[] {"venue", "instrument", "client_id", "side", "price", "ts"}[rnd.nextInt(6)];
        sb.append(col).append("\",\"values\":[");
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ",");
            if (rnd.nextInt(4) == 0) {
                sb.append(rnd.nextLong());
            } else {
                sb.append("\"SYM").append(i % 1000).append('"');
            }
        }
        return sb.append("]}}").toString().getBytes(StandardCharsets.UTF_8);
    }

    /** @return the base with one field of one of its objects removed. */
    private static byte[] removedPart(final String base, final Random rnd) {
        final JsonNode root = tree(base);
        final List<ObjectNode> objects = new ArrayList<>();
        collectObjects(root, objects);
        final ObjectNode o = objects.get(rnd.nextInt(objects.size()));
        final Iterator<String> names = o.fieldNames();
        final List<String> keys = new ArrayList<>();
        names.forEachRemaining(keys::add);
        if (!keys.isEmpty()) {
            o.remove(keys.get(rnd.nextInt(keys.size())));
        }
        return root.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] splice(final byte[] b, final int at, final int remove, final byte[] insert) {
        final byte[] out = new byte[b.length - remove + insert.length];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(insert, 0, out, at, insert.length);
        System.arraycopy(b, at + remove, out, at + insert.length, b.length - at - remove);
        return out;
    }

    private static JsonNode tree(final String json) {
        try {
            return Http.MAPPER.readTree(json);
        } catch (final java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void collectObjects(final JsonNode n, final List<ObjectNode> out) {
        if (n instanceof ObjectNode) {
            out.add((ObjectNode) n);
        }
        for (final JsonNode child : n) {
            collectObjects(child, out);
        }
    }

    /** Replaces a randomly chosen field value or array element anywhere in the tree. */
    private static void replaceRandom(final JsonNode root, final Random rnd, final JsonNode value) {
        final List<JsonNode> containers = new ArrayList<>();
        collectContainers(root, containers);
        final JsonNode c = containers.get(rnd.nextInt(containers.size()));
        if (c instanceof ObjectNode && c.size() > 0) {
            final List<String> keys = new ArrayList<>();
            c.fieldNames().forEachRemaining(keys::add);
            ((ObjectNode) c).set(keys.get(rnd.nextInt(keys.size())), value);
        } else if (c instanceof ArrayNode && c.size() > 0) {
            ((ArrayNode) c).set(rnd.nextInt(c.size()), value);
        }
    }

    private static void collectContainers(final JsonNode n, final List<JsonNode> out) {
        if (n.isContainerNode()) {
            out.add(n);
            for (final JsonNode child : n) {
                collectContainers(child, out);
            }
        }
    }

    private static JsonNode randomValue(final Random rnd, final int depth) {
        switch (rnd.nextInt(depth > 0 ? 9 : 7)) {
            case 0:
                return NODES.nullNode();
            case 1:
                return NODES.booleanNode(rnd.nextBoolean());
            case 2:
                return NODES.numberNode(rnd.nextLong());
            case 3:
                return NODES.numberNode(rnd.nextDouble() * Math.pow(10, rnd.nextInt(40) - 20));
            case 4:
                return NODES.textNode(WORDS[rnd.nextInt(WORDS.length)]);
            case 5:
                return NODES.numberNode(rnd.nextInt(3) - 1);
            case 6:
                return NODES.textNode("");
            case 7: {
                final ArrayNode a = NODES.arrayNode();
                for (int i = rnd.nextInt(4); i > 0; i--) {
                    a.add(randomValue(rnd, depth - 1));
                }
                return a;
            }
            default: {
                final ObjectNode o = NODES.objectNode();
                for (int i = rnd.nextInt(4); i > 0; i--) {
                    o.set(WORDS[rnd.nextInt(WORDS.length)], randomValue(rnd, depth - 1));
                }
                return o;
            }
        }
    }

    @Test
    void shouldBuildTheSameBodyFromTheSameSeed() {
        for (long s = 0; s < 200; s++) {
            assertThat(body(s)).isEqualTo(body(s));
        }
    }
}
