package io.tradestore.query.sql;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.ErrorCode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code $n} placeholders bound where literals stand: the same model as the literals, from one cached parse. */
class SqlParametersTest {
    private static final Schema TRADES = TradesSchema.SCHEMA.with("trades", TradesSchema.SCHEMA.layout(),
        TradesSchema.SCHEMA.segmentRows(), TradesSchema.SCHEMA.blockRows());
    private static final String PLACEHOLDERS = "SELECT venue, count(*) AS n FROM trades WHERE instrument = $1"
        + " AND price > $2 AND quantity BETWEEN $3 AND $4 AND ts >= $5 AND venue IN ($6, $7) GROUP BY venue"
        + " HAVING count(*) > $8 ORDER BY n DESC LIMIT $9 OFFSET $10";
    private static final String LITERALS = "SELECT venue, count(*) AS n FROM trades WHERE instrument = 'SYM042'"
        + " AND price > 101.25 AND quantity BETWEEN 100 AND 200 AND ts >= TIMESTAMP '2026-11-18 09:00:00'"
        + " AND venue IN ('XLON', 'XPAR') GROUP BY venue HAVING count(*) > 3 ORDER BY n DESC LIMIT 10 OFFSET 2";

    private static SqlQuery sql(final String text, final SqlParameters parameters) {
        return SqlTranslator.translate(text, table -> TRADES, parameters);
    }

    @Test
    void shouldTranslatePlaceholdersAsTheLiteralsTheyStandFor() {
        final SqlQuery literal = sql(LITERALS, SqlParameters.NONE);
        // typed values (binary parameters) and text values (read by what they are compared with) alike
        final SqlQuery typed = sql(PLACEHOLDERS, SqlParameters.of(List.of("SYM042", new BigDecimal("101.25"), 100L,
            200L, 1_794_992_400_000_000_000L, "XLON", "XPAR", 3L, 10L, 2L)));
        final SqlQuery text = sql(PLACEHOLDERS, SqlParameters.of(List.of("SYM042", "101.25", "100", "200",
            "2026-11-18 09:00:00+00", "XLON", "XPAR", "3", "10", "2")));
        assertThat(typed.query()).isEqualTo(literal.query());
        assertThat(text.query()).isEqualTo(literal.query());
        assertThat(typed.query().skip()).isEqualTo(2);
        // the question mark JDBC writes is numbered in the order written
        assertThat(sql("SELECT count(*) FROM trades WHERE instrument = ? AND price > ?",
            SqlParameters.of(List.of("SYM042", 5L))).query())
            .isEqualTo(sql("SELECT count(*) FROM trades WHERE instrument = 'SYM042' AND price > 5",
                SqlParameters.NONE).query());
    }

    @Test
    void shouldTellWhatEachPlaceholderIsComparedWithWhenDescribing() {
        final SqlParameters describing = SqlParameters.describing();
        sql(PLACEHOLDERS, describing);
        assertThat(describing.seen()).isEqualTo(10);
        assertThat(describing.kind(0)).isEqualTo(SqlParameters.Kind.TEXT);
        assertThat(describing.kind(1)).isEqualTo(SqlParameters.Kind.NUMBER);
        assertThat(describing.kind(4)).isEqualTo(SqlParameters.Kind.TIMESTAMP);
        assertThat(describing.kind(8)).isEqualTo(SqlParameters.Kind.INTEGER);
        assertThat(describing.kind(11)).isEqualTo(SqlParameters.Kind.UNKNOWN);
    }

    @Test
    void shouldRefuseMissingNullAndMistypedValuesAtTheirPlace() {
        final String text = "SELECT count(*) FROM trades WHERE price > $1 AND ts < $2";
        assertThatThrownBy(() -> sql(text, SqlParameters.of(List.of(1L))))
            .isInstanceOfSatisfying(SqlException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.INVALID_QUERY);
                assertThat(e.getMessage()).contains("$2 has no value");
                assertThat(e.column()).isEqualTo(55);
            });
        assertThatThrownBy(() -> sql(text, SqlParameters.of(Arrays.asList(null, "2026-11-18"))))
            .hasMessageContaining("$1 is NULL");
        assertThatThrownBy(() -> sql(text, SqlParameters.of(List.of("abc", "2026-11-18"))))
            .hasMessageContaining("$1 is compared with a number");
        assertThatThrownBy(() -> sql(text, SqlParameters.of(List.of(1L, "yesterday"))))
            .hasMessageContaining("$2 is compared with a timestamp");
        assertThatThrownBy(() -> sql("SELECT count(*) FROM trades LIMIT $1", SqlParameters.of(List.of(-1L))))
            .hasMessageContaining("LIMIT takes a whole number");
    }
}
