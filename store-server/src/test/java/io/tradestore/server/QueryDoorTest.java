package io.tradestore.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The server uses the query engine through its door, the {@code io.tradestore.query} package, and never its internals
 * (parsing, planning, execution, the scan's interfaces, indexes): they can then change without touching the server.
 */
class QueryDoorTest {
    /** A name of a query-engine internal package, wherever it stands in a line (imports, qualified names, links). */
    static final Pattern INTERNAL = Pattern.compile("\\bio\\.tradestore\\.query\\.(index|plan|exec|parse|spi)\\b");

    @Test
    void shouldUseTheQueryEngineOnlyThroughItsPublicPackage() throws IOException {
        final Path main = Path.of("src", "main", "java");
        assertThat(main).as("store-server's main sources, from the module directory").isDirectory();
        final List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(main)) {
            for (final Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                found.addAll(internalUses(f.toString(), Files.readAllLines(f, StandardCharsets.UTF_8)));
            }
        }
        assertThat(found).as("store-server must reach the query engine through io.tradestore.query only (QueryEngine, "
            + "JsonBodyCheck, BackgroundIndexer ...); add what it needs there").isEmpty();
    }

    @Test
    void shouldNameTheFileAndLineOfAnInternalUse() {
        final List<String> found = internalUses("Some.java", List.of("package x;", "",
            "import io.tradestore.query.QueryEngine;", "import io.tradestore.query.index.BitmapIndexes;"));
        assertThat(found).containsExactly("Some.java:4: import io.tradestore.query.index.BitmapIndexes;");
    }

    /** @return "file:line: text" of each line naming an internal package. */
    static List<String> internalUses(final String file, final List<String> lines) {
        final List<String> found = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (INTERNAL.matcher(lines.get(i)).find()) {
                found.add(file + ":" + (i + 1) + ": " + lines.get(i).trim());
            }
        }
        return found;
    }
}
