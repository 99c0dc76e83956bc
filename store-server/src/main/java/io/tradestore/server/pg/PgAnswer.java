package io.tradestore.server.pg;

import java.util.List;

/**
 * The answer to a statement the engine does not run (a session or catalog statement): the command tag of its
 * {@code CommandComplete}, its columns (empty for a command with no rows, such as {@code SET}) and its rows, each
 * value in PostgreSQL's text form or {@code null} for NULL. The wire layer encodes binary results from the text form.
 *
 * @param commandTag the tag, such as {@code SELECT 3} or {@code SET}.
 * @param columns    the columns; empty when the statement returns no rows.
 * @param rows       the rows, each as long as {@code columns}.
 */
public record PgAnswer(String commandTag, List<PgColumn> columns, List<List<String>> rows) {
}
