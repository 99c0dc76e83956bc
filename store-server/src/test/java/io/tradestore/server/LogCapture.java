package io.tradestore.server;

import java.util.ArrayList;
import java.util.List;

import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;

/** Collects what tradestore's loggers log while it is attached (try-with-resources), as text lines. */
public final class LogCapture extends AppenderBase<ILoggingEvent> implements AutoCloseable {
    private final Logger logger;
    private final List<String> lines = new ArrayList<>();

    private LogCapture(final String name) {
        this.logger = (Logger) LoggerFactory.getLogger(name);
        setContext(logger.getLoggerContext());
        setName("capture");
        start();
        logger.addAppender(this);
    }

    /** @return a capture of the {@code io.tradestore} loggers. */
    public static LogCapture tradestore() {
        return new LogCapture("io.tradestore");
    }

    /** @param name a logger name. @return a capture of that logger and those below it. */
    public static LogCapture of(final String name) {
        return new LogCapture(name);
    }

    @Override
    protected synchronized void append(final ILoggingEvent e) {
        final StringBuilder sb = new StringBuilder().append(e.getLevel()).append(' ').append(e.getFormattedMessage());
        for (IThrowableProxy t = e.getThrowableProxy(); t != null; t = t.getCause()) {
            sb.append("\n  ").append(t.getClassName()).append(": ").append(t.getMessage());
        }
        lines.add(sb.toString());
    }

    /** @return every line captured so far, each with its level first. */
    public synchronized String text() {
        return String.join("\n", lines);
    }

    @Override
    public void close() {
        logger.detachAppender(this);
        stop();
    }
}
