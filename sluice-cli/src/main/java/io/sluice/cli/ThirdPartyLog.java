package io.sluice.cli;

import io.sluice.core.pipeline.Log;
import org.slf4j.helpers.FormattingTuple;
import org.slf4j.helpers.MarkerIgnoringBase;
import org.slf4j.helpers.MessageFormatter;

/**
 * An SLF4J logger writing into Sluice's log: warnings and errors of libraries always, their info and debug lines
 * only at Sluice's debug level (the Kafka client's info lines would drown everything else). Each line names the
 * library's logger by its simple name. The overloads below are SLF4J 1.7's {@code Logger} interface, one per
 * argument shape; each is one line into {@link #format} or {@link #thrown}.
 */
public final class ThirdPartyLog extends MarkerIgnoringBase {
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

    private static boolean on(int level) {
        return target.enabled(level);
    }

    private void write(int level, String text, Throwable t) {
        String line = t == null ? prefix + text : prefix + text + ": " + t;
        switch (level) {
            case Log.ERROR -> target.error(line);
            case Log.WARNING -> target.warn(line);
            case Log.INFO -> target.info(line);
            default -> target.debug(line);
        }
    }

    private void format(int level, String pattern, Object... args) {
        if (on(level)) {
            FormattingTuple f = MessageFormatter.arrayFormat(pattern, args);
            write(level, f.getMessage(), f.getThrowable());
        }
    }

    private void thrown(int level, String msg, Throwable t) {
        if (on(level)) {
            write(level, msg, t);
        }
    }

    /** Library info lines are Sluice debug lines; library debug and trace lines are not written. */
    private static int info() {
        return Log.DEBUG;
    }

    @Override
    public boolean isTraceEnabled() {
        return false;
    }

    @Override
    public void trace(String msg) {
    }

    @Override
    public void trace(String format, Object arg) {
    }

    @Override
    public void trace(String format, Object arg1, Object arg2) {
    }

    @Override
    public void trace(String format, Object... arguments) {
    }

    @Override
    public void trace(String msg, Throwable t) {
    }

    @Override
    public boolean isDebugEnabled() {
        return false;
    }

    @Override
    public void debug(String msg) {
    }

    @Override
    public void debug(String format, Object arg) {
    }

    @Override
    public void debug(String format, Object arg1, Object arg2) {
    }

    @Override
    public void debug(String format, Object... arguments) {
    }

    @Override
    public void debug(String msg, Throwable t) {
    }

    @Override
    public boolean isInfoEnabled() {
        return on(info());
    }

    @Override
    public void info(String msg) {
        format(info(), msg);
    }

    @Override
    public void info(String format, Object arg) {
        format(info(), format, arg);
    }

    @Override
    public void info(String format, Object arg1, Object arg2) {
        format(info(), format, arg1, arg2);
    }

    @Override
    public void info(String format, Object... arguments) {
        format(info(), format, arguments);
    }

    @Override
    public void info(String msg, Throwable t) {
        thrown(info(), msg, t);
    }

    @Override
    public boolean isWarnEnabled() {
        return on(Log.WARNING);
    }

    @Override
    public void warn(String msg) {
        format(Log.WARNING, msg);
    }

    @Override
    public void warn(String format, Object arg) {
        format(Log.WARNING, format, arg);
    }

    @Override
    public void warn(String format, Object... arguments) {
        format(Log.WARNING, format, arguments);
    }

    @Override
    public void warn(String format, Object arg1, Object arg2) {
        format(Log.WARNING, format, arg1, arg2);
    }

    @Override
    public void warn(String msg, Throwable t) {
        thrown(Log.WARNING, msg, t);
    }

    @Override
    public boolean isErrorEnabled() {
        return on(Log.ERROR);
    }

    @Override
    public void error(String msg) {
        format(Log.ERROR, msg);
    }

    @Override
    public void error(String format, Object arg) {
        format(Log.ERROR, format, arg);
    }

    @Override
    public void error(String format, Object arg1, Object arg2) {
        format(Log.ERROR, format, arg1, arg2);
    }

    @Override
    public void error(String format, Object... arguments) {
        format(Log.ERROR, format, arguments);
    }

    @Override
    public void error(String msg, Throwable t) {
        thrown(Log.ERROR, msg, t);
    }
}
