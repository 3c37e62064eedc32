package io.sluice.core.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DecimalTest {
    private static String put(long v) {
        byte[] b = new byte[Decimal.MAX_LONG + 4];
        int end = Decimal.putLong(b, 2, v);
        return new String(b, 2, end - 2, StandardCharsets.US_ASCII);
    }

    @Test
    void writesWhatLongToStringWrites() {
        long[] edges = {0, 1, -1, 9, 10, 99, 100, 101, 999_999_999, 1_000_000_000, Integer.MAX_VALUE,
            Integer.MIN_VALUE, 999_999_999_999_999_999L, 1_000_000_000_000_000_000L, Long.MAX_VALUE, Long.MIN_VALUE,
            Long.MIN_VALUE + 1};
        for (long v : edges) {
            assertThat(put(v)).isEqualTo(Long.toString(v));
        }
        // Every power of ten and its neighbours, where the digit count changes.
        for (long p = 1; p > 0 && p <= Long.MAX_VALUE / 10 * 10; p *= 10) {
            for (long v : new long[] {p - 1, p, p + 1, -p, -p + 1}) {
                assertThat(put(v)).isEqualTo(Long.toString(v));
            }
            if (p > Long.MAX_VALUE / 10) {
                break;
            }
        }
        Random rnd = new Random(11);
        for (int i = 0; i < 100_000; i++) {
            long v = rnd.nextLong() >> rnd.nextInt(64);
            assertThat(put(v)).isEqualTo(Long.toString(v));
        }
    }
}
