package io.sluice.core.message;

import io.sluice.core.Daemon;

/**
 * Wall-clock time in nanoseconds since the epoch, cheap enough to read per event: one {@link System#nanoTime()}
 * added to an offset taken from the wall clock, which a daemon thread refreshes every second so that it follows
 * NTP steps. The refresh used to be a check in {@link #epochNanos()} itself; C2 compiled that once-a-second
 * branch as a trap in every consumer loop that inlined it, and taking it recompiled them mid-run.
 */
public final class Clock {
    private static final long RESYNC_MILLIS = 1000;
    private static volatile long offset = computeOffset();

    static {
        Daemon.start("clock-resync", Clock::resyncForever);
    }

    private Clock() {
    }

    /** Nanoseconds since the epoch. */
    public static long epochNanos() {
        return System.nanoTime() + offset;
    }

    private static void resyncForever() {
        while (true) {
            try {
                Thread.sleep(RESYNC_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            offset = computeOffset();
        }
    }

    private static long computeOffset() {
        java.time.Instant i = java.time.Instant.now();
        return i.getEpochSecond() * 1_000_000_000L + i.getNano() - System.nanoTime();
    }
}
