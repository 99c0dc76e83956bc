package io.tradestore.bench;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.Statement;

import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.model.Query;
import io.tradestore.query.sql.SqlQuery;
import io.tradestore.query.sql.SqlTranslator;

/**
 * JMH: what the SQL front end costs before a query runs, on a typical query (a filtered, grouped VWAP with a time
 * range, ORDER BY and LIMIT): JSqlParser's parse alone, translation of a new text (parse included) and of a text
 * seen before (its parse cached), and the JSON parser on the same query's JSON twin for comparison. No table is read:
 * the schema is the trades schema in memory.
 *
 * <pre>
 * bin/tradestore bench jmh SqlParseBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx512m", "-Dchronicle.analytics.disable=true"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Benchmark)
public class SqlParseBenchmark {
    /** The typical query, in SQL. */
    static final String SQL = "SELECT instrument, count(*) AS trades, sum(quantity) AS volume,\n"
        + "       sum(price * quantity) / sum(quantity) AS vwap\n"
        + "FROM trades\n"
        + "WHERE ts >= TIMESTAMP '2026-11-16 08:00:00' AND ts < TIMESTAMP '2026-11-16 09:00:00'\n"
        + "  AND venue IN ('XLON', 'XPAR') AND side = 'B'\n"
        + "GROUP BY instrument ORDER BY volume DESC LIMIT 10";
    /** Its JSON twin (vwap as the engine's operator). */
    static final String JSON = "{\"table\":\"trades\",\"time\":{\"from\":\"2026-11-16T08:00:00Z\","
        + "\"to\":\"2026-11-16T09:00:00Z\"},\"filter\":{\"op\":\"and\",\"args\":[{\"op\":\"in\",\"col\":\"venue\","
        + "\"values\":[\"XLON\",\"XPAR\"]},{\"op\":\"eq\",\"col\":\"side\",\"value\":\"B\"}]},"
        + "\"groupBy\":[\"instrument\"],\"aggs\":[{\"name\":\"trades\",\"op\":\"count\"},{\"name\":\"volume\","
        + "\"op\":\"sum\",\"col\":\"quantity\"},{\"name\":\"vwap\",\"op\":\"vwap\"}],"
        + "\"orderBy\":[{\"col\":\"volume\",\"desc\":true}],\"limit\":10}";
    private static final Schema TRADES = TradesSchema.SCHEMA.with("trades", TradesSchema.SCHEMA.layout(),
        TradesSchema.SCHEMA.segmentRows(), TradesSchema.SCHEMA.blockRows());

    /**
     * @return the statement JSqlParser reads (its own parse, without the thread its convenience method adds).
     * @throws JSQLParserException never (the query is valid).
     */
    @Benchmark
    public Statement jsqlParse() throws JSQLParserException {
        try {
            return CCJSqlParserUtil.newParser(SQL).Statement();
        } catch (final net.sf.jsqlparser.parser.ParseException e) {
            throw new JSQLParserException(e);
        }
    }

    private int variant;

    /** @return the translated query, its text new each time: parse, checks and translation into the model. */
    @Benchmark
    public SqlQuery sqlTranslateNewText() {
        // a comment that changes the text: the translator's cache of parses by text does not answer
        variant = (variant + 1) & 0xFFFF;
        return SqlTranslator.translate(SQL + " -- " + variant, table -> TRADES);
    }

    /** @return the translated query, the same text each time (a dashboard's refresh): translation only. */
    @Benchmark
    public SqlQuery sqlTranslateSameText() {
        return SqlTranslator.translate(SQL, table -> TRADES);
    }

    /** @return the JSON twin parsed into the model. */
    @Benchmark
    public Query jsonParse() {
        return QueryEngine.parse(JSON);
    }
}
