package io.tradestore.core.schema;

/** How a segment stores its rows. */
public enum Layout {
    /** One file per column: stride equals the column width. Best for scans. */
    COLUMN,
    /** One file of fixed-size records (an array of structs): stride equals the record length. */
    ROW
}
