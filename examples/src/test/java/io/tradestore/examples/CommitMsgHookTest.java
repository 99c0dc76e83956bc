package io.tradestore.examples;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** The repository's commit-msg hook takes the messages DEVELOPERS.md asks for and refuses the ones it forbids. */
class CommitMsgHookTest {
    private static final Path HOOK = Path.of("../.githooks/commit-msg");

    @TempDir
    Path dir;

    @Test
    void shouldTakeAShortImperativeSubjectWithABody() throws Exception {
        assertThat(run("Split TableWriter by responsibility\n\nThe writer held five jobs.\n")).isEmpty();
        assertThat(run("Fix the stop\n")).isEmpty();
        assertThat(run("Merge branch 'split-core'\n")).isEmpty();
        assertThat(run("Add a cache\n# Please enter the commit message\n")).isEmpty();
    }

    @Test
    void shouldRefuseWhatLogOnelineCannotShow() throws Exception {
        assertThat(run("A".repeat(73) + "\n")).contains("73 characters, over 72");
        assertThat(run("Fixed the stop\n")).contains("'Fixed'").contains("imperative");
        assertThat(run("Adds a cache\n")).contains("'Adds'");
        assertThat(run("fix the stop\n")).contains("lower case");
        assertThat(run("Fix the stop.\n")).contains("full stop");
        assertThat(run("Fix the stop\nbecause it crashed\n")).contains("second line is not blank");
        assertThat(run("\n\n")).contains("subject is empty");
    }

    /** @return the hook's error output, empty when it accepted the message. */
    private String run(final String message) throws IOException, InterruptedException {
        final Path file = dir.resolve("COMMIT_EDITMSG");
        Files.writeString(file, message, StandardCharsets.UTF_8);
        final Process p = new ProcessBuilder("bash", HOOK.toString(), file.toString()).redirectErrorStream(true)
            .start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue() == 0).as(out).isEqualTo(out.isEmpty());
        return out;
    }
}
