/**
 * The random query grammar of the DuckDB differential test, drawn over any table that describes itself as a
 * {@link io.tradestore.query.gen.GenTable}, with its DuckDB translation and the answer comparison: the difftest's
 * oracle and the benchmark's query shapes draw from this one grammar.
 */
package io.tradestore.query.gen;
