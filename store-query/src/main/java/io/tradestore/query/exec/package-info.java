/**
 * Execution: binding a query to a snapshot, batch-at-a-time filter kernels into selection vectors, group-by tables,
 * accumulators, parallel per-morsel tasks with private partial state merged at the end, and result encoding.
 */
package io.tradestore.query.exec;
