package io.tradestore.query.model;

/**
 * Half-open {@code [from, to)} on the designated timestamp; either end may be null (unbounded).
 *
 * @param from ISO-8601 string or epoch nanos (Long), inclusive.
 * @param to   ISO-8601 string or epoch nanos (Long), exclusive.
 */
public record TimeRange(Object from, Object to) {
}
