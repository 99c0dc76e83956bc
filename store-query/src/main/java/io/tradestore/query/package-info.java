/** The query engine's public face: run JSON or builder queries against a store and stream typed results. */
package io.tradestore.query;
