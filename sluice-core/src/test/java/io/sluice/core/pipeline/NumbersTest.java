package io.sluice.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class NumbersTest {
    @Test
    void writesAsFormatterDoesInTheRootLocale() {
        SplittableRandom r = new SplittableRandom(17);
        long[] edges = {0, 1, -1, 9, 10, 999, 1000, -1000, 999_999, 1_000_000, 12_345_678_901L, Long.MAX_VALUE, Long.MIN_VALUE};
        for (long v : edges) {
            assertThat(Numbers.grouped(v)).isEqualTo(String.format(Locale.ROOT, "%,d", v));
        }
        for (int i = 0; i < 20_000; i++) {
            long v = r.nextLong() >> r.nextInt(64);
            assertThat(Numbers.grouped(v)).isEqualTo(String.format(Locale.ROOT, "%,d", v));
            double d = (r.nextDouble() - 0.3) * Math.pow(10, r.nextInt(-4, 10));
            assertThat(Numbers.groupedRound(d)).as("%s", d).isEqualTo(String.format(Locale.ROOT, "%,.0f", d));
            int decimals = r.nextInt(0, 7);
            assertThat(Numbers.fixed(d, decimals)).as("%s %s", d, decimals)
                    .isEqualTo(String.format(Locale.ROOT, "%." + decimals + "f", d));
        }
        assertThat(Numbers.fixed(0.4361, 3)).isEqualTo("0.436");
        assertThat(Numbers.fixed(0.0, 3)).isEqualTo("0.000");
        assertThat(Numbers.fixed(-0.0001, 3)).isEqualTo(String.format(Locale.ROOT, "%.3f", -0.0001));
        assertThat(Numbers.zeroPadded(42, 6)).isEqualTo("000042");
        assertThat(Numbers.zeroPadded(1_234_567, 6)).isEqualTo("1234567");
        assertThat(Numbers.appendPadded(new StringBuilder(), "ab", 4).toString()).isEqualTo("ab  ");
        assertThat(Numbers.appendPadded(new StringBuilder(), "abcdef", 4).toString()).isEqualTo("abcdef");
    }

    @Test
    void logClockIsTheLocalTimeOfDayToTheMillisecond() {
        java.time.format.DateTimeFormatter f = java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss.SSS");
        SplittableRandom r = new SplittableRandom(25);
        long now = System.currentTimeMillis();
        for (int i = 0; i < 10_000; i++) {
            long t = i == 0 ? now : r.nextLong(0, 4_000_000_000_000L);
            String expected = java.time.Instant.ofEpochMilli(t).atZone(java.time.ZoneId.systemDefault()).format(f);
            assertThat(Log.localClock(t)).as("%s", t).isEqualTo(expected);
        }
    }
}
