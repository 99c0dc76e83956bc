/** The flyweight generator: turns a schema into a final Java class with static offsets and no allocation. */
package io.tradestore.core.gen;
