package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class BytesTest {
    private static int naive(byte[] a, int from, int to, byte b) {
        for (int i = from; i < to; i++) {
            if (a[i] == b) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void indexOfFindsTheFirstMatchAtEveryPositionAndRangeEdge() {
        Random r = new Random(17);
        for (int len = 0; len <= 100; len++) {
            byte[] a = new byte[len];
            for (int at = -1; at < len; at++) {
                for (int i = 0; i < len; i++) {
                    // Bytes near the pattern (borrows) and with the high bit set, never the pattern itself.
                    int v = r.nextInt(4);
                    a[i] = (byte) (v == 0 ? '\n' + 1 : v == 1 ? '\n' - 1 : v == 2 ? 0x8A : r.nextInt(256));
                    if (a[i] == '\n') {
                        a[i] = 'x';
                    }
                }
                if (at >= 0) {
                    a[at] = '\n';
                    if (at + 1 < len && r.nextBoolean()) {
                        a[at + 1] = '\n';
                    }
                }
                for (int from = 0; from <= Math.min(len, 9); from++) {
                    for (int to = Math.max(from, len - 9); to <= len; to++) {
                        assertThat(Bytes.indexOf(a, from, to, (byte) '\n')).as("len %d at %d [%d, %d)", len, at, from, to)
                                .isEqualTo(naive(a, from, to, (byte) '\n'));
                    }
                }
            }
        }
    }

    @Test
    void indexOfFindsHighBytes() {
        byte[] a = new byte[70];
        a[66] = (byte) 0xFF;
        assertThat(Bytes.indexOf(a, 0, a.length, (byte) 0xFF)).isEqualTo(66);
        assertThat(Bytes.indexOf(a, 0, 66, (byte) 0xFF)).isEqualTo(-1);
        assertThat(Bytes.indexOf(a, 3, a.length, (byte) 0)).isEqualTo(3);
    }
}
