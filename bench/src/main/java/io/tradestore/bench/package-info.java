/** Benchmarks: JMH kernels and the scenario harness, measuring tradestore against DuckDB and the memory-bandwidth floor in the same run. */
package io.tradestore.bench;
