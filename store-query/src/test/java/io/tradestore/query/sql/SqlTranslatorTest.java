package io.tradestore.query.sql;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** SQL text translated into the same model the JSON text of each case parses to, and refusals with their places. */
class SqlTranslatorTest {
    private static final Schema TRADES = TradesSchema.SCHEMA.with("trades", TradesSchema.SCHEMA.layout(),
        TradesSchema.SCHEMA.segmentRows(), TradesSchema.SCHEMA.blockRows());
    /** 2026-11-18T09:00:00Z in epoch nanoseconds. */
    private static final long NINE = 1_794_992_400_000_000_000L;

    private static SqlQuery sql(final String text) {
        return SqlTranslator.translate(text, table -> {
            if (!table.equals("trades")) {
                throw new QueryException(ErrorCode.UNKNOWN_TABLE, "unknown table '" + table + "'", "/table");
            }
            return TRADES;
        });
    }

    private static void assertSame(final String sqlText, final String json) {
        assertThat(sql(sqlText).query()).isEqualTo(QueryEngine.parse(json));
    }

    private static List<String> outputs(final String text) {
        return sql(text).outputs().stream().map(SqlResult.Output::name).toList();
    }

    @Test
    void shouldTranslateGroupedAggregatesWithTheirJsonTwin() {
        assertSame("SELECT side, count(*) AS trades, sum(price*quantity) AS notional FROM trades GROUP BY side",
            "{\"table\":\"trades\",\"groupBy\":[{\"col\":\"side\",\"as\":null}],\"aggs\":[{\"name\":\"trades\","
            + "\"op\":\"count\"},{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*quantity\"}]}");
    }

    @Test
    void shouldTranslateFiltersOfEveryKind() {
        assertSame("select count(*) n from trades where venue in ('XLON', 'XPAR') and quantity between 100 and 200"
            + " and not side = 'S' and (price > 1.5 or price <= -2) and client_id <> 7 and venue not in ('BATS')"
            + " and 5 < quantity",
            "{\"table\":\"trades\",\"filter\":{\"op\":\"and\",\"args\":["
            + "{\"op\":\"in\",\"col\":\"venue\",\"values\":[\"XLON\",\"XPAR\"]},"
            + "{\"op\":\"range\",\"col\":\"quantity\",\"gte\":100,\"lte\":200},"
            + "{\"op\":\"not\",\"arg\":{\"op\":\"eq\",\"col\":\"side\",\"value\":\"S\"}},"
            + "{\"op\":\"or\",\"args\":[{\"op\":\"range\",\"col\":\"price\",\"gt\":1.5},"
            + "{\"op\":\"range\",\"col\":\"price\",\"lte\":-2}]},"
            + "{\"op\":\"ne\",\"col\":\"client_id\",\"value\":7},"
            + "{\"op\":\"not\",\"arg\":{\"op\":\"in\",\"col\":\"venue\",\"values\":[\"BATS\"]}},"
            + "{\"op\":\"range\",\"col\":\"quantity\",\"gt\":5}]},"
            + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}");
    }

    @Test
    void shouldReadTimestampLiteralsAndIsoStringsAsUtcNanoseconds() {
        final String json = "{\"table\":\"trades\",\"filter\":{\"op\":\"and\",\"args\":["
            + "{\"op\":\"range\",\"col\":\"ts\",\"gte\":" + NINE + "},"
            + "{\"op\":\"range\",\"col\":\"ts\",\"lt\":" + (NINE + 3_600_000_000_000L) + "}]},"
            + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";
        assertSame("SELECT count(*) AS n FROM trades WHERE ts >= TIMESTAMP '2026-11-18 09:00:00'"
            + " AND ts < TIMESTAMP '2026-11-18 09:00:00' + INTERVAL '1 hour'", json);
        assertSame("SELECT count(*) AS n FROM trades WHERE ts >= '2026-11-18T09:00:00Z' AND ts < '2026-11-18 10:00'",
            json);
    }

    @Test
    void shouldTranslateTimeBucketsInEverySpelling() {
        final String json = "{\"table\":\"trades\",\"groupBy\":[{\"col\":\"ts\",\"bucket\":\"%s\",\"as\":\"t\"}],"
            + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";
        assertSame("SELECT time_bucket(INTERVAL '5 minutes', ts) AS t, count(*) AS n FROM trades GROUP BY 1",
            json.formatted("300000000000ns"));
        assertSame("SELECT date_trunc('hour', ts) AS t, count(*) AS n FROM trades GROUP BY t",
            json.formatted("1h"));
        assertSame("SELECT date_trunc('month', ts) t, count(*) AS n FROM trades GROUP BY date_trunc('month', ts)",
            json.formatted("P1M"));
        assertSame("SELECT ts AS t, count(*) AS n FROM trades SAMPLE BY 15m", json.formatted("15m"));
    }

