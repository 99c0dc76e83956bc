package io.tradestore.query.sql;

import java.util.List;
import java.util.Map;

import io.tradestore.query.QueryException;
import io.tradestore.query.QueryResult;
import io.tradestore.query.model.Query;

/**
 * A SQL query translated: the model query that the engine plans and runs, as it runs a JSON query, and how its
 * answer becomes the SQL answer (output order and names, arithmetic over aggregates). {@code OFFSET} is the model
 * query's own offset.
 *
 * @param query     the model query.
 * @param outputs   the SQL answer's columns.
 * @param positions JSON path in the model query to its place in the SQL text.
 */
public record SqlQuery(Query query, List<SqlResult.Output> outputs, Map<String, SqlPos> positions) {
    /** Copies the lists. */
    public SqlQuery {
        outputs = List.copyOf(outputs);
        positions = Map.copyOf(positions);
    }

    /**
     * @param e a failure of the model query, at a JSON path.
     * @return the same failure at the place in the SQL text the path came from (the nearest enclosing part that was
     *     written), or e itself when it is not about the query (a timeout, an overload, a damaged table).
     */
    public QueryException locate(final QueryException e) {
        if (e instanceof SqlException || e.code().httpStatus() >= 500) {
            return e;
        }
        String path = e.path();
        while (!path.isEmpty()) {
            final SqlPos pos = positions.get(path);
            if (pos != null) {
                return SqlException.of(e, pos);
            }
            path = path.substring(0, path.lastIndexOf('/'));
        }
        return SqlException.of(e, SqlPos.START);
    }

    /**
     * @param result the model query's answer.
     * @return the SQL answer: the same object when it already has the SQL shape.
     */
    public QueryResult shape(final QueryResult result) {
        return SqlResult.shape(result, outputs);
    }
}
