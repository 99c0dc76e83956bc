/** The embedded API: stores, tables, the single writer with its commit protocol, and snapshot readers. */
package io.tradestore.core;
