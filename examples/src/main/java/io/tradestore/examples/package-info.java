/** Runnable programs of the embedded Java API. */
package io.tradestore.examples;
