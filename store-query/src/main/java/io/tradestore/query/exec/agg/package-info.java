/** Accumulators, one per aggregate and value type, updated a batch at a time, with exact 128-bit sums (Int128). */
package io.tradestore.query.exec.agg;
