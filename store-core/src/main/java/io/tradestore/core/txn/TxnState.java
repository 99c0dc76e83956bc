package io.tradestore.core.txn;

/**
 * One committed state of a table, as read from a slot of the transaction file.
 *
 * @param sequence     the transaction number (0 for an empty table).
 * @param rowCount     committed rows.
 * @param dictCounts   committed entries per symbol column (in symbol-column order).
 * @param dictBytes    committed dictionary file bytes per symbol column.
 * @param firstRow     the first row not dropped by retention (a segment boundary; 0 when none was dropped).
 */
public record TxnState(long sequence, long rowCount, long[] dictCounts, long[] dictBytes, long firstRow) {
}
