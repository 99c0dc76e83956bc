package io.tradestore.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Gives DuckDB's {@code trades} table ENUM symbol columns, as a DuckDB user with a fixed set of venues, instruments
 * and sides would declare them: {@code venue}, {@code instrument} and {@code side} become the types
 * {@code trades_venue}, {@code trades_instrument} and {@code trades_side}, each {@code ENUM} of the column's distinct
 * values in sorted order (so that {@code ORDER BY} on them sorts as on the strings, as tradestore sorts symbols).
 * The table is rebuilt with {@code CREATE TABLE ... AS SELECT * REPLACE (...)} from the loaded one, which keeps the
 * rows in their loaded (time) order: DuckDB's {@code preserve_insertion_order} is on by default and set here anyway.
 */
final class DuckEnums {
    /** The symbol columns that become ENUMs. */
    static final List<String> COLUMNS = List.of("venue", "instrument", "side");

    private DuckEnums() {
    }

    /**
     * Rebuilds table {@code trades} with ENUM symbol columns (the VARCHAR table is dropped).
     *
     * @param duck a connection whose {@code trades} table has VARCHAR venue, instrument and side columns.
     * @throws SQLException when DuckDB fails.
     */
    static void apply(final Connection duck) throws SQLException {
        try (Statement st = duck.createStatement()) {
            st.execute("SET preserve_insertion_order = true");
            final StringBuilder replace = new StringBuilder();
            for (final String c : COLUMNS) {
                final List<String> values = new ArrayList<>();
                try (ResultSet rs = st.executeQuery("SELECT DISTINCT " + c + " FROM trades WHERE " + c
                    + " IS NOT NULL ORDER BY 1")) {
                    while (rs.next()) {
                        values.add("'" + rs.getString(1).replace("'", "''") + "'");
                    }
                }
                st.execute("DROP TYPE IF EXISTS trades_" + c);
                st.execute("CREATE TYPE trades_" + c + " AS ENUM (" + String.join(", ", values) + ")");
                replace.append(replace.length() == 0 ? "" : ", ").append(c).append("::trades_").append(c)
                    .append(" AS ").append(c);
            }
            st.execute("DROP TABLE IF EXISTS trades_enum");
            st.execute("CREATE TABLE trades_enum AS SELECT * REPLACE (" + replace + ") FROM trades");
            st.execute("DROP TABLE trades");
            st.execute("ALTER TABLE trades_enum RENAME TO trades");
            st.execute("CHECKPOINT");
        }
    }

    /** @return a sentence for reports: how DuckDB's table is typed. */
    static String sentence() {
        return "DuckDB's table has ENUM symbol columns (venue, instrument and side, each an ENUM of its sorted "
            + "distinct values, as its users would declare a fixed set of symbols), rebuilt in load order from the "
            + "loaded VARCHAR table";
    }
}
