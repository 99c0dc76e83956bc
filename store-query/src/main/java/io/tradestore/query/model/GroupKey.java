package io.tradestore.query.model;

/**
 * A group-by key: a column, or a time bucket of a timestamp column.
 *
 * @param col    the column.
 * @param bucket bucket width ({@code 1s 1m 5m 15m 1h 1d} or an ISO-8601 duration such as {@code PT30S}), or null.
 * @param as     output name, or null for the column name.
 */
public record GroupKey(String col, String bucket, String as) {
    /** @param col column. @return a plain column key. */
    public static GroupKey column(final String col) {
        return new GroupKey(col, null, null);
    }

    /** @param width bucket width. @param col timestamp column. @param as output name. @return a time-bucket key. */
    public static GroupKey bucket(final String width, final String col, final String as) {
        return new GroupKey(col, width, as);
    }

    /** @return the output name. */
    public String outputName() {
        return as != null ? as : col;
    }
}
