package io.sluice.core.pipeline;

import io.sluice.core.json.JsonWriter;
import java.io.PrintStream;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.TimeZone;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The process log: one line per event on stderr, so that stdout carries only messages
 * ({@code sluice -c conf < in > out} is a clean filter). Levels as Gollum's {@code -ll}: 0 error, 1 warning,
 * 2 info, 3 debug. Lines are plain text or JSON. Repeated events (a peer sending garbage 10,000 times a second)
 * go through {@link #limited}: a few lines per window, then one summary of what was suppressed.
 */
public final class Log {
    public static final int ERROR = 0;
    public static final int WARNING = 1;
    public static final int INFO = 2;
    public static final int DEBUG = 3;
    /** Lines of one kind written per window before the rest are only counted. */
    static final int LIMIT_PER_WINDOW = 5;
    static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final String[] NAMES = {"ERROR", "WARN ", "INFO ", "DEBUG"};
    private static final String[] JSON_NAMES = {"error", "warning", "info", "debug"};

    private final PrintStream out;
    private final boolean json;
    private final Map<String, Window> windows = new ConcurrentHashMap<>();
    private volatile int level;

    /** A plain-text log writing lines at or below {@code level} to {@code out}. */
    public Log(PrintStream out, int level) {
        this(out, level, false);
    }

    /** A log writing plain or JSON lines at or below {@code level} to {@code out}. */
    public Log(PrintStream out, int level, boolean json) {
        this.out = out;
        this.level = level;
        this.json = json;
    }

    /** A log on stderr at info level. */
    public static Log stderr() {
        return new Log(System.err, INFO);
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

    /**
     * Logs an event that may repeat at a high rate: at most {@value #LIMIT_PER_WINDOW} lines per {@code key}
     * every 10 seconds; the rest are counted and reported in one line when the window ends.
     */
    public void limited(int atLevel, String key, String text) {
        if (atLevel > level) {
            return;
        }
        Window w = windows.computeIfAbsent(key, k -> new Window());
        String summary = null;
        boolean write;
        synchronized (w) {
            long now = System.nanoTime();
            if (now - w.start > WINDOW_NANOS) {
                if (w.suppressed > 0) {
                    summary = key + ": " + w.suppressed + " more like this in the last "
                            + TimeUnit.NANOSECONDS.toSeconds(now - w.start) + " s (suppressed)";
                }
                w.start = now;
                w.logged = 0;
                w.suppressed = 0;
            }
            write = w.logged < LIMIT_PER_WINDOW;
            if (write) {
                w.logged++;
            } else {
                w.suppressed++;
            }
        }
        if (summary != null) {
            write(atLevel, summary);
        }
        if (write) {
            write(atLevel, text);
        }
    }

    /** Reports what {@link #limited} suppressed and not yet summarised (at shutdown). */
    public void flushSuppressed() {
        for (Map.Entry<String, Window> e : windows.entrySet()) {
            Window w = e.getValue();
            synchronized (w) {
                if (w.suppressed > 0) {
                    write(WARNING, e.getKey() + ": " + w.suppressed + " more like this (suppressed)");
                    w.suppressed = 0;
                }
            }
        }
    }

    /** Writes a line that is not an event (the live stats line), whatever the level, unless level is below 0. */
    public void status(String text) {
        if (level >= 0) {
            out.println(text);
        }
    }

    private void write(int at, String text) {
        if (at > level) {
            return;
        }
        if (json) {
            out.println(new JsonWriter(text.length() + 64).beginObject()
                    .name("time").string(Instant.now().truncatedTo(ChronoUnit.MILLIS).toString())
                    .name("level").string(JSON_NAMES[at])
                    .name("msg").string(text).endObject());
        } else {
            out.println(localClock(System.currentTimeMillis()) + " " + NAMES[at] + " " + text);
        }
    }

    /**
     * The local time of day as HH:mm:ss.SSS. Not {@code LocalTime.now()}: setting up java.time's zone rules took
     * 15–20 ms of the first log line of a fresh JVM, {@link TimeZone} about half of that.
     */
    static String localClock(long epochMillis) {
        long local = epochMillis + TimeZone.getDefault().getOffset(epochMillis);
        int ms = (int) Math.floorMod(local, 86_400_000L);
        char[] c = new char[12];
        two(c, 0, ms / 3_600_000);
        c[2] = ':';
        two(c, 3, ms / 60_000 % 60);
        c[5] = ':';
        two(c, 6, ms / 1000 % 60);
        c[8] = '.';
        int milli = ms % 1000;
        c[9] = (char) ('0' + milli / 100);
        two(c, 10, milli % 100);
        return new String(c);
    }

    private static void two(char[] c, int at, int v) {
        c[at] = (char) ('0' + v / 10);
        c[at + 1] = (char) ('0' + v % 10);
    }

    private static final class Window {
        long start = System.nanoTime();
        int logged;
        long suppressed;
    }
}
