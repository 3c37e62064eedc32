package io.sluice.core.format;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Padded base64 with a configurable 64-character alphabet (RFC 4648 by default), encoding and decoding into a
 * reusable buffer. Decoding skips CR and LF and rejects anything else outside the alphabet, like Go's
 * {@code base64.StdEncoding}.
 */
final class Base64 {
    static final String STANDARD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static final Param<String> DICTIONARY = Param.string("Dictionary", "",
            "The 64-character alphabet; empty means RFC 4648's.");
    static final Param<String> BASE64_DICTIONARY = Param.string("Base64Dictionary", "",
            "Gollum's older name for Dictionary.");
    static final String ILLEGAL = "base64: illegal data";

    private final byte[] alphabet;
    private final byte[] reverse = new byte[256];
    private byte[] out = new byte[256];

    Base64(PluginConfig config) {
        String dict = config.get(DICTIONARY).isEmpty() ? config.get(BASE64_DICTIONARY) : config.get(DICTIONARY);
        if (dict.isEmpty()) {
            dict = STANDARD;
        }
        this.alphabet = dict.getBytes(StandardCharsets.ISO_8859_1);
        if (alphabet.length != 64 || dict.chars().anyMatch(c -> c > 0xFF || c == '=' || c == '\r' || c == '\n')) {
            throw config.error(config.isSet(DICTIONARY) ? DICTIONARY : BASE64_DICTIONARY,
                    "must hold 64 distinct characters, none of them '=', CR or LF");
        }
        Arrays.fill(reverse, (byte) -1);
        for (int i = 0; i < 64; i++) {
            if (reverse[alphabet[i] & 0xFF] >= 0) {
                throw config.error(DICTIONARY, "must hold 64 distinct characters");
            }
            reverse[alphabet[i] & 0xFF] = (byte) i;
        }
    }

    byte[] buffer() {
        return out;
    }

    /** Encodes {@code b[off, off+len)} into {@link #buffer()}; returns the encoded length. */
    int encode(byte[] b, int off, int len) {
        ensure((len + 2) / 3 * 4);
        int w = 0;
        int i = off;
        int end = off + len;
        for (; i + 3 <= end; i += 3) {
            int v = (b[i] & 0xFF) << 16 | (b[i + 1] & 0xFF) << 8 | b[i + 2] & 0xFF;
            out[w++] = alphabet[v >>> 18];
            out[w++] = alphabet[v >>> 12 & 63];
            out[w++] = alphabet[v >>> 6 & 63];
            out[w++] = alphabet[v & 63];
        }
        int rest = end - i;
        if (rest > 0) {
            int v = (b[i] & 0xFF) << 16 | (rest == 2 ? (b[i + 1] & 0xFF) << 8 : 0);
            out[w++] = alphabet[v >>> 18];
            out[w++] = alphabet[v >>> 12 & 63];
            out[w++] = rest == 2 ? alphabet[v >>> 6 & 63] : (byte) '=';
            out[w++] = '=';
        }
        return w;
    }

    /** Decodes into {@link #buffer()}; returns the decoded length, or -1 if the input is not valid base64. */
    int decode(byte[] b, int off, int len) {
        ensure(len / 4 * 3 + 3);
        int w = 0;
        int acc = 0;
        int n = 0;
        int pad = 0;
        for (int i = off, end = off + len; i < end; i++) {
            int c = b[i] & 0xFF;
            if (c == '\r' || c == '\n') {
                continue;
            }
            if (c == '=') {
                pad++;
                continue;
            }
            int v = reverse[c];
            if (v < 0 || pad > 0) {
                return -1;
            }
            acc = acc << 6 | v;
            if (++n == 4) {
                out[w++] = (byte) (acc >>> 16);
                out[w++] = (byte) (acc >>> 8);
                out[w++] = (byte) acc;
                acc = 0;
                n = 0;
            }
        }
        return tail(w, acc, n, pad);
    }

    /** Finishes a decode: a group of 2 or 3 characters must be padded to 4. */
    private int tail(int w, int acc, int n, int pad) {
        if (n == 0) {
            return pad == 0 ? w : -1;
        }
        if (n + pad != 4 || n == 1) {
            return -1;
        }
        if (n == 2) {
            out[w++] = (byte) (acc >>> 4);
        } else {
            out[w++] = (byte) (acc >>> 10);
            out[w++] = (byte) (acc >>> 2);
        }
        return w;
    }

    private void ensure(int n) {
        if (out.length < n) {
            out = new byte[Math.max(n, out.length * 2)];
        }
    }
}
