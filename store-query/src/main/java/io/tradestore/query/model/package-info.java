/** The immutable query model that both the JSON parser and the fluent Java builder produce. */
package io.tradestore.query.model;
