/** Deterministic, realistic sample trades (the generator behind {@code tradestore generate}, tests and benchmarks). */
package io.tradestore.core.sample;
