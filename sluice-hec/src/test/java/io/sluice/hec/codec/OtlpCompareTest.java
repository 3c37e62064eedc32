package io.sluice.hec.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The word-at-a-time key order of OTLP fields is Go's string order (unsigned bytes), at every length. */
class OtlpCompareTest {
    @Test
    void compareBytesIsUnsignedByteOrder() {
        Random r = new Random(7);
        for (int t = 0; t < 200_000; t++) {
            byte[] a = new byte[r.nextInt(24)];
            byte[] b = new byte[r.nextInt(24)];
            for (int i = 0; i < a.length; i++) {
                a[i] = (byte) (r.nextInt(4) == 0 ? r.nextInt(256) : 'a' + r.nextInt(3));
            }
            for (int i = 0; i < b.length; i++) {
                b[i] = i < a.length && r.nextBoolean() ? a[i] : (byte) (r.nextInt(4) == 0 ? r.nextInt(256) : 'a' + r.nextInt(3));
            }
            int want = Integer.signum(Arrays.compareUnsigned(a, b));
            assertThat(Integer.signum(OtlpEvents.compareBytes(a, 0, a.length, b, 0, b.length)))
                    .as("%s vs %s", Arrays.toString(a), Arrays.toString(b)).isEqualTo(want);
        }
    }
}
