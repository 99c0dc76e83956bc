/** Benchmarks: the storage-layout scenario harness (Java objects vs off-heap rows vs columns) and JMH kernels. */
package io.tradestore.bench;
