package io.sluice.core.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class ClockTest {
    @Test
    void epochNanosTracksTheWallClock() {
        Instant before = Instant.now();
        long nanos = Clock.epochNanos();
        Instant after = Instant.now();
        long lo = before.getEpochSecond() * 1_000_000_000L + before.getNano();
        long hi = after.getEpochSecond() * 1_000_000_000L + after.getNano();
        // The offset was taken from the same clock; allow for the wall clock's own resolution and a resync.
        assertThat(nanos).isBetween(lo - 20_000_000L, hi + 20_000_000L);
    }

    @Test
    void aDaemonThreadKeepsTheOffsetFresh() {
        Clock.epochNanos();
        assertThat(Thread.getAllStackTraces().keySet())
                .anySatisfy(t -> {
                    assertThat(t.getName()).isEqualTo("clock-resync");
                    assertThat(t.isDaemon()).isTrue();
                });
    }
}
