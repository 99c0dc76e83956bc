package io.tradestore.core.flyweight;

import io.tradestore.core.schema.Schema;
import io.tradestore.core.schema.SchemaCodec;

/** The default trades schema (docs/file-format.md), read from {@code trades.schema.json} on the class path. */
public final class TradesSchema {
    /** Resource holding the schema JSON. */
    public static final String RESOURCE = "/io/tradestore/core/schema/trades.schema.json";
    /** The default trades schema: table {@code trades}, COLUMN layout, 4,194,304 rows per segment. */
    public static final Schema SCHEMA = SchemaCodec.resource(RESOURCE);

    private TradesSchema() {
    }
}
