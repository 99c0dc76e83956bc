package io.tradestore.server.pg;

/**
 * One column of an answer as {@code RowDescription} describes it.
 *
 * @param name the column's name.
 * @param type its PostgreSQL type.
 */
public record PgColumn(String name, PgType type) {
}