    @Test
    void shouldRefuseATimeBucketWhoseDuckDbOriginDiffersFromTheEpoch() {
        assertThatThrownBy(() -> sql("SELECT time_bucket(INTERVAL '7 days', ts) AS w, count(*) FROM trades "
            + "GROUP BY 1"))
            .isInstanceOf(SqlException.class).hasMessageContaining("origin");
        assertThat(sql("SELECT time_bucket(INTERVAL '7 days', ts, TIMESTAMP '1970-01-01') AS w, count(*) FROM trades "
            + "GROUP BY 1").query().groupBy().get(0).bucket()).isEqualTo("604800000000000ns");
    }

    @Test
    void shouldTranslateEveryAggregateSpelling() {
        assertSame("SELECT count(price) a, count(DISTINCT client_id) b, avg(quantity) c, min(price) d, max(price) e,"
            + " first(price) f, last(price) g, arg_min(price, ts) h, arg_max(price, ts) i,"
            + " quantile_disc(quantity, 0.99) j, percentile_disc(0.5) WITHIN GROUP (ORDER BY quantity) k FROM trades",
            "{\"table\":\"trades\",\"aggs\":[{\"name\":\"a\",\"op\":\"count\",\"col\":\"price\"},"
            + "{\"name\":\"b\",\"op\":\"countDistinct\",\"col\":\"client_id\"},"
            + "{\"name\":\"c\",\"op\":\"avg\",\"col\":\"quantity\"},{\"name\":\"d\",\"op\":\"min\",\"col\":\"price\"},"
            + "{\"name\":\"e\",\"op\":\"max\",\"col\":\"price\"},{\"name\":\"f\",\"op\":\"first\",\"col\":\"price\"},"
            + "{\"name\":\"g\",\"op\":\"last\",\"col\":\"price\"},"
            + "{\"name\":\"j\",\"op\":\"percentile\",\"col\":\"quantity\",\"p\":99},"
            + "{\"name\":\"k\",\"op\":\"percentile\",\"col\":\"quantity\",\"p\":50}]}");
        // arg_min and arg_max are first and last: the answer shows them under their own names
        assertThat(outputs("SELECT first(price) f, arg_min(price, ts) h FROM trades")).containsExactly("f", "h");
    }

    @Test
    void shouldComputeVwapFromTwoExactSumsAndHideThem() {
        final SqlQuery q = sql("SELECT instrument, sum(price*quantity)/sum(quantity) AS vwap FROM trades "
            + "GROUP BY instrument ORDER BY sum(quantity) DESC LIMIT 10 OFFSET 5");
        assertThat(q.query().aggs()).extracting(a -> a.op() + " " + a.col())
            .containsExactly("sum price*quantity", "sum quantity");
        assertThat(q.outputs()).extracting(SqlResult.Output::name).containsExactly("instrument", "vwap");
        assertThat(q.query().orderBy().get(0).desc()).isTrue();
        // the model query skips OFFSET's rows itself, so its limit is the SQL one
        assertThat(q.query().limit()).isEqualTo(10);
        assertThat(q.query().skip()).isEqualTo(5);
    }

