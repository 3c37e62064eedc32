package io.sluice.forward.codec;

/**
 * Java strings encoded as UTF-8 straight into a byte array, with no intermediate {@code byte[]}: the length first
 * (so that a msgpack header can be written before the bytes), then the bytes. An unpaired surrogate becomes '?', as
 * in {@link String#getBytes(java.nio.charset.Charset)}, so cached and direct encodings agree.
 */
final class Utf8Encoding {
    private Utf8Encoding() {
    }

    /**
     * Encodes {@code s[0, n)} into {@code b} from {@code p}, which has room for {@link #length} bytes.
     *
     * @return the position after the last byte written
     */
    static int encode(String s, int n, byte[] b, int p) {
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                b[p++] = (byte) c;
            } else if (c < 0x800) {
                b[p++] = (byte) (0xc0 | (c >> 6));
                b[p++] = (byte) (0x80 | (c & 0x3f));
            } else if (Character.isSurrogate(c)) {
                if (isPair(s, i, n)) {
                    int cp = Character.toCodePoint(c, s.charAt(++i));
                    b[p++] = (byte) (0xf0 | (cp >> 18));
                    b[p++] = (byte) (0x80 | ((cp >> 12) & 0x3f));
                    b[p++] = (byte) (0x80 | ((cp >> 6) & 0x3f));
                    b[p++] = (byte) (0x80 | (cp & 0x3f));
                } else {
                    b[p++] = '?';
                }
            } else {
                b[p++] = (byte) (0xe0 | (c >> 12));
                b[p++] = (byte) (0x80 | ((c >> 6) & 0x3f));
                b[p++] = (byte) (0x80 | (c & 0x3f));
            }
        }
        return p;
    }

    private static boolean isPair(String s, int i, int n) {
        return Character.isHighSurrogate(s.charAt(i)) && i + 1 < n
                && Character.isLowSurrogate(s.charAt(i + 1));
    }

    /** Counts UTF-8 bytes first so the header can be written before the bytes, with no copy. */
    static int length(String s, int n) {
        int len = n;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                if (c < 0x800) {
                    len += 1;
                } else if (Character.isSurrogate(c)) {
                    if (isPair(s, i, n)) {
                        len += 2; // 4 bytes for 2 chars
                        i++;
                    }
                } else {
                    len += 2;
                }
            }
        }
        return len;
    }
}
