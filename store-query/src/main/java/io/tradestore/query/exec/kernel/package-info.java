/** Fused loops for the hottest shapes (dense-key sums, counts and vwaps) and the gathers they and the batches use. */
package io.tradestore.query.exec.kernel;
