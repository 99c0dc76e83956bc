package io.tradestore.server.cli;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Chronicle's analytics stay off however tradestore starts, {@code java -jar} included, where no -D flag is given. */
class ChronicleAnalyticsTest {
    @Test
    void shouldTurnAnalyticsOffWithoutTheCommandLineFlag() throws Exception {
        assertThat(run(List.of())).contains("analytics property: true");
    }

    @Test
    void shouldLeaveAUsersOwnSettingAlone() throws Exception {
        assertThat(run(List.of("-Dchronicle.analytics.disable=false"))).contains("analytics property: false");
    }

    /** Starts the CLI's main in a child JVM with the chronicle flags but without the analytics property. */
    private static String run(final List<String> extra) throws Exception {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (final String f : System.getProperty("tradestore.jvmFlags", "").trim().split("\\s+")) {
            if (!f.isEmpty() && !f.startsWith("-Dchronicle.analytics.disable")) {
                cmd.add(f);
            }
        }
        cmd.addAll(extra);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), AnalyticsProbeMain.class.getName(),
            "--version"));
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(out).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }
}
