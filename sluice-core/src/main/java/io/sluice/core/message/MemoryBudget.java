package io.sluice.core.message;

import io.sluice.core.config.Units;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The process's one memory budget, in bytes. Every input reserves from it before it reads, inflates or decodes,
 * and the reservation travels with the batches it became (see {@link Completion#holdMemory}) until they are
 * delivered or written to a disk buffer. When the budget is spent an input pushes back in its protocol's own way
 * (stops reading, answers busy, withholds acks) instead of allocating: the heap cannot be run out by input.
 *
 * <p>The hot path is one compare-and-set per reservation and one add per release; only a caller that chooses to
 * wait ({@link #reserve(long, long)}) takes a lock, and only while the budget is spent.
 */
public final class MemoryBudget {
    /**
     * Bytes a message costs beyond its payload (the message object, its payload array's header and slack, its
     * share of the batch): charged per event, so that a million tiny events are not taken for a few megabytes.
     */
    public static final int MESSAGE_OVERHEAD = 160;
    /** The share of the maximum heap the budget takes when no limit is configured. */
    public static final double DEFAULT_HEAP_SHARE = 0.4;

    private final long limit;
    private final AtomicLong used = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    private volatile int waiters;

    /** A budget of {@code limit} bytes. */
    public MemoryBudget(long limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("memory limit must be positive, got " + limit);
        }
        this.limit = limit;
    }

    /** A budget of {@value #DEFAULT_HEAP_SHARE} of the maximum heap. */
    public static MemoryBudget ofHeapShare() {
        return new MemoryBudget(defaultLimit());
    }

    /** {@value #DEFAULT_HEAP_SHARE} of the maximum heap, the limit when none is configured. */
    private static long defaultLimit() {
        return (long) (Runtime.getRuntime().maxMemory() * DEFAULT_HEAP_SHARE);
    }

    /**
     * Parses a size as operators write a heap size: bytes, or a number with a binary suffix {@code k}, {@code m},
     * {@code g} or {@code t} in either case, optionally followed by {@code b} or {@code ib}: {@code 64m},
     * {@code 1GiB}, {@code 2MB} (two MiB, as the JVM's {@code -Xmx} reads it). The number is read by
     * {@link Units#parseSize}, whose short suffixes are binary.
     *
     * @throws IllegalArgumentException naming the text when it is not a positive size
     */
    public static long parseSize(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        t = t.endsWith("ib") ? t.substring(0, t.length() - 2) : t.endsWith("b") ? t.substring(0, t.length() - 1) : t;
        long n;
        try {
            n = Units.parseSize(t);
        } catch (IllegalArgumentException e) {
            n = 0;
        }
        if (n <= 0) {
            throw new IllegalArgumentException("expected a positive size such as 256m or 1g, found '" + text + "'");
        }
        return n;
    }

    /** A budget with no practical limit, for tests and benchmarks that measure something else. */
    public static MemoryBudget unlimited() {
        return new MemoryBudget(Long.MAX_VALUE / 4);
    }

    /** The limit in bytes. */
    public long limit() {
        return limit;
    }

    /** Bytes reserved now. */
    public long used() {
        return used.get();
    }

    /** Reservations refused because the budget was spent (each one a push back to an input). */
    public long refused() {
        return refused.get();
    }

    /** Whether a reservation of {@code bytes} could ever be granted: false means refuse it up front as too large. */
    public boolean fits(long bytes) {
        return bytes <= limit;
    }

    /**
     * Reserves {@code bytes} if the budget has room now; never waits.
     *
     * @return false when it has not: the caller pushes back and allocates nothing
     */
    public boolean tryReserve(long bytes) {
        if (bytes <= 0) {
            return true;
        }
        for (;;) {
            long u = used.get();
            if (u + bytes > limit) {
                refused.incrementAndGet();
                return false;
            }
            if (used.compareAndSet(u, u + bytes)) {
                return true;
            }
        }
    }

    /**
     * Reserves {@code bytes}, waiting up to {@code timeoutNanos} (0 or less: without end) for releases to make room.
     * A reservation larger than the whole budget is granted once nothing else is reserved, so that a blocking
     * input with one large batch is slowed down, never stuck; inputs that can refuse check {@link #fits} first.
     *
     * @return false when it timed out
     */
    public boolean reserve(long bytes, long timeoutNanos) throws InterruptedException {
        if (tryReserveOrAlone(bytes)) {
            return true;
        }
        long deadline = System.nanoTime() + timeoutNanos;
        lock.lockInterruptibly();
        try {
            waiters++;
            try {
                while (!tryReserveOrAlone(bytes)) {
                    if (timeoutNanos <= 0) {
                        released.await(100, TimeUnit.MILLISECONDS);
                    } else {
                        long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            return false;
                        }
                        released.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
                    }
                }
                return true;
            } finally {
                waiters--;
            }
        } finally {
            lock.unlock();
        }
    }

    private boolean tryReserveOrAlone(long bytes) {
        if (bytes <= 0) {
            return true;
        }
        for (;;) {
            long u = used.get();
            if (u + bytes > limit && u > 0) {
                return false;
            }
            if (used.compareAndSet(u, u + bytes)) {
                return true;
            }
        }
    }

    /** Returns {@code bytes} reserved earlier. */
    public void release(long bytes) {
        if (bytes <= 0) {
            return;
        }
        used.addAndGet(-bytes);
        if (waiters > 0) {
            lock.lock();
            try {
                released.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** The bytes a batch's messages hold: payloads plus {@link #MESSAGE_OVERHEAD} each. */
    public static long bytesOf(Batch batch) {
        long n = (long) batch.size() * MESSAGE_OVERHEAD;
        for (int i = 0; i < batch.size(); i++) {
            n += batch.get(i).length();
        }
        return n;
    }

    @Override
    public String toString() {
        return used() + " of " + limit + " bytes";
    }
}
