/** The schema as data: column types, null sentinels, row layout and the JSON form with its validation. */
package io.tradestore.core.schema;
