package io.tradestore.core.ingest;

/** What a load does with a bad row. */
public enum OnError {
    /** Stop at the first bad row, roll back to the last commit and fail. */
    FAIL,
    /** Write the bad row's line number and reason to the rejects and go on. */
    SKIP
}
