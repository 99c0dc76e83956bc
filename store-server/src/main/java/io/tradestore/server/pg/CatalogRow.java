package io.tradestore.server.pg;

/**
 * One row of a catalog query's {@code FROM} clause while it is evaluated: each relation's alias and current row, and
 * the row of the enclosing query, which a correlated subquery reads.
 */
final class CatalogRow {
    /** A row that binds nothing: a query without {@code FROM}. */
    static final CatalogRow NONE = new CatalogRow(null, new String[0], new CatalogRelation[0]);

    private final CatalogRow outer;
    private final String[] aliases;
    private final CatalogRelation[] relations;
    private final Object[][] values;

    /**
     * @param outer     the enclosing query's row, or {@code null}.
     * @param aliases   each relation's alias (or name), in lower case.
     * @param relations the relations.
     */
    CatalogRow(final CatalogRow outer, final String[] aliases, final CatalogRelation[] relations) {
        this.outer = outer;
        this.aliases = aliases;
        this.relations = relations;
        this.values = new Object[relations.length][];
    }

    /** @return the enclosing query's row, or {@code null}. */
    CatalogRow outer() {
        return outer;
    }

    /** @return how many relations the row binds. */
    int width() {
        return relations.length;
    }

    /**
     * @param i a relation's place.
     * @return the relation.
     */
    CatalogRelation relation(final int i) {
        return relations[i];
    }

    /**
     * @param i a relation's place.
     * @return its alias.
     */
    String alias(final int i) {
        return aliases[i];
    }

    /**
     * @param i a relation's place.
     * @return its current row, or {@code null} for the NULLs of a left join without a match.
     */
    Object[] values(final int i) {
        return values[i];
    }

    /**
     * @param i   a relation's place.
     * @param row its current row, or {@code null}.
     */
    void values(final int i, final Object[] row) {
        values[i] = row;
    }

    /** @return a copy of this row's current values, with the same relations. */
    CatalogRow copy() {
        final CatalogRow c = new CatalogRow(outer, aliases, relations);
        System.arraycopy(values, 0, c.values, 0, values.length);
        return c;
    }

    /**
     * @param qualifier the relation's alias or name, in lower case, or {@code null}.
     * @param column    the column's name, in lower case.
     * @return {@code {relation place, column index}} of the column in this row, or {@code null}.
     */
    int[] find(final String qualifier, final String column) {
        for (int i = 0; i < relations.length; i++) {
            if (qualifier == null || qualifier.equals(aliases[i])) {
                final int c = relations[i].indexOf(column);
                if (c >= 0) {
                    return new int[] {i, c};
                }
            }
        }
        return null;
    }
}
