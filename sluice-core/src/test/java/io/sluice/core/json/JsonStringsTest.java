package io.sluice.core.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class JsonStringsTest {

    /** The byte-at-a-time definition plainEnd must agree with. */
    private static int reference(byte[] b, int from, int to, boolean stopAtNonAscii) {
        for (int i = from; i < to; i++) {
            int c = b[i] & 0xFF;
            if (c == '"' || c == '\\' || c < 0x20 || stopAtNonAscii && c >= 0x80) {
                return i;
            }
        }
        return to;
    }

    @Test
    void plainEndFindsTheFirstSpecialByteAsAByteLoopWould() {
        Random rnd = new Random(7);
        // Specials, their neighbours and bytes whose SWAR borrows could mislead: 0x1f/0x20, 0x21/0x22/0x23,
        // 0x5b/0x5c/0x5d, 0x7f/0x80/0xff, 0x00/0x01.
        byte[] palette = {'a', 'Z', ' ', '!', '"', '#', '[', '\\', ']', 0x1f, 0x00, 0x01, 0x7f, (byte) 0x80, (byte) 0xc3,
            (byte) 0xff, (byte) 0xed};
        for (int round = 0; round < 20_000; round++) {
            int len = rnd.nextInt(40);
            byte[] b = new byte[len];
            for (int i = 0; i < len; i++) {
                // mostly plain text, so runs longer than a word occur
                b[i] = rnd.nextInt(6) == 0 ? palette[rnd.nextInt(palette.length)] : (byte) ('a' + rnd.nextInt(26));
            }
            int from = len == 0 ? 0 : rnd.nextInt(len + 1);
            int to = from + rnd.nextInt(len - from + 1);
            for (boolean ascii : new boolean[] {false, true}) {
                assertThat(JsonStrings.plainEnd(b, from, to, ascii))
                        .as("%s from %d to %d ascii=%s", java.util.Arrays.toString(b), from, to, ascii)
                        .isEqualTo(reference(b, from, to, ascii));
            }
            // copyPlain stops where plainEnd does and has copied exactly the run before it.
            int want = reference(b, from, to, true);
            byte[] dst = new byte[to - from + 8 + 3];
            int stop = JsonStrings.copyPlain(b, from, to, dst, 3);
            assertThat(stop).as("copyPlain %s from %d to %d", java.util.Arrays.toString(b), from, to).isEqualTo(want);
            assertThat(java.util.Arrays.copyOfRange(dst, 3, 3 + stop - from))
                    .isEqualTo(java.util.Arrays.copyOfRange(b, from, stop));
        }
    }

    private static int controlReference(byte[] b, int from, int to, boolean quote, boolean backslash, boolean ascii) {
        for (int i = from; i < to; i++) {
            int c = b[i] & 0xFF;
            if (c < 0x20 || c == 0x7f || quote && c == '"' || backslash && c == '\\' || ascii && c >= 0x80) {
                return i;
            }
        }
        return to;
    }

    @Test
    void controlEndFindsTheFirstControlByteAsAByteLoopWould() {
        Random rnd = new Random(11);
        byte[] palette = {'a', ' ', '!', '"', '#', '[', '\\', ']', 0x1f, 0x00, 0x01, '\n', '\r', '\t', 0x7e, 0x7f,
            (byte) 0x80, (byte) 0xc3, (byte) 0xfe, (byte) 0xff};
        int hitsBeyondFirstWord = 0;
        for (int round = 0; round < 20_000; round++) {
            int len = rnd.nextInt(40);
            byte[] b = new byte[len];
            for (int i = 0; i < len; i++) {
                b[i] = rnd.nextInt(8) == 0 ? palette[rnd.nextInt(palette.length)] : (byte) ('a' + rnd.nextInt(26));
            }
            int from = len == 0 ? 0 : rnd.nextInt(len + 1);
            int to = from + rnd.nextInt(len - from + 1);
            for (int flags = 0; flags < 8; flags++) {
                boolean q = (flags & 1) != 0;
                boolean s = (flags & 2) != 0;
                boolean a = (flags & 4) != 0;
                int want = controlReference(b, from, to, q, s, a);
                assertThat(JsonStrings.controlEnd(b, from, to, q, s, a))
                        .as("%s from %d to %d quote=%s backslash=%s ascii=%s", java.util.Arrays.toString(b), from, to, q, s, a)
                        .isEqualTo(want);
                if (want >= from + 8 && want < to) {
                    hitsBeyondFirstWord++;
                }
            }
        }
        assertThat(hitsBeyondFirstWord).as("cases found by the word-at-a-time loop, not the tail").isGreaterThan(1000);
    }
}
