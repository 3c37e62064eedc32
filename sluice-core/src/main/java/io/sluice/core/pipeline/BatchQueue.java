package io.sluice.core.pipeline;

import io.sluice.core.message.Batch;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A bounded queue of batches, bounded in messages: a sender blocks while the queue holds {@code capacity}
 * messages or more, which is how backpressure reaches consumers. One lock operation per batch, not per message.
 * The queue holds at most {@code capacity + batch capacity - 1} messages.
 */
public final class BatchQueue {
    private final ArrayDeque<Batch> batches = new ArrayDeque<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notFull = lock.newCondition();
    private final Condition notEmpty = lock.newCondition();
    private final int capacity;
    private final long capacityBytes;
    private int messages;
    private long bytes;
    private int highWater;
    private boolean closed;

    /** A queue admitting batches while it holds fewer than {@code capacity} messages. */
    public BatchQueue(int capacity) {
        this(capacity, Long.MAX_VALUE);
    }

    /** A queue admitting batches while it holds fewer than {@code capacity} messages and {@code capacityBytes} payload bytes. */
    public BatchQueue(int capacity, long capacityBytes) {
        if (capacity < 1 || capacityBytes < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity + " messages, " + capacityBytes + " bytes");
        }
        this.capacity = capacity;
        this.capacityBytes = capacityBytes;
    }

    private static long payloadBytes(Batch batch) {
        long n = 0;
        for (int i = 0; i < batch.size(); i++) {
            n += batch.get(i).length();
        }
        return n;
    }

    /**
     * Adds a batch, waiting up to {@code timeoutNanos} for room (0 or less waits without end).
     *
     * @return false when it timed out or the queue is closed; the caller still owns the batch
     */
    public boolean put(Batch batch, long timeoutNanos) throws InterruptedException {
        long size = capacityBytes == Long.MAX_VALUE ? 0 : payloadBytes(batch);
        lock.lockInterruptibly();
        try {
            long left = timeoutNanos;
            while ((messages >= capacity || bytes >= capacityBytes) && !closed) {
                if (timeoutNanos <= 0) {
                    notFull.await();
                } else {
                    if (left <= 0) {
                        return false;
                    }
                    left = notFull.awaitNanos(left);
                }
            }
            if (closed) {
                return false;
            }
            batches.addLast(batch);
            messages += batch.size();
            bytes += size;
            if (messages > highWater) {
                highWater = messages;
            }
            notEmpty.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Takes the oldest batch, waiting up to {@code timeout}; null when it timed out or the queue is closed and empty. */
    public Batch poll(long timeout, TimeUnit unit) throws InterruptedException {
        long left = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            while (batches.isEmpty()) {
                if (closed || left <= 0) {
                    return null;
                }
                left = notEmpty.awaitNanos(left);
            }
            Batch b = batches.pollFirst();
            messages -= b.size();
            if (capacityBytes != Long.MAX_VALUE) {
                // A queued batch is not changed, so its size is the same as when it was put: no per-batch record.
                bytes -= payloadBytes(b);
            }
            notFull.signal();
            return b;
        } finally {
            lock.unlock();
        }
    }

    /** Stops accepting batches; takers drain what is left, then get null. */
    public void close() {
        lock.lock();
        try {
            closed = true;
            notFull.signalAll();
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Messages waiting now. */
    public int depth() {
        lock.lock();
        try {
            return messages;
        } finally {
            lock.unlock();
        }
    }

    /** The most messages ever waiting at once. */
    public int highWater() {
        lock.lock();
        try {
            return highWater;
        } finally {
            lock.unlock();
        }
    }

    /** The configured bound in messages. */
    public int capacity() {
        return capacity;
    }
}
