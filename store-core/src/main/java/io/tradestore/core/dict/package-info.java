/** Symbol dictionaries: append-only persisted string tables with an open-addressing lookup. */
package io.tradestore.core.dict;
