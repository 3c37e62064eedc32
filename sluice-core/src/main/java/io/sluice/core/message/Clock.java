package io.sluice.core.message;

/**
 * Wall-clock time in nanoseconds since the epoch, cheap enough to read per event: one {@link System#nanoTime()}
 * added to an offset taken from the wall clock at start (and refreshed now and then, so it follows NTP steps).
 */
public final class Clock {
    private static final long RESYNC_NANOS = 1_000_000_000L;
    private static volatile long offset = computeOffset();
    private static volatile long lastSync = System.nanoTime();

    private Clock() {
    }

    /** Nanoseconds since the epoch. */
    public static long epochNanos() {
        long now = System.nanoTime();
        if (now - lastSync > RESYNC_NANOS) {
            lastSync = now;
            offset = computeOffset();
        }
        return now + offset;
    }

    private static long computeOffset() {
        java.time.Instant i = java.time.Instant.now();
        return i.getEpochSecond() * 1_000_000_000L + i.getNano() - System.nanoTime();
    }
}
