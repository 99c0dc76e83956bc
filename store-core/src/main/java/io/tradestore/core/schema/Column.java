package io.tradestore.core.schema;

/**
 * One column of a schema: name, type, decimal scale, its position and its byte offset within a {@code ROW} record.
 *
 * @param name      lower-case identifier.
 * @param type      storage type.
 * @param scale     fraction digits of a decimal, 0 otherwise.
 * @param index     position in the schema, from 0.
 * @param rowOffset byte offset within a record of the {@code ROW} layout (natively aligned).
 */
public record Column(String name, ColumnType type, int scale, int index, int rowOffset) {
    /** @return the type as written in schema JSON, for example {@code decimal(6)}. */
    public String typeName() {
        return type == ColumnType.DECIMAL ? "decimal(" + scale + ")" : type.label();
    }

    /** @return width in bytes. */
    public int width() {
        return type.width();
    }
}
