package io.sluice.forward.consumer;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Failed handshakes per peer address, so guessing the shared key (or a password) costs time: after {@code limit}
 * failures from one address, each within {@link #WINDOW_NANOS} of the one before, that address's connections are
 * refused before any handshake work for {@link #BASE_BLOCK_NANOS}, doubled at each further failure up to
 * {@code maxBlockNanos}. A successful handshake forgets the address; so does a quiet window after the block.
 *
 * <p>Memory is bounded: at most {@code capacity} addresses are remembered, the one whose last failure is oldest
 * dropped first, so an attacker with many source addresses cannot grow the table. IPv6 peers are counted by
 * their /64, which one host commonly owns whole. Thread-safe (connections of every event loop share it).
 */
final class AuthFailures {
    /** Failures further apart than this (after a block ended) start the count again. */
    static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** The first block; each further failure doubles it. */
    static final long BASE_BLOCK_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Addresses remembered at most (about 150 bytes each). */
    static final int DEFAULT_CAPACITY = 16_384;

    /** What {@link #failed} decided: whether this failure started or lengthened a block, and for how long. */
    record Verdict(int failures, long blockNanos) {
        boolean blocked() {
            return blockNanos > 0;
        }
    }

    private static final class Failures {
        int failures;
        long lastFailure;
        long blockedUntil;
    }

    private final int limit;
    private final long maxBlockNanos;
    private final int capacity;
    private final LongSupplier clock;
    private final LinkedHashMap<Key, Failures> table;

    /**
     * @param limit         failures before an address is blocked; 0 turns throttling off
     * @param maxBlockNanos the longest block
     * @param capacity      addresses remembered at most
     * @param clock         {@link System#nanoTime} (tests pass their own)
     */
    AuthFailures(int limit, long maxBlockNanos, int capacity, LongSupplier clock) {
        this.limit = limit;
        this.maxBlockNanos = maxBlockNanos;
        this.capacity = capacity;
        this.clock = clock;
        // Insertion order, and a failure re-inserts its address: the eldest entry is then the address whose last
        // failure is oldest, the first to forget when full, while looking an address up (every connection) does
        // not reorder anything.
        this.table = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, Failures> eldest) {
                return size() > AuthFailures.this.capacity;
            }
        };
    }

    /** Whether throttling is on. */
    boolean enabled() {
        return limit > 0;
    }

    /**
     * How much longer {@code address} is blocked, in nanoseconds; 0 when its connections may try a handshake.
     * Does not reorder the table: only failures keep an entry young.
     */
    synchronized long blockedFor(InetAddress address) {
        if (!enabled() || table.isEmpty()) {
            return 0;
        }
        Failures e = table.get(Key.of(address));
        return e == null ? 0 : Math.max(0, e.blockedUntil - clock.getAsLong());
    }

    /** Counts a failed handshake from {@code address}; says whether the address is now blocked, and for how long. */
    synchronized Verdict failed(InetAddress address) {
        if (!enabled()) {
            return new Verdict(0, 0);
        }
        long now = clock.getAsLong();
        Key key = Key.of(address);
        Failures e = table.remove(key);
        if (e == null) {
            e = new Failures();
        } else if (now - quietSince(e) > WINDOW_NANOS) {
            e.failures = 0;
        }
        e.failures = Math.min(e.failures + 1, Integer.MAX_VALUE - 1);
        e.lastFailure = now;
        table.put(key, e); // at the young end
        if (e.failures < limit) {
            return new Verdict(e.failures, 0);
        }
        long block = block(e.failures - limit);
        e.blockedUntil = now + block;
        return new Verdict(e.failures, block);
    }

    /** A handshake from {@code address} succeeded: its failures are forgotten. */
    synchronized void succeeded(InetAddress address) {
        if (enabled() && !table.isEmpty()) {
            table.remove(Key.of(address));
        }
    }

    /** Addresses remembered (tests). */
    synchronized int size() {
        return table.size();
    }

    private static long quietSince(Failures e) {
        return e.blockedUntil - e.lastFailure > 0 ? e.blockedUntil : e.lastFailure;
    }

    private long block(int beyond) {
        long b = BASE_BLOCK_NANOS << Math.min(beyond, 30);
        return Math.min(Math.max(b, BASE_BLOCK_NANOS), maxBlockNanos);
    }

    /** An IPv4 address, or the /64 of an IPv6 one. */
    record Key(long high, long low) {
        static Key of(InetAddress address) {
            byte[] b = address.getAddress();
            if (address instanceof Inet6Address) {
                return new Key(ByteBuffer.wrap(b, 0, 8).getLong(), -1);
            }
            return new Key(0, ByteBuffer.wrap(b).getInt() & 0xffffffffL);
        }
    }
}
