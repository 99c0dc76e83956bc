package io.tradestore.bench;

import org.junit.jupiter.api.Test;

import io.tradestore.query.QueryResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every JMH benchmark method once on a small table, outside JMH, so that a query or setup that stops working fails the
 * build.
 */
class KernelBenchmarksTest {
    @Test
    void shouldAnswerEveryKernelQuery() throws Exception {
        final QueryKernelBenchmark b = new QueryKernelBenchmark();
        b.rows = 50_000;
        b.setUp();
        try {
            final QueryResult scan = b.scan();
            assertThat(((Number) scan.value(0, 0)).longValue()).isEqualTo(50_000);
            assertThat(b.filter().rowCount()).isEqualTo(1);
            assertThat(b.groupByDense().rowCount()).isBetween(2, 500);
            assertThat(b.groupByHash().rowCount()).isBetween(2, 10_000);
            assertThat(b.decimalSum().rowCount()).isEqualTo(1);
        } finally {
            b.tearDown();
        }
    }

    /** The setup compares each fused loop's answer with the engine's and throws on a difference. */
    @Test
    void shouldAnswerEveryFusedQueryAsTheEngineDoes() throws Exception {
        final FusedKernelBenchmark b = new FusedKernelBenchmark();
        b.rows = 50_000;
        b.setUp();
        try {
            assertThat(b.fusedFilter()).isEqualTo(b.fusedFilterBranchFree());
            assertThat(b.fusedFilter()[0]).isPositive();
            assertThat(b.fusedHash()[0]).isEqualTo(b.engineHash().rowCount());
            assertThat(b.fusedDense()[1]).isEqualTo(50_000);
            assertThat(b.engineDense().rowCount()).isBetween(2, 16);
            assertThat(b.engineFilter().rowCount()).isEqualTo(1);
        } finally {
            b.tearDown();
        }
    }

    @Test
    void shouldAnswerTheOverheadQueryInEveryWay() throws Exception {
        final QueryOverheadBenchmark b = new QueryOverheadBenchmark();
        b.rows = 1_000;
        b.setUp();
        try {
            assertThat(b.parse().limit()).isEqualTo(10);
            final QueryResult r = b.execute();
            assertThat(r.rowCount()).isBetween(1, 10);
            assertThat(b.encode()).isGreaterThan(100);
            // the same answer, but for its stats' elapsed time
            assertThat(b.server()).isBetween(b.encode() - 8, b.encode() + 8);
        } finally {
            b.tearDown();
        }
    }

    @Test
    void shouldParseAndAppendTheGeneratedCsv() throws Exception {
        final CsvParseBenchmark b = new CsvParseBenchmark();
        b.rows = 10_000;
        b.generate();
        for (int i = 0; i < 2; i++) {
            b.freshTable();
            try {
                assertThat(b.parseAndAppend().rowsLoaded()).isEqualTo(10_000);
            } finally {
                b.dropTable();
            }
        }
    }

    @Test
    void shouldParseTheTypicalQueryInSqlAndJson() throws Exception {
        final SqlParseBenchmark b = new SqlParseBenchmark();
        assertThat(b.jsqlParse()).isNotNull();
        // sum(quantity) is asked twice (volume, and the divisor of vwap) and computed once
        assertThat(b.sqlTranslateNewText().query().aggs()).hasSize(3);
        assertThat(b.sqlTranslateSameText().query()).isEqualTo(b.sqlTranslateNewText().query());
        assertThat(b.jsonParse().aggs()).hasSize(3);
    }
}
