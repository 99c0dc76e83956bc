/** Off-heap memory and memory-mapped files: the only place that touches Unsafe, with accounting of every byte. */
package io.tradestore.core.memory;
