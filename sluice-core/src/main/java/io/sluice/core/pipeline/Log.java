package io.sluice.core.pipeline;

import java.io.PrintStream;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;

/**
 * The process log: one line per event on stderr, so that stdout carries only messages
 * ({@code sluice -c conf < in > out} is a clean filter). Levels as Gollum's {@code -ll}: 0 error, 1 warning,
 * 2 info, 3 debug.
 */
public final class Log {
    public static final int ERROR = 0;
    public static final int WARNING = 1;
    public static final int INFO = 2;
    public static final int DEBUG = 3;
    private static final String[] NAMES = {"ERROR", "WARN ", "INFO ", "DEBUG"};

    private final PrintStream out;
    private volatile int level;

    /** A log writing lines at or below {@code level} to {@code out}. */
    public Log(PrintStream out, int level) {
        this.out = out;
        this.level = level;
    }

    /** A log on stderr at info level. */
    public static Log stderr() {
        return new Log(System.err, INFO);
    }

    public int level() {
        return level;
    }

    public void setLevel(int level) {
        this.level = level;
    }

    public boolean enabled(int atLevel) {
        return atLevel <= level;
    }

    public void error(String text) {
        write(ERROR, text);
    }

    public void warn(String text) {
        write(WARNING, text);
    }

    public void info(String text) {
        write(INFO, text);
    }

    public void debug(String text) {
        write(DEBUG, text);
    }

    /** Writes a line that is not an event (the live stats line), whatever the level, unless level is below 0. */
    public void status(String text) {
        if (level >= 0) {
            out.println(text);
        }
    }

    private void write(int at, String text) {
        if (at <= level) {
            out.println(LocalTime.now().truncatedTo(ChronoUnit.MILLIS) + " " + NAMES[at] + " " + text);
        }
    }
}
