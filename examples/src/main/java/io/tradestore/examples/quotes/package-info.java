/** A user-defined record type: the quotes schema and the flyweight generated from it during the build. */
package io.tradestore.examples.quotes;
