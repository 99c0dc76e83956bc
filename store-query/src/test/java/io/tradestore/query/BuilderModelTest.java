package io.tradestore.query;

import java.math.BigDecimal;

import org.junit.jupiter.api.Test;

import io.tradestore.query.model.Agg;
import io.tradestore.query.model.Filter;
import io.tradestore.query.model.Query;

import static org.assertj.core.api.Assertions.assertThat;

/** The fluent builder and the JSON parser make the same model of the same query (records: equal field by field). */
class BuilderModelTest {
    @Test
    void shouldBuildTheModelTheParserMakesOfAnAggregateQuery() {
        final String json =
            "{\"table\":\"trades\",\"time\":{\"from\":\"2026-11-16T08:00:00Z\",\"to\":\"2026-11-16T10:00:00Z\"},"
            + "\"filter\":{\"op\":\"and\",\"args\":[{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM1\"},"
            + "{\"op\":\"in\",\"col\":\"venue\",\"values\":[\"XLON\",\"XPAR\"]},"
            + "{\"op\":\"not\",\"arg\":{\"op\":\"range\",\"col\":\"price\",\"gte\":\"10.5\",\"lt\":\"20\"}},"
            + "{\"op\":\"or\",\"args\":[{\"op\":\"ne\",\"col\":\"side\",\"value\":\"S\"},{\"op\":\"range\",\"col\":\"q"
            + "uantity\",\"gt\":100}]}]},"
            + "\"groupBy\":[\"side\",{\"bucket\":\"1m\",\"col\":\"ts\",\"as\":\"minute\"}],"
            + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*quant"
            + "ity\"},"
            + "{\"name\":\"vwap\",\"op\":\"vwap\"},{\"name\":\"p99\",\"op\":\"percentile\",\"col\":\"quantity\",\"p\":"
            + "99},"
            + "{\"name\":\"open\",\"op\":\"first\",\"col\":\"price\"},{\"name\":\"clients\",\"op\":\"countDistinct\","
            + "\"col\":\"client_id\"}],"
            + "\"having\":{\"op\":\"range\",\"col\":\"n\",\"gte\":10},"
            + "\"orderBy\":[{\"col\":\"notional\",\"desc\":true},{\"col\":\"minute\"}],\"limit\":10,"
            + "\"options\":{\"timeoutMs\":500,\"maxGroups\":1000,\"epochNanos\":true}}";
        final Query built = Query.builder("trades").time("2026-11-16T08:00:00Z", "2026-11-16T10:00:00Z")
            .filter(Filter.and(Filter.eq("instrument", "SYM1"), Filter.in("venue", "XLON", "XPAR"),
                Filter.not(Filter.between("price", "10.5", "20")),
                Filter.or(Filter.ne("side", "S"), Filter.gt("quantity", 100L))))
            .groupBy("side").bucket("1m", "ts", "minute")
            .agg(Agg.count("n"), Agg.sum("notional", "price*quantity"), Agg.vwap("vwap"),
            Agg.percentile("p99", "quantity", 99),
                Agg.first("open", "price"), Agg.countDistinct("clients", "client_id"))
            .having(Filter.gte("n", 10L)).orderBy("notional", true).orderBy("minute", false).limit(10)
            .timeoutMs(500).maxGroups(1000).epochNanos(true).build();
        assertThat(built).isEqualTo(QueryEngine.parse(json));
    }

    @Test
    void shouldBuildTheModelTheParserMakesOfAScan() {
        final String json = "{\"table\":\"trades\",\"columns\":[\"trade_id\",\"ts\",\"price\"],"
            + "\"filter\":{\"op\":\"range\",\"col\":\"price\",\"lte\":101.25},\"orderBy\":[{\"col\":\"ts\",\"desc\":tr"
            + "ue}],\"limit\":100}";
        final Query built = Query.builder("trades").columns("trade_id", "ts", "price")
            .filter(Filter.lte("price", new BigDecimal("101.25")))
            .orderBy("ts", true).limit(100).build();
        assertThat(built).isEqualTo(QueryEngine.parse(json));
    }
}
