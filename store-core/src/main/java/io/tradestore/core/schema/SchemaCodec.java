package io.tradestore.core.schema;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Locale;

import java.util.Set;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.tradestore.core.StoreException;

/**
 * Reads and writes schemas as JSON.
 *
 * <pre>
 * {"formatVersion": 1, "name": "trades", "layout": "COLUMN", "segmentRows": 4194304, "blockRows": 65536,
 *  "timestamp": "ts", "columns": [{"name": "trade_id", "type": "i64"}, {"name": "price", "type": "decimal(6)"}]}
 * </pre>
 */
public final class SchemaCodec {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Set<String> TOP_FIELDS = Set.of("formatVersion", "name", "layout", "segmentRows", "blockRows",
        "timestamp", "partitionBy", "columns");
    private static final Set<String> COLUMN_FIELDS = Set.of("name", "type");

    private SchemaCodec() {
    }

    /**
     * Parses a schema.
     *
     * @param json   the JSON text.
     * @param source where it came from (a file name), used in messages.
     * @return the validated schema.
     */
    public static Schema parse(final String json, final String source) {
        final JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (final JsonProcessingException e) {
            throw new StoreException(source + ": malformed schema JSON: " + JsonErrors.describe(e));
        }
        if (root == null || !root.isObject()) {
            throw new StoreException(source + ": a schema must be a JSON object");
        }
        return parse((ObjectNode) root, source);
    }

    /**
     * Parses a schema already read as JSON (a request body, say).
     *
     * @param root   the schema object.
     * @param source where it came from, used in messages.
     * @return the validated schema.
     */
    public static Schema parse(final ObjectNode root, final String source) {
        try {
            return parse(root);
        } catch (final StoreException e) {
            throw new StoreException(source + ": " + e.getMessage());
        }
    }

    /**
     * Reads a schema file.
     *
     * @param file the file.
     * @return the schema.
     */
    public static Schema read(final Path file) {
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
        } catch (final NoSuchFileException e) {
            throw new StoreException("missing schema file " + file);
        } catch (final IOException e) {
            throw new StoreException("cannot read schema file " + file + ": " + StoreException.reason(e), e);
        }
    }

    /**
     * Reads a schema from a class-path resource.
     *
     * @param resource absolute resource name.
     * @return the schema.
     */
    public static Schema resource(final String resource) {
        try (InputStream in = SchemaCodec.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new StoreException("missing schema resource " + resource);
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), resource);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Schema parse(final ObjectNode root) {
        rejectUnknown(root, TOP_FIELDS, "");
        final int version = intField(root, "formatVersion", "", Schema.FORMAT_VERSION);
        if (version > Schema.FORMAT_VERSION) {
            throw new StoreException("/formatVersion: schema format " + version
                + " is newer than this tradestore supports ("
                + Schema.FORMAT_VERSION + "); upgrade tradestore");
        }
        if (version < 1) {
            throw new StoreException("/formatVersion: " + version + " must be at least 1");
        }
        final Schema.Builder b = Schema.builder(textField(root, "name", "", true));
        final String layout = textField(root, "layout", "", false);
        if (layout != null) {
            try {
                b.layout(Layout.valueOf(layout.toUpperCase(Locale.ROOT)));
            } catch (final IllegalArgumentException e) {
                throw new StoreException("/layout: unknown layout '" + layout + "'; use COLUMN or ROW");
            }
        }
        b.segmentRows(intField(root, "segmentRows", "", Schema.DEFAULT_SEGMENT_ROWS));
        if (root.has("blockRows")) {
            b.blockRows(intField(root, "blockRows", "", Schema.DEFAULT_BLOCK_ROWS));
        }
        final String ts = textField(root, "timestamp", "", false);
        if (ts != null) {
            b.timestamp(ts);
        }
        final String partitionBy = textField(root, "partitionBy", "", false);
        if (partitionBy != null) {
            b.partitionBy(PartitionBy.parse(partitionBy, "/partitionBy"));
        }
        final JsonNode columns = root.get("columns");
        if (columns == null || !columns.isArray()) {
            throw new StoreException("/columns: required array of {\"name\", \"type\"} objects");
        }
        for (int i = 0; i < columns.size(); i++) {
            final JsonNode c = columns.get(i);
            final String where = "/columns/" + i;
            if (!c.isObject()) {
                throw new StoreException(where + ": must be an object with \"name\" and \"type\"");
            }
            rejectUnknown((ObjectNode) c, COLUMN_FIELDS, where);
            b.column(textField(c, "name", where, true), textField(c, "type", where, true));
        }
        return b.build();
    }

    private static void rejectUnknown(final ObjectNode node, final Set<String> allowed, final String where) {
        final Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            final String n = names.next();
            if (!allowed.contains(n)) {
                throw new StoreException(where + "/" + n + ": unknown field; allowed are "
                    + new java.util.TreeSet<>(allowed));
            }
        }
    }

    private static String textField(final JsonNode node, final String field, final String where,
        final boolean required) {
        final JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            if (required) {
                throw new StoreException(where + "/" + field + ": required string is missing");
            }
            return null;
        }
        if (!v.isTextual()) {
            throw new StoreException(where + "/" + field + ": must be a string, not "
                + v.getNodeType().toString().toLowerCase(Locale.ROOT));
        }
        return v.asText();
    }

    private static int intField(final JsonNode node, final String field, final String where, final int dflt) {
        final JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return dflt;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt()) {
            throw new StoreException(where + "/" + field + ": must be a 32-bit integer, not " + v);
        }
        return v.intValue();
    }

    /**
     * Writes a schema as JSON.
     *
     * @param schema the schema.
     * @param pretty whether to indent.
     * @return the JSON text.
     */
    public static String toJson(final Schema schema, final boolean pretty) {
        final ObjectNode root = MAPPER.createObjectNode();
        root.put("formatVersion", Schema.FORMAT_VERSION);
        root.put("name", schema.name());
        root.put("layout", schema.layout().name());
        root.put("segmentRows", schema.segmentRows());
        root.put("blockRows", schema.blockRows());
        if (schema.timestampIndex() >= 0) {
            root.put("timestamp", schema.columns().get(schema.timestampIndex()).name());
        }
        if (schema.partitionBy() != PartitionBy.NONE) {
            // written only when set: unpartitioned schemas keep their text and hash, and an older tradestore refuses a
            // partitioned table (unknown field) instead of reading past its segments' ends
            root.put("partitionBy", schema.partitionBy().name());
        }
        final ArrayNode cols = root.putArray("columns");
        for (final Column c : schema.columns()) {
            final ObjectNode o = cols.addObject();
            o.put("name", c.name());
            o.put("type", c.typeName());
        }
        try {
            return pretty ? MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root)
                + "\n" : MAPPER.writeValueAsString(root);
        } catch (final JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static long hash(final String text) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < text.length(); i++) {
            h ^= text.charAt(i);
            h *= 0x100000001b3L;
        }
        return h;
    }

}
