package io.sluice.core.message;

import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reuses batches, and with them their messages and payload buffers. The pool never limits how many
 * batches exist: bounded queues and the memory budget do that. The free batches it keeps hold at most
 * {@code maxFreeBytes} (their messages and the buffers those grew), so a burst that needed many batches, or large
 * events, does not pin that memory for the life of the process: a batch beyond it is left to the collector. It
 * tracks how many are out, which tells shutdown when the pipeline has drained.
 */
public final class BatchPool {
    /** Messages per batch unless a consumer asks otherwise. */
    public static final int DEFAULT_BATCH_SIZE = 512;
    /** Bytes of free batches kept for reuse unless the pipeline says otherwise (it gives a share of its budget). */
    public static final long DEFAULT_MAX_FREE_BYTES = 16L << 20;

    /**
     * Last in, first out: the batch released last is the one whose messages and buffers are still in the caches,
     * so a steady pipeline keeps reusing a few warm batches instead of cycling through every free one.
     */
    private final ConcurrentLinkedDeque<Batch> free = new ConcurrentLinkedDeque<>();
    private final AtomicInteger outstanding = new AtomicInteger();
    private final AtomicInteger created = new AtomicInteger();
    private final AtomicLong freeBytes = new AtomicLong();
    private final int batchSize;
    private final long maxFreeBytes;

    /** A pool of batches holding up to {@code batchSize} messages each, keeping {@link #DEFAULT_MAX_FREE_BYTES} free. */
    public BatchPool(int batchSize) {
        this(batchSize, DEFAULT_MAX_FREE_BYTES);
    }

    /** A pool of batches of {@code batchSize} messages whose free batches hold at most {@code maxFreeBytes}. */
    public BatchPool(int batchSize, long maxFreeBytes) {
        this.batchSize = batchSize;
        this.maxFreeBytes = maxFreeBytes;
    }

    public BatchPool() {
        this(DEFAULT_BATCH_SIZE);
    }

    /** An empty batch. */
    public Batch acquire() {
        Batch b = free.pollFirst();
        if (b != null) {
            freeBytes.addAndGet(-b.retainedBytes);
        } else {
            b = new Batch(this, batchSize);
            created.incrementAndGet();
        }
        outstanding.incrementAndGet();
        return b;
    }

    void recycle(Batch b) {
        outstanding.decrementAndGet();
        long bytes = b.retainedBytes();
        if (freeBytes.addAndGet(bytes) <= maxFreeBytes) {
            b.retainedBytes = bytes;
            free.offerFirst(b);
        } else {
            freeBytes.addAndGet(-bytes);
        }
    }

    /** Batches acquired and not yet released: zero means nothing is in flight. */
    public int outstanding() {
        return outstanding.get();
    }

    /** Batches ever created; bounded when the pipeline's queues are. */
    public int created() {
        return created.get();
    }

    /** Bytes the free batches hold now. */
    public long freeBytes() {
        return freeBytes.get();
    }
}
