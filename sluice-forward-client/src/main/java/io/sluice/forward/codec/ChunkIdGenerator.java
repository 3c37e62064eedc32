package io.sluice.forward.codec;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Makes {@code chunk} option values: base64 of 16 bytes, as fluentd's out_forward does.
 *
 * <p>Cheap and unique rather than secure: 8 random bytes chosen once per generator, then a counter
 * scrambled by a bijective mix (so ids look random but never repeat within 2^64 calls). One
 * SecureRandom draw per generator instead of per chunk keeps {@link #next()} fast. Thread-safe.
 */
public final class ChunkIdGenerator {
    private final long prefix;
    private final AtomicLong counter;

    /** Creates a generator seeded from {@link SecureRandom}. */
    public ChunkIdGenerator() {
        SecureRandom random = new SecureRandom();
        this.prefix = random.nextLong();
        this.counter = new AtomicLong(random.nextLong());
    }

    /** @return a new chunk id, 24 base64 characters */
    public String next() {
        byte[] id = new byte[16];
        putLong(id, 0, prefix);
        putLong(id, 8, mix(counter.incrementAndGet()));
        return Base64.getEncoder().encodeToString(id);
    }

    /** The SplitMix64 finalizer: a bijection on 64-bit values, so distinct counters stay distinct. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    private static void putLong(byte[] b, int at, long v) {
        for (int i = 7; i >= 0; i--) {
            b[at + i] = (byte) v;
            v >>>= 8;
        }
    }
}
