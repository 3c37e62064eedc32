package io.sluice.core.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Utf8Test {
    /** Decodes as a writer using {@link Utf8} does: valid sequences copied, invalid subparts one U+FFFD each. */
    private static String decode(byte[] b) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int i = 0;
        while (i < b.length) {
            if (b[i] >= 0) {
                out.write(b[i++]);
                continue;
            }
            int n = Utf8.sequence(b, i, b.length);
            if (n > 0) {
                out.write(b, i, n);
                i += n;
            } else {
                out.writeBytes(Utf8.REPLACEMENT);
                i -= n;
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void sequencesAgreeWithTheReferenceDecoderOnRandomBytes() {
        Random r = new Random(11);
        byte[] palette = {'a', (byte) 0x80, (byte) 0xbf, (byte) 0xc0, (byte) 0xc2, (byte) 0xc3, (byte) 0xa9, (byte) 0xe0,
            (byte) 0xa0, (byte) 0xed, (byte) 0x9f, (byte) 0xef, (byte) 0xf0, (byte) 0x90, (byte) 0xf4, (byte) 0x8f,
            (byte) 0xf5, (byte) 0xff};
        for (int round = 0; round < 50_000; round++) {
            byte[] b = new byte[r.nextInt(12)];
            for (int i = 0; i < b.length; i++) {
                b[i] = r.nextInt(4) == 0 ? (byte) r.nextInt(256) : palette[r.nextInt(palette.length)];
            }
            String expected = Utf8Reference.decode(b);
            assertThat(decode(b)).as(java.util.HexFormat.of().formatHex(b)).isEqualTo(expected);
            // Valid exactly when the reference decoding gives the same bytes back.
            assertThat(Utf8.isValid(b, 0, b.length)).as(java.util.HexFormat.of().formatHex(b))
                    .isEqualTo(java.util.Arrays.equals(expected.getBytes(StandardCharsets.UTF_8), b));
            // The same bytes inside a larger array, with non-ASCII bytes around them: the last word of a range may
            // be read past its end, and what lies there must not count.
            byte[] padded = new byte[b.length + 16];
            java.util.Arrays.fill(padded, (byte) 0xff);
            int off = r.nextInt(8);
            System.arraycopy(b, 0, padded, off, b.length);
            assertThat(Utf8.isValid(padded, off, b.length)).as("padded " + java.util.HexFormat.of().formatHex(b))
                    .isEqualTo(java.util.Arrays.equals(expected.getBytes(StandardCharsets.UTF_8), b));
        }
    }

    @Test
    void longAsciiRunsAreValidAndOneBadByteAnywhereIsNot() {
        byte[] b = "x".repeat(40).getBytes(StandardCharsets.US_ASCII);
        assertThat(Utf8.isValid(b, 0, b.length)).isTrue();
        for (int at = 0; at < b.length; at++) {
            byte[] bad = b.clone();
            bad[at] = (byte) 0xff;
            assertThat(Utf8.isValid(bad, 0, bad.length)).as("0xff at %d", at).isFalse();
        }
    }
}
