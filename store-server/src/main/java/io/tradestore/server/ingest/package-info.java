/** Ingest owned by the server: one writer per table, requests serialised per table, tables created from lines. */
package io.tradestore.server.ingest;
