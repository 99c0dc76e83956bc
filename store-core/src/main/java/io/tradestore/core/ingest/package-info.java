/** CSV ingest: byte-level parsing of mapped or decompressed input, in parallel chunks, appended in file order. */
package io.tradestore.core.ingest;
