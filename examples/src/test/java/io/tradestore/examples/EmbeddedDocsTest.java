package io.tradestore.examples;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Every Java block of docs/embedding.md must stand, line for line, in a compiled example. */
class EmbeddedDocsTest {
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

    @Test
    void shouldShowOnlyCodeThatLivesInTheExamples() throws IOException {
        final String doc = Files.readString(Path.of("../docs/embedding.md"), StandardCharsets.UTF_8);
        final String sources;
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            sources = normalise(files.filter(p -> p.toString().endsWith(".java")).map(EmbeddedDocsTest::read)
                .collect(Collectors.joining("\n")));
        }
        final List<String> blocks = new ArrayList<>();
        final Matcher m = JAVA_BLOCK.matcher(doc);
        while (m.find()) {
            blocks.add(m.group(1));
        }
        assertThat(blocks).hasSizeGreaterThanOrEqualTo(3);
        for (final String block : blocks) {
            assertThat(sources).as("docs/embedding.md block not found in examples:%n%s", block)
                .contains(normalise(block));
        }
    }

    private static String read(final Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (final IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String normalise(final String s) {
        return Stream.of(s.split("\n")).map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.joining("\n"));
    }
}
