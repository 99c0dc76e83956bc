/** Segments: preallocated, mapped column or row files of a fixed power-of-two capacity, and their zone maps. */
package io.tradestore.core.segment;
