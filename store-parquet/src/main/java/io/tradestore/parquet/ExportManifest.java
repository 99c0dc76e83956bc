package io.tradestore.parquet;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.tradestore.core.StoreException;
import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.schema.SchemaCodec;

/**
 * {@code DIR/TABLE/_tradestore_export.json}: what an export directory holds (the table's schema, the timestamp unit,
 * the last commit exported, and every file with the segment and day it holds, the segment's committed rows when it was
 * written, its rows, length and CRC-32C). A re-run writes only the files it lacks or whose segment has grown. Replaced
 * whole (temporary file, sync, rename) after each segment, so it never names a file that is not complete on disk.
 */
final class ExportManifest {
    /** The manifest's file name; a leading underscore, so that Spark, Hive and Parquet globs skip it. */
    static final String NAME = "_tradestore_export.json";
    static final int FORMAT_VERSION = 1;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /**
     * One exported file.
     *
     * @param path        relative to the table's export directory.
     * @param segment     the segment its rows come from.
     * @param date        the day ({@code YYYY-MM-DD}), or null for a table without a designated timestamp.
     * @param segmentRows the segment's committed rows when the file was written.
     * @param sealed      whether the segment was sealed then.
     * @param rows        rows in the file.
     * @param bytes       the file's length.
     * @param crc32c      its CRC-32C.
     */
    record FileEntry(String path, int segment, String date, int segmentRows, boolean sealed, long rows, long bytes,
        long crc32c) {
    }

    final String table;
    final Schema schema;
    final TimestampUnit unit;
    long commit;
    final Map<String, FileEntry> files = new TreeMap<>();

    ExportManifest(final Schema schema, final TimestampUnit unit) {
        this.table = schema.name();
        this.schema = schema;
        this.unit = unit;
    }

    /** @return the files, by path. */
    Collection<FileEntry> files() {
        return files.values();
    }

    /**
     * @param dir a table's export directory.
     * @return its manifest, or null when there is none.
     * @throws StoreException when it cannot be read or is not a manifest.
     */
    static ExportManifest read(final Path dir) {
        final Path file = dir.resolve(NAME);
        final String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (final NoSuchFileException e) {
            return null;
        } catch (final IOException e) {
            throw new StoreException("cannot read " + file + ": " + StoreException.reason(e), e);
        }
        try {
            final JsonNode root = MAPPER.readTree(text);
            if (root.path("formatVersion").asInt() != FORMAT_VERSION) {
                throw new StoreException(file + ": formatVersion " + root.path("formatVersion") + " is not "
                    + FORMAT_VERSION);
            }
            final Schema schema = SchemaCodec.parse((ObjectNode) root.required("schema"), file + " $.schema");
            final ExportManifest m = new ExportManifest(schema, TimestampUnit.parse(root.required("timestampUnit")
                .asText()));
            m.commit = root.required("commit").asLong();
            for (final JsonNode f : root.required("files")) {
                final FileEntry e = new FileEntry(f.required("path").asText(), f.required("segment").asInt(),
                    f.hasNonNull("date") ? f.get("date").asText() : null, f.required("segmentRows").asInt(),
                    f.required("sealed").asBoolean(), f.required("rows").asLong(), f.required("bytes").asLong(),
                    Long.parseUnsignedLong(f.required("crc32c").asText(), 16));
                m.files.put(e.path(), e);
            }
            return m;
        } catch (final JsonProcessingException | IllegalArgumentException | ClassCastException e) {
            throw new StoreException(file + " is not an export manifest: " + e.getMessage()
                + "; remove the directory to export again from scratch", e);
        }
    }

    /** @return the manifest as JSON. */
    String toJson() {
        final ObjectNode root = MAPPER.createObjectNode();
        root.put("formatVersion", FORMAT_VERSION);
        root.put("table", table);
        try {
            root.set("schema", MAPPER.readTree(SchemaCodec.toJson(schema, false)));
        } catch (final JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        root.put("timestampUnit", unit.label());
        root.put("commit", commit);
        long rows = 0;
        final ArrayNode list = root.putArray("files");
        for (final FileEntry e : files.values()) {
            final ObjectNode f = list.addObject();
            f.put("path", e.path());
            f.put("segment", e.segment());
            if (e.date() != null) {
                f.put("date", e.date());
            }
            f.put("segmentRows", e.segmentRows());
            f.put("sealed", e.sealed());
            f.put("rows", e.rows());
            f.put("bytes", e.bytes());
            f.put("crc32c", String.format("%08x", e.crc32c()));
            rows += e.rows();
        }
        root.put("rows", rows);
        try {
            return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
        } catch (final JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Replaces the manifest in {@code dir}: a synced temporary file renamed over it, then the directory synced. */
    void write(final Path dir) {
        final Path tmp = dir.resolve("." + NAME + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
                final java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(toJson().getBytes(StandardCharsets.UTF_8));
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            Files.move(tmp, dir.resolve(NAME), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (final IOException e) {
            throw new StoreException("cannot write " + dir.resolve(NAME) + ": " + StoreException.reason(e), e);
        }
        MappedFile.syncDirectory(dir);
    }
}
