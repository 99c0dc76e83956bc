package io.tradestore.query;

import java.util.ArrayList;
import java.util.List;

/** Test helpers over query answers. */
public final class QueryResults {
    private QueryResults() {
    }

    /** @param r an answer. @return its rows as lists, for comparing two answers with equals. */
    public static List<List<Object>> rows(final QueryResult r) {
        final List<List<Object>> out = new ArrayList<>();
        for (int i = 0; i < r.rowCount(); i++) {
            final List<Object> row = new ArrayList<>();
            for (int c = 0; c < r.columns().size(); c++) {
                row.add(r.value(i, c));
            }
            out.add(row);
        }
        return out;
    }
}
