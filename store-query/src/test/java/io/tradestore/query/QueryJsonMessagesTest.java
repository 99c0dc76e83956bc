package io.tradestore.query;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.tradestore.query.parse.QueryParser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A query that is not JSON is told why in a user's words, with where: never Jackson's class names, feature switches or
 * advice to enable them (the server and the CLI show these messages as they are).
 */
class QueryJsonMessagesTest {
    private static final String PREFIX = "the query is not valid JSON: ";
    private static final String QUERY =
        "{\"table\":\"trades\",\"time\":{\"from\":\"2026-11-16T08:00:00Z\"},\"filter\":{\"op\":\"and\",\"args\":["
        + "{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM042\"},{\"op\":\"range\",\"col\":\"price\",\"gte\":1.5"
        + "e2,\"lt\":-3}]},"
        + "\"groupBy\":[\"venue\",{\"bucket\":\"1m\",\"col\":\"ts\"}],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
        + "{\"name\":\"v\",\"op\":\"sum\",\"col\":\"price*quantity\"}],\"orderBy\":[{\"col\":\"n\",\"desc\":true}],\"l"
        + "imit\":10,"
        + "\"options\":{\"timeoutMs\":5000,\"epochNanos\":false,\"x\":null}}";

    static Stream<Arguments> damaged() {
        return Stream.of(
            Arguments.of("{\"table\":\"t\"}{\"table\":\"t\"}",
            "more text follows the end of the JSON value (line 1, column 14)"),
            Arguments.of("{\"table\":\"t\",\"aggs\":[",
            "the text ends inside the array opened at line 1, column 21 (line 1, column 22)"),
            Arguments.of("{\"table\":\"t\",\n\"options\":{",
            "the text ends inside the object opened at line 2, column 11 (line 2, column 12)"),
            Arguments.of("{\"table\":\"t\",\"limit\":NaN}",
            "'NaN' is not a JSON value (JSON numbers have no NaN or Infinity) (line 1, column 25)"),
            Arguments.of("{\"table\":\"t\",\"limit\":-Infinity}",
                "'-Infinity' is not a JSON value (JSON numbers have no NaN or Infinity) (line 1, column 31)"),
            Arguments.of("{\"table\":\"t\",\"limit\":1e-99999999999}",
            "the number 1e-99999999999 is out of range: its exponent does not fit"),
            Arguments.of("{\"table\":\"t\",\"limit\":1E+2147483648}",
            "the number 1E+2147483648 is out of range: its exponent does not fit"),
            Arguments.of("// note\n{}", "unexpected character '/': JSON has no comments (line 1, column 1)"),
            Arguments.of("{\"a\":+1}",
                "Unexpected character ('+' (code 43)) in numeric value: JSON spec does not allow numbers to have plus "
                + "signs (line 1, column 7)"));
    }

    /**
     * Jackson's words before: "Trailing token (of type START_OBJECT) found after value (bound as
     * `com.fasterxml...`)..." and so on.
     */
    @ParameterizedTest
    @MethodSource("damaged")
    void shouldSayWhyInWords(final String json, final String expected) {
        assertThatThrownBy(() -> QueryParser.parse(json)).isInstanceOfSatisfying(QueryException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_JSON);
            assertThat(e.getMessage()).isEqualTo(PREFIX + expected);
            assertThat(e.path()).isEmpty();
        });
    }

    @Test
    void shouldSayWhichLimitAQueryPasses() {
        assertMessage("{\"table\":\"t\",\"x\":" + "[".repeat(1001) + "]".repeat(1001) + "}",
            "the JSON nests deeper than 1000 levels");
        assertMessage("{\"table\":\"t\",\"limit\":" + "9".repeat(2000) + "}",
            "a number is longer than 1000 characters (2000)");
    }

    private static void assertMessage(final String json, final String expected) {
        assertThatThrownBy(() -> QueryParser.parse(json)).hasMessage(PREFIX + expected);
        assertThatThrownBy(() -> QueryParser.parse(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8))))
            .hasMessage(PREFIX + expected);
    }

    /**
     * Random damage to a query that uses every kind of JSON token: whatever Jackson says, none of its internals show.
     */
    @Test
    void shouldNeverShowJacksonsInternals() {
        final SplittableRandom random = new SplittableRandom(20_261_122L);
        final String pieces = "{}[]\",:-+.eE0 \nNaNInfinitytruefalsenull/\\'x";
        int malformed = 0;
        for (int i = 0; i < 20_000; i++) {
            final StringBuilder q = new StringBuilder(QUERY);
            for (int k = 1 + random.nextInt(3); k > 0; k--) {
                final int at = random.nextInt(q.length() + 1);
                switch (random.nextInt(3)) {
                    case 0:
                        q.insert(at, pieces.charAt(random.nextInt(pieces.length())));
                        break;
                    case 1:
                        if (at < q.length()) {
                            q.deleteCharAt(at);
                        }
                        break;
                    default:
                        q.setLength(Math.min(q.length(), at));
                }
            }
            try {
                QueryParser.parse(q.toString());
            } catch (final QueryException e) {
                if (e.code() == ErrorCode.MALFORMED_JSON) {
                    malformed++;
                    assertThat(e.getMessage()).as(q.toString())
                        .doesNotContain("`", "jackson", "Feature", "REDACTED", "java.", "Source:", "enable",
                        "bound as");
                }
            }
        }
        assertThat(malformed).as("damaged queries that were not JSON").isGreaterThan(5_000);
    }
}
