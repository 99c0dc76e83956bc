/**
 * Benchmarks: JMH kernels and the scenario harnesses (storage layouts: Java objects vs off-heap rows vs columns; queries
 * against DuckDB), each measuring the memory-bandwidth floor in the same run.
 */
package io.tradestore.bench;
