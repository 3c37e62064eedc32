package io.sluice.core.format;

import io.sluice.core.message.Streams;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Stream ids by name given as bytes, cached per formatter instance so that routing by a name read from the
 * message does not make a String per message. Only the first sight of a name allocates.
 */
final class StreamIds {
    private static final int MAX_CACHED = 256;
    private byte[][] names = new byte[8][];
    private int[] ids = new int[8];
    private int size;

    int id(byte[] b, int off, int len) {
        for (int i = 0; i < size; i++) {
            byte[] n = names[i];
            if (n.length == len && Arrays.equals(n, 0, len, b, off, off + len)) {
                return ids[i];
            }
        }
        int id = Streams.id(new String(b, off, len, StandardCharsets.UTF_8));
        if (size < MAX_CACHED) {
            if (size == names.length) {
                names = Arrays.copyOf(names, size * 2);
                ids = Arrays.copyOf(ids, size * 2);
            }
            names[size] = Arrays.copyOfRange(b, off, off + len);
            ids[size++] = id;
        }
        return id;
    }
}
