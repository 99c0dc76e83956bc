/** Benchmarks: JMH kernels and scenario runs against baselines (DuckDB) measured in the same run. */
package io.tradestore.bench;
