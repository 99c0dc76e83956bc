package io.tradestore.server.http;

import java.nio.file.Path;
import java.util.Locale;

import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;

import io.tradestore.core.StoreException;

/**
 * The levels and files of tradestore's log (logback, configured by {@code logback.xml} in the application jar), set
 * from the command line: {@code --log-level} for the {@code io.tradestore} loggers, {@code --access-log FILE} for one
 * line per answered request on the {@value #ACCESS_LOGGER} logger, which is off otherwise and writes nowhere else.
 */
public final class LogSettings {
    /** The logger of the access log. */
    public static final String ACCESS_LOGGER = "tradestore.access";
    /** Levels {@link #level} accepts. */
    public static final String LEVELS = "error, warn, info, debug, trace";

    private LogSettings() {
    }

    /**
     * Sets the level of tradestore's own loggers.
     *
     * @param level one of {@link #LEVELS} (any case).
     * @throws StoreException when the level is not one of them.
     */
    public static void level(final String level) {
        final String l = level.toUpperCase(Locale.ROOT);
        if (!l.equals("ERROR") && !l.equals("WARN") && !l.equals("INFO") && !l.equals("DEBUG") && !l.equals("TRACE")) {
            throw new StoreException("log level '" + level + "' is not one of " + LEVELS);
        }
        context().getLogger("io.tradestore").setLevel(Level.toLevel(l));
    }

    /**
     * Writes the access log to a file (appended to), one line per answered request: time (UTC), remote address, method,
     * target, endpoint, status, body bytes, milliseconds from the request's arrival to its answer.
     *
     * @param file the log file.
     */
    public static void accessLog(final Path file) {
        final LoggerContext context = context();
        final PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%d{yyyy-MM-dd'T'HH:mm:ss.SSS'Z',UTC} %msg%n");
        encoder.start();
        final FileAppender<ILoggingEvent> appender = new FileAppender<>();
        appender.setContext(context);
        appender.setName("access");
        appender.setFile(file.toAbsolutePath().toString());
        appender.setAppend(true);
        appender.setEncoder(encoder);
        appender.start();
        if (!appender.isStarted()) {
            throw new StoreException("cannot open the access log " + file + " for appending");
        }
        final Logger access = context.getLogger(ACCESS_LOGGER);
        access.detachAndStopAllAppenders();
        access.setAdditive(false);
        access.addAppender(appender);
        access.setLevel(Level.INFO);
    }

    /** Stops writing the access log (closes its file). */
    public static void closeAccessLog() {
        final Logger access = context().getLogger(ACCESS_LOGGER);
        access.detachAndStopAllAppenders();
        access.setLevel(Level.OFF);
    }

    private static LoggerContext context() {
        return (LoggerContext) LoggerFactory.getILoggerFactory();
    }
}
