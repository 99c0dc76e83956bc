/** Benchmarks: JMH kernels and the scenario harness (layouts, queries vs DuckDB, CSV load, HTTP), measured against the memory-bandwidth floor. */
package io.tradestore.bench;
