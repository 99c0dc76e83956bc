package io.tradestore.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The application's one log: the engine's System.Logger warnings reach logback beside the server's own lines. */
class LoggingTest {
    @Test
    void shouldRouteTheEnginesSystemLoggerToTheServersLog() {
        try (LogCapture log = LogCapture.tradestore()) {
            System.getLogger("io.tradestore.query.index.BitmapIndexes")
                .log(System.Logger.Level.WARNING, "an index that cannot be written");
            System.getLogger("io.tradestore.query.index.BitmapIndexes")
                .log(System.Logger.Level.DEBUG, "below the level");
            assertThat(log.text()).isEqualTo("WARN an index that cannot be written");
        }
    }
}
