/** Group tables: packing key columns into group ids (dense arrays or hash tables), time and calendar buckets. */
package io.tradestore.query.exec.group;
