package io.sluice.forward.codec;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Msgpack encodings of strings that repeat (record keys, tags), so that each is encoded once and
 * then copied. Lookups rely on {@link String#hashCode()} being cached in the string, so a hit costs
 * a hash probe and an equals check, and no allocation.
 *
 * <p>Bounded: after {@code maxEntries} strings, new ones are encoded on every use instead of being
 * cached, so unbounded key sets (keys built from data) cannot exhaust memory. Not thread-safe.
 */
public final class KeyCache {
    /** Strings longer than this are not worth caching: they are rarely keys. */
    private static final int MAX_CACHED_CHARS = 256;

    private final Map<String, byte[]> encoded = new HashMap<>();
    private final int maxEntries;

    /** Creates a cache holding up to 4096 strings. */
    public KeyCache() {
        this(4096);
    }

    /** @param maxEntries most strings to keep */
    public KeyCache(int maxEntries) {
        this.maxEntries = maxEntries;
    }

    /**
     * @param s a string
     * @return its full msgpack str encoding (header and UTF-8 bytes), or null when not cacheable
     */
    public byte[] lookup(String s) {
        byte[] bytes = encoded.get(s);
        if (bytes != null || s.length() > MAX_CACHED_CHARS || encoded.size() >= maxEntries) {
            return bytes;
        }
        bytes = encode(s);
        encoded.put(s, bytes);
        return bytes;
    }

    /**
     * Encodes a string as a complete msgpack str value, without caching.
     *
     * @param s the string
     * @return header and UTF-8 bytes
     */
    public static byte[] encode(String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        MsgPackWriter w = new MsgPackWriter(utf8.length + 5);
        w.writeStringHeader(utf8.length);
        w.writeRaw(utf8, 0, utf8.length);
        return w.toByteArray();
    }
}
