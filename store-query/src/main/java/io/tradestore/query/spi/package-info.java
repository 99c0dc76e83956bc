/**
 * The scan's interfaces to its row sources: index selections, value and bucket summaries, and the query's deadline,
 * shared by the executor and the index package so that neither reaches into the other.
 */
package io.tradestore.query.spi;
