package io.tradestore.core.gen;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.schema.SchemaCodec;

import static org.assertj.core.api.Assertions.assertThat;

class FlyweightGeneratorTest {
    private static final String REGENERATE =
        "mvn -pl store-core test -Dtest=FlyweightGeneratorTest -Dtradestore.regenerate=true";

    @Test
    void shouldMatchTheCommittedTradeFlyweight() throws IOException {
        assertUpToDate(TradesSchema.SCHEMA, Path.of("src/main/java"), "io.tradestore.core.flyweight", "TradeFlyweight");
    }

    @Test
    void shouldMatchTheCommittedTestFlyweight() throws IOException {
        final Schema schema = SchemaCodec.read(Path.of("src/test/resources/io/tradestore/core/all_types.schema.json"));
        assertUpToDate(schema, Path.of("src/test/java"), "io.tradestore.core", "AllTypesFlyweight");
    }

    private static void assertUpToDate(final Schema schema, final Path root, final String pkg,
        final String cls) throws IOException {
        final Path file = root.resolve(pkg.replace('.', '/')).resolve(cls + ".java");
        final String expected = FlyweightGenerator.generate(schema, pkg, cls);
        if (Boolean.getBoolean("tradestore.regenerate")) {
            Files.writeString(file, expected, StandardCharsets.UTF_8);
        }
        assertThat(Files.readString(file, StandardCharsets.UTF_8))
            .as("%s is stale: regenerate it with -Dtradestore.regenerate=true (%s)", file, REGENERATE)
            .isEqualTo(expected);
    }

    @Test
    void shouldNameAccessorsInCamelCaseAndAvoidKeywords() {
        final Schema schema = Schema.builder("odd").column("class", "i64").column("bid_size_2", "i32")
            .column("_x", "char").build();
        final String src = FlyweightGenerator.generate(schema, "p", "OddFlyweight");
        assertThat(src).contains("public long classValue_()", "public int bidSize2()", "public char x()",
            "public static final int BID_SIZE_2_INDEX = 1;", "public static final int C_X_ROW_OFFSET = 12;");
    }
}
