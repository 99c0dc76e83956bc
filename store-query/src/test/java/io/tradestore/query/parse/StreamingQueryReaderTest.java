package io.tradestore.query.parse;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The streaming reader accepts well-formed queries of every form (so they never pay for a tree) and gives up on what
 * the tree reading refuses; {@code StreamingParseTest} checks that the two agree on thousands of generated queries.
 */
class StreamingQueryReaderTest {
    @ParameterizedTest
    @ValueSource(strings = {
        "{\"table\":\"trades\"}",
        "\uFEFF{\"table\":\"trades\",\"columns\":[\"ts\",\"price\"],\"orderBy\":[\"ts\"],\"limit\":5}",
        "{\"aggs\":[{\"op\":\"count\",\"name\":\"n\"}],\"table\":\"trades\",\"time\":{\"to\":1,\"from\":null}}",
        "{\"table\":\"trades\",\"time\":{\"from\":\"2026-11-17T10:00:00Z\",\"to\":\"2026-11-17T12:00:00Z\"},"
            + "\"filter\":{\"op\":\"and\",\"args\":[{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM042\"},"
            + "{\"col\":\"quantity\",\"lt\":10000,\"gte\":100,\"op\":\"range\"},"
            + "{\"op\":\"not\",\"arg\":{\"op\":\"in\",\"col\":\"price\",\"values\":[1.50,\"2\",99999999999999999999]}},"
            + "{\"op\":\"or\",\"args\":[{\"op\":\"ne\",\"col\":\"side\",\"value\":\"B\"}]}]},"
            + "\"groupBy\":[\"venue\",{\"bucket\":\"1m\",\"col\":\"ts\",\"as\":\"minute\"},{\"col\":\"side\"}],"
            + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"notional\",\"op\":\"sum\","
            + "\"col\":\"price*quantity\"},{\"name\":\"p\",\"op\":\"percentile\",\"col\":\"price\",\"p\":99.9},"
            + "{\"name\":\"v\",\"op\":\"vwap\",\"p\":null}],"
            + "\"having\":{\"op\":\"range\",\"col\":\"n\",\"gt\":1},"
            + "\"orderBy\":[{\"col\":\"notional\",\"desc\":true},{\"col\":\"n\",\"desc\":null}],\"limit\":10,"
            + "\"options\":{\"timeoutMs\":5000,\"maxGroups\":null,\"epochNanos\":true}}"})
    void shouldReadWellFormedQueriesWithoutATree(final String json) throws Exception {
        final String text = json.startsWith("\uFEFF") ? json.substring(1) : json;
        final var read = StreamingQueryReader.read(new com.fasterxml.jackson.core.JsonFactory().createParser(text));
        assertThat(read).isEqualTo(QueryParser.parseTree(text));
        assertThat(QueryParser.parse(json)).isEqualTo(read);
        assertThat(QueryParser.parse(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)))).isEqualTo(read);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "[]", "{}", "{\"table\":1}", "{\"table\":\"t\"} 1", "{\"table\":\"t\",\"x\":null}",
        "{\"table\":\"t\",\"filter\":{\"op\":\"eq\",\"col\":\"a\",\"value\":null}}",
        "{\"table\":\"t\",\"filter\":{\"op\":\"eq\",\"col\":\"a\",\"value\":1,\"gt\":null}}",
        "{\"table\":\"t\",\"filter\":{\"op\":\"range\",\"col\":\"a\",\"gt\":1,\"gte\":1}}",
        "{\"table\":\"t\",\"limit\":-1}", "{\"table\":\"t\",\"aggs\":[{\"name\":\"n\",\"op\":\"nope\"}]}",
        "{\"table\":\"t\",\"filter\":{\"op\":\"in\",\"col\":\"a\",\"values\":[1E+2147483648]}}"})
    void shouldGiveUpOnWhatTheTreeRefuses(final String json) throws Exception {
        assertThat(StreamingQueryReader.read(new com.fasterxml.jackson.core.JsonFactory().createParser(json)))
            .isNull();
    }
}
