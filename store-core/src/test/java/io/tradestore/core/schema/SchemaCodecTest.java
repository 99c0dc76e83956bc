package io.tradestore.core.schema;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.StoreException;
import io.tradestore.core.flyweight.TradesSchema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SchemaCodecTest {
    @Test
    void shouldRoundTripTheTradesSchema() {
        final Schema s = TradesSchema.SCHEMA;
        final Schema back = SchemaCodec.parse(SchemaCodec.toJson(s, true), "x");
        assertThat(back).isEqualTo(s);
        assertThat(back.hash()).isEqualTo(s.hash());
        assertThat(s.bytesPerRow()).isEqualTo(49);
        assertThat(s.rowLength()).isEqualTo(56);
        assertThat(s.column(s.timestampIndex()).name()).isEqualTo("ts");
        assertThat(s.require("price").scale()).isEqualTo(6);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"i65\"}]}|/columns/0/type: unknown type 'i65'",
        "{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"decimal(19)\"}]}|/columns/0/type: decimal scale 19",
        "{\"name\":\"T\",\"columns\":[{\"name\":\"a\",\"type\":\"i8\"}]}|/name: table name 'T'",
        "{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"i8\"},{\"name\":\"a\",\"type\":\"i8\"}]}|/columns/1/n"
        + "ame: duplicate column 'a'",
        "{\"name\":\"t\",\"columns\":[]}|/columns: a table needs at least one column",
        "{\"name\":\"t\",\"segmentRows\":1000,\"columns\":[{\"name\":\"a\",\"type\":\"i8\"}]}|/segmentRows: 1000 must "
        + "be a power of two",
        "{\"name\":\"t\",\"timestamp\":\"a\",\"columns\":[{\"name\":\"a\",\"type\":\"i64\"}]}|/timestamp: designated "
        + "timestamp 'a' must be",
        "{\"name\":\"t\",\"timestamp\":\"b\",\"columns\":[{\"name\":\"a\",\"type\":\"i64\"}]}|/timestamp: designated "
        + "timestamp 'b' is not a column",
        "{\"name\":\"t\",\"colums\":[]}|/colums: unknown field",
        "{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":7}]}|/columns/0/type: must be a string",
        "{\"formatVersion\":2,\"name\":\"t\",\"columns\":[]}|/formatVersion: schema format 2 is newer",
        "{\"name\":\"t\",\"layout\":\"DIAGONAL\",\"columns\":[]}|/layout: unknown layout 'DIAGONAL'",
        "{\"name\":\"t\",|malformed schema JSON: the text ends inside an object (line 1, column 13)"})
    void shouldNameTheFieldAndTheProblem(final String json, final String message) {
        assertThatThrownBy(() -> SchemaCodec.parse(json, "s.json")).isInstanceOf(StoreException.class)
            .hasMessageStartingWith("s.json: ").hasMessageContaining(message);
    }

    /** Jackson gives no location for a text nested too deep: the message was a NullPointerException before. */
    @Test
    void shouldSayWhyATextNestedTooDeepIsNoSchema() {
        final String json = "{\"name\":" + "[".repeat(1001) + "]".repeat(1001) + "}";
        assertThatThrownBy(() -> SchemaCodec.parse(json, "s.json")).isInstanceOf(StoreException.class)
            .hasMessage("s.json: malformed schema JSON: the JSON nests deeper than 1000 levels");
    }
}
