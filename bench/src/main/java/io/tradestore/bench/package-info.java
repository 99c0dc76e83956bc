/**
 * Benchmarks: JMH kernels and the scenario harnesses (storage layouts: Java objects vs off-heap rows vs columns; CSV
 * load, queries and HTTP against DuckDB and the server), composed by {@code tradestore bench} (BenchCommand), each
 * measuring against the memory-bandwidth floor in the same run.
 */
package io.tradestore.bench;
