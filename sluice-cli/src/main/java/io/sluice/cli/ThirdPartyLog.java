package io.sluice.cli;

import io.sluice.core.pipeline.Log;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.FormattingTuple;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * An SLF4J logger writing into Sluice's log: warnings and errors of libraries always, their info lines only at
 * Sluice's debug level (the Kafka client's info lines would drown everything else), their debug and trace lines
 * never. Each line names the library's logger by its simple name. SLF4J's {@code AbstractLogger} turns the
 * interface's overloads (five levels times every argument shape) into the one call below.
 */
public final class ThirdPartyLog extends LegacyAbstractLogger {
    private static final long serialVersionUID = 1L;
    /** The process log; until the command line sets it, a log on stderr at warning level. */
    private static volatile Log target = new Log(System.err, Log.WARNING);

    private final String prefix;

    /** A logger for SLF4J's {@code name} (a class name, usually). */
    public ThirdPartyLog(String name) {
        this.name = name;
        this.prefix = name.substring(name.lastIndexOf('.') + 1) + ": ";
    }

    /** Routes every library logger to {@code log}. */
    static void routeTo(Log log) {
        target = log;
    }

    /** Sluice's level for a library's: info lines are Sluice debug lines. */
    private static int level(Level level) {
        return switch (level) {
            case ERROR -> Log.ERROR;
            case WARN -> Log.WARNING;
            default -> Log.DEBUG;
        };
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] args, Throwable t) {
        FormattingTuple f = MessageFormatter.arrayFormat(pattern, args);
        Throwable thrown = t != null ? t : f.getThrowable();
        String line = thrown == null ? prefix + f.getMessage() : prefix + f.getMessage() + ": " + thrown;
        switch (level(level)) {
            case Log.ERROR -> target.error(line);
            case Log.WARNING -> target.warn(line);
            default -> target.debug(line);
        }
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return null;
    }

    @Override
    public boolean isTraceEnabled() {
        return false;
    }

    @Override
    public boolean isDebugEnabled() {
        return false;
    }

    @Override
    public boolean isInfoEnabled() {
        return target.enabled(level(Level.INFO));
    }

    @Override
    public boolean isWarnEnabled() {
        return target.enabled(Log.WARNING);
    }

    @Override
    public boolean isErrorEnabled() {
        return target.enabled(Log.ERROR);
    }
}
