/** The transaction file: a two-slot (A/B) commit record with a checksum, published by a version bump. */
package io.tradestore.core.txn;
