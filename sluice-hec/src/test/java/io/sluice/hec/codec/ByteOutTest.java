package io.sluice.hec.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ByteOutTest {
    private static String epochSeconds(long nanos) {
        byte[] b = new byte[ByteOut.MAX_EPOCH_SECONDS];
        return new String(b, 0, ByteOut.putEpochSeconds(b, 0, nanos), StandardCharsets.US_ASCII);
    }

    @Test
    void epochSecondsAreTheShortestExactDecimal() {
        assertThat(epochSeconds(1796002770_000000000L)).isEqualTo("1796002770");
        assertThat(epochSeconds(1796002770_500000000L)).isEqualTo("1796002770.5");
        assertThat(epochSeconds(1796002770_166598000L)).isEqualTo("1796002770.166598");
        assertThat(epochSeconds(1796002770_000000001L)).isEqualTo("1796002770.000000001");
        assertThat(epochSeconds(1_000_000L)).isEqualTo("0.001");
        assertThat(epochSeconds(0)).isEqualTo("0");
        assertThat(epochSeconds(-1_500_000_000L)).isEqualTo("-2.5"); // floor seconds, then the positive fraction
    }

    /** Any timestamp: the decimal read back is the exact nanosecond, with no trailing zero and no bare point. */
    @Test
    void epochSecondsRoundTripExactly() {
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < 100_000; i++) {
            long nanos = r.nextLong(0, 4_000_000_000_000_000_000L);
            if (i % 3 == 1) {
                nanos -= nanos % 1000; // whole microseconds
            } else if (i % 3 == 2) {
                nanos -= nanos % 1_000_000; // whole milliseconds
            }
            String s = epochSeconds(nanos);
            assertThat(new BigDecimal(s).movePointRight(9).longValueExact()).as(s).isEqualTo(nanos);
            assertThat(s).as(s).doesNotEndWith(".");
            if (s.contains(".")) {
                assertThat(s).as(s).doesNotEndWith("0");
            }
        }
    }
}
