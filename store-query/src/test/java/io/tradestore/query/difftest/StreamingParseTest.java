package io.tradestore.query.difftest;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.tradestore.core.schema.Layout;
import io.tradestore.query.QueryException;
import io.tradestore.query.model.Query;
import io.tradestore.query.parse.QueryParser;
import io.tradestore.query.gen.QueryGenerator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link QueryParser#parse(String)} reads well-formed queries straight from the token stream and leaves everything
 * else to the tree reading ({@link QueryParser#parseTree}): both must give the same model for every query the
 * differential generator draws, and the same model or the same error (code, message, path) for every mutant of them,
 * from text and from bytes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StreamingParseTest {
    private static final long SEED = Long.getLong("tradestore.parse.seed", 20_261_128L);
    /** Snippets a mutant splices in: other types, nulls, extreme and inexact numbers, unknown fields, broken JSON. */
    private static final String[] SPLICES = {"null", "true", "1", "-1", "0", "1.50", "1e400", "1E+2147483648",
        "99999999999999999999", "-9223372036854775808", "9223372036854775808", "2147483648", "\"x\"", "\"\"", "[]",
        "{}", "[1]", "{\"op\":\"eq\"}", "\"zz\":1,", ",", "}", "]", "{", "[", ":", "\"op\":\"not\",\"arg\":",
        "\"col\":null,", "\"p\":50,", "\"desc\":1,", "\"as\":null,", "\"bucket\":null,", "\"values\":[],",
        "\"gt\":null,", "\"gte\":1,", "\"lt\":\"x\",", "\"limit\":null,", "\"options\":{},", "\"time\":null,",
        "\"table\":\"t\",", "\"\\uFEFF\"", "/*c*/", "1 2", "\"op\":\"in\",", "\"op\":\"range\","};
    private final List<String> queries = new ArrayList<>();

    @BeforeAll
    void generate() {
        final SplittableRandom r = new SplittableRandom(SEED);
        final DiffTable[] tables = {
            new DiffTable("t_a", Layout.COLUMN, 8, 4, 300, 0.10, DiffTable.TsMode.TIES, r.nextLong()),
            new DiffTable("t_b", Layout.ROW, 64, 16, 500, 0.05, DiffTable.TsMode.UNIQUE, r.nextLong()),
            new DiffTable("t_e", Layout.ROW, 8, 8, 0, 0.1, DiffTable.TsMode.UNIQUE, r.nextLong())};
        for (int i = 0; i < 1_500; i++) {
            queries.add(new QueryGenerator(tables[i % tables.length], SEED + i, "q" + i).next().json());
        }
    }

    @Test
    void shouldReadEveryGeneratedQueryAsTheTreeDoes() {
        for (final String json : queries) {
            final Query tree = QueryParser.parseTree(json);
            assertThat(QueryParser.parse(json)).as(json).isEqualTo(tree);
            assertThat(QueryParser.parse(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8))))
                .as(json).isEqualTo(tree);
        }
    }

    @Test
    void shouldGiveTheTreesAnswerOrErrorForEveryMutant() {
        final SplittableRandom r = new SplittableRandom(SEED ^ 0x5EED);
        int accepted = 0;
        int refused = 0;
        for (int i = 0; i < 30_000; i++) {
            final String json = mutate(queries.get(r.nextInt(queries.size())), r);
            final Object tree = outcome(() -> QueryParser.parseTree(json));
            assertThat(outcome(() -> QueryParser.parse(json))).as(json).isEqualTo(tree);
            if (tree instanceof Query) {
                accepted++;
                assertThat(outcome(() -> QueryParser.parse(new ByteArrayInputStream(
                    json.getBytes(StandardCharsets.UTF_8))))).as(json).isEqualTo(tree);
            } else {
                refused++;
            }
        }
        // both kinds are exercised
        assertThat(accepted).isGreaterThan(1_000);
        assertThat(refused).isGreaterThan(10_000);
    }

    /** @return the text with one to three edits: a snippet spliced in, a span deleted, or a span repeated. */
    private static String mutate(final String json, final SplittableRandom r) {
        String s = json;
        for (int edits = 1 + r.nextInt(3); edits > 0 && !s.isEmpty(); edits--) {
            final int at = r.nextInt(s.length());
            final int end = Math.min(s.length(), at + 1 + r.nextInt(12));
            switch (r.nextInt(4)) {
                case 0 -> s = s.substring(0, at) + SPLICES[r.nextInt(SPLICES.length)] + s.substring(at);
                case 1 -> s = s.substring(0, at) + SPLICES[r.nextInt(SPLICES.length)] + s.substring(end);
                case 2 -> s = s.substring(0, at) + s.substring(end);
                default -> s = s.substring(0, end) + s.substring(at, end) + s.substring(end);
            }
        }
        return s;
    }

    /** @return the parsed query, or the error as {@code code|message|path}. */
    private static Object outcome(final java.util.function.Supplier<Query> parse) {
        try {
            return Objects.requireNonNull(parse.get());
        } catch (final QueryException e) {
            return e.code() + "|" + e.getMessage() + "|" + e.path();
        }
    }
}
