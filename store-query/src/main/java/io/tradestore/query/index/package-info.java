/**
 * Roaring bitmap indexes per value per sealed segment: built on first use, persisted beside the segment, memory-mapped.
 */
package io.tradestore.query.index;
