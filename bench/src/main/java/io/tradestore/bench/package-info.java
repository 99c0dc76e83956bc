/** Benchmarks: the scenario harness that measures tradestore against DuckDB and the memory-bandwidth floor. */
package io.tradestore.bench;