    @Test
    void shouldTranslateHavingAndOrderByAliasesOrdinalsAndAggregates() {
        assertSame("SELECT venue AS v, count(*) AS n FROM trades GROUP BY v HAVING count(*) >= 10 AND v <> 'BATS'"
            + " ORDER BY 2 DESC, venue LIMIT 3",
            "{\"table\":\"trades\",\"groupBy\":[{\"col\":\"venue\",\"as\":\"v\"}],"
            + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}],\"having\":{\"op\":\"and\",\"args\":["
            + "{\"op\":\"range\",\"col\":\"n\",\"gte\":10},{\"op\":\"ne\",\"col\":\"v\",\"value\":\"BATS\"}]},"
            + "\"orderBy\":[{\"col\":\"n\",\"desc\":true},{\"col\":\"v\",\"desc\":false}],\"limit\":3}");
    }

    @Test
    void shouldTranslateScansWithStarAndHiddenOrderColumns() {
        assertSame("SELECT * FROM trades WHERE client_id = 4242 LIMIT 100",
            "{\"table\":\"trades\",\"columns\":[\"trade_id\",\"ts\",\"client_id\",\"venue\",\"instrument\",\"side\","
            + "\"price\",\"quantity\"],\"filter\":{\"op\":\"eq\",\"col\":\"client_id\",\"value\":4242},\"limit\":100}");
        final SqlQuery q = sql("SELECT \"Price\" AS p, QUANTITY FROM Trades t ORDER BY t.ts DESC NULLS LAST LIMIT 5");
        assertThat(q.query().columns()).containsExactly("price", "quantity", "ts");
        assertThat(q.outputs()).extracting(SqlResult.Output::name).containsExactly("p", "quantity");
    }

    @Test
    void shouldKeepTheInPrecedenceOfAndAndOr() {
        // JSqlParser 5.3 read "x IN (...) AND y" as "x IN ((...) AND y)"; 5.2 reads it as SQL does
        assertThat(sql("SELECT count(*) FROM trades WHERE venue IN ('XLON') AND quantity > 1 OR side = 'B'")
            .query().filter()).hasToString("Or[args=[And[args=[In[col=venue, values=[XLON]], Range[col=quantity, "
            + "gt=1, gte=null, lt=null, lte=null]]], Eq[col=side, value=B]]]");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "SELECT count(*) FROM trades t JOIN trades u ON t.trade_id = u.trade_id|1|36|joins",
        "SELECT count(*) FROM (SELECT * FROM trades)|1|22|subqueries",
        "SELECT venue, rank() OVER (ORDER BY venue) FROM trades|1|15|window functions",
        "SELECT venue FROM trades WHERE price IN (SELECT price FROM trades)|1|41|not supported in WHERE",
        "SELECT stddev(price) FROM trades|1|8|unknown function stddev",
        "SELECT count(*) FROM trades WHERE\\n  qty > 5|2|3|unknown column 'qty'",
        "SELECT count(*) FROM nope|1|22|unknown table",
        "SELECT count(*) FROM trades WHERE price = 1 +|1|45|syntax error",
        "SELECT venue, count(*) FROM trades|1|8|must appear in GROUP BY",
        "SELECT count(*) FROM trades WHERE side IS NULL|1|35|IS NULL",
        "SELECT count(*) FROM trades ORDER BY 1 NULLS FIRST|1|38|NULLS FIRST",
        "SELECT quantile_cont(price, 0.5) FROM trades|1|8|interpolates",
        "SELECT count(*) FROM trades WHERE price > quantity|1|35|compares two columns",
        "SELECT count(*) FROM trades UNION SELECT count(*) FROM trades|1|1|single SELECT",
        "SELECT DISTINCT venue FROM trades|1|17|DISTINCT",
        "WITH x AS (SELECT 1) SELECT count(*) FROM trades|1|1|WITH",
    })
    void shouldRefuseWhatTheEngineCannotRunNamingTheConstructAndItsPlace(final String text, final int line,
        final int column, final String message) {
        assertThatThrownBy(() -> sql(text.replace("\\n", "\n"))).isInstanceOfSatisfying(SqlException.class, e -> {
            assertThat(e.getMessage()).contains(message);
            assertThat(new SqlPos(e.line(), e.column())).isEqualTo(new SqlPos(line, column));
            assertThat(e.code().httpStatus()).isIn(400, 404);
        });
    }

    @Test
    void shouldPlaceAFailureOfTheTranslatedQueryAtItsSqlText() {
        // the binder reports a sum of a symbol at /aggs/0/col: the SQL error points at the column inside sum(...)
        final SqlQuery q = sql("SELECT venue,\n       sum(instrument) FROM trades GROUP BY venue");
        final QueryException located = q.locate(new QueryException(ErrorCode.INVALID_QUERY, "sum of a symbol",
            "/aggs/0/col"));
        assertThat(located).isInstanceOfSatisfying(SqlException.class, e -> {
            assertThat(e.line()).isEqualTo(2);
            assertThat(e.column()).isEqualTo(12);
        });
    }

    @Test
    void shouldFindSampleByOnlyOutsideStringsAndComments() {
        assertThat(SqlText.findSampleBy("select 'sample by 1m' -- sample by 5m\n from t /* sample by 1h */"))
            .isEqualTo(-1);
        assertThat(SqlText.findSampleBy("select x from t sample by 1h")).isEqualTo(16);
        assertThat(SqlText.findSampleBy("select resample by from t")).isEqualTo(-1);
    }
}
