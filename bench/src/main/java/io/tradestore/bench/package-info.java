/** Benchmarks: the HTTP load generator (coordinated-omission corrected) and scenario harnesses. */
package io.tradestore.bench;
