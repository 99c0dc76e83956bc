package io.tradestore.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A generated section of a Markdown file, between two marker comments, that a benchmark run replaces. */
final class MarkdownSection {
    private MarkdownSection() {
    }

    /**
     * Replaces the section between {@code start} and {@code end} (or appends it when the file has none), keeping
     * everything around it; a missing file is created with a title.
     *
     * @param file     the Markdown file.
     * @param start    the opening marker line.
     * @param end      the closing marker line.
     * @param markdown the section's new content.
     * @throws IOException when the file cannot be read or written.
     */
    static void write(final Path file, final String start, final String end, final String markdown)
        throws IOException {
        final String block = start + "\n" + markdown + end + "\n";
        String text = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "# Benchmarks\n\n";
        final int s = text.indexOf(start);
        final int e = text.indexOf(end);
        if (s >= 0 && e > s) {
            text = text.substring(0, s) + block + text.substring(e + end.length()).replaceFirst("^\n", "");
        } else {
            text = text + (text.endsWith("\n\n") || text.isEmpty() ? "" : text.endsWith("\n") ? "\n" : "\n\n") + block;
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }
}
