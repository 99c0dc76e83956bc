package io.tradestore.query.gen;

import io.tradestore.core.schema.ColumnType;

/**
 * A column of a table queries are drawn over, with what the generator may do with it.
 *
 * @param name        column name (the same in tradestore and DuckDB).
 * @param type        storage type.
 * @param scale       decimal scale, 0 otherwise.
 * @param nonNegative whether every value is at least 0 (percentiles are asked only of these).
 * @param groupable   whether the generator may group by it.
 */
public record GenColumn(String name, ColumnType type, int scale, boolean nonNegative, boolean groupable) {

    /** @return the schema type text ({@code decimal(6)}). */
    public String schemaType() {
        return type == ColumnType.DECIMAL ? "decimal(" + scale + ")" : type.label();
    }

    /** @return the DuckDB column type holding the same values (timestamps stay epoch nanos in a BIGINT). */
    public String duckType() {
        switch (type) {
            case I8:
                return "TINYINT";
            case I16:
                return "SMALLINT";
            case I32:
                return "INTEGER";
            case I64:
            case TIMESTAMP:
                return "BIGINT";
            case F64:
                return "DOUBLE";
            case DECIMAL:
                return "DECIMAL(18," + scale + ")";
            case SYMBOL:
            case CHAR:
                return "VARCHAR";
            default:
                throw new IllegalStateException("type " + type);
        }
    }

    /** @return whether values are integers, decimals, timestamps or f64 (ordered, summable or comparable). */
    public boolean numeric() {
        return type != ColumnType.SYMBOL && type != ColumnType.CHAR;
    }

    /** @return whether sum/avg make sense (not timestamps). */
    public boolean summable() {
        return numeric() && type != ColumnType.TIMESTAMP;
    }

    /** @return whether values are held as strings in the table data (symbols and chars). */
    public boolean textual() {
        return !numeric();
    }
}
