package io.sluice.core.json;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A reference UTF-8 decoder for tests, built from the JDK's encoder rather than from the code under test: valid
 * sequences decoded, each maximal subpart of an invalid one replaced with one U+FFFD (Unicode's recommended
 * practice, which {@link Utf8} follows; the JDK's own decoder differs for encoded surrogates).
 */
public final class Utf8Reference {
    private Utf8Reference() {
    }

    /** Every proper prefix of every well-formed sequence of 2 to 4 bytes, as (length << 24 | bytes). */
    private static final java.util.Set<Integer> PREFIXES = new java.util.HashSet<>();

    static {
        for (int cp = 0x80; cp <= 0x10FFFF; cp++) {
            if (cp >= 0xD800 && cp <= 0xDFFF) {
                continue;
            }
            byte[] e = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
            for (int len = 1; len < e.length; len++) {
                PREFIXES.add(key(e, 0, len));
            }
        }
    }

    private static int key(byte[] b, int off, int len) {
        int k = len << 24;
        for (int i = 0; i < len; i++) {
            k |= (b[off + i] & 0xff) << (8 * (2 - i));
        }
        return k;
    }

    /** Valid sequences copied, each maximal subpart of an invalid one replaced with one U+FFFD. */
    public static String decode(byte[] b) {
        StringBuilder sb = new StringBuilder();
        int i = 0;
        outer:
        while (i < b.length) {
            if (b[i] >= 0) {
                sb.append((char) b[i++]);
                continue;
            }
            for (int len = 2; len <= 4 && i + len <= b.length; len++) {
                try {
                    String one = strict(b, i, len);
                    if (one.codePointCount(0, one.length()) == 1) {
                        sb.append(one);
                        i += len;
                        continue outer;
                    }
                } catch (CharacterCodingException notThisLength) {
                    // try a longer one
                }
            }
            int k = 1;
            for (int len = 3; len >= 1; len--) {
                if (i + len <= b.length && PREFIXES.contains(key(b, i, len))) {
                    k = len;
                    break;
                }
            }
            sb.append('\uFFFD');
            i += k;
        }
        return sb.toString();
    }

    /** Decodes strictly: fails on anything that is not UTF-8. */
    static String strict(byte[] b, int off, int len) throws CharacterCodingException {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b, off, len)).toString();
    }
}
