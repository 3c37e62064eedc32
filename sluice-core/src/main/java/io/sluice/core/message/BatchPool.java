package io.sluice.core.message;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reuses batches, and with them their messages and payload buffers. The pool never limits how many
 * batches exist: bounded queues do that. It tracks how many are out, which tells shutdown when the
 * pipeline has drained.
 */
public final class BatchPool {
    /** Messages per batch unless a consumer asks otherwise. */
    public static final int DEFAULT_BATCH_SIZE = 512;

    private final ConcurrentLinkedQueue<Batch> free = new ConcurrentLinkedQueue<>();
    private final AtomicInteger outstanding = new AtomicInteger();
    private final AtomicInteger created = new AtomicInteger();
    private final int batchSize;

    /** A pool of batches holding up to {@code batchSize} messages each. */
    public BatchPool(int batchSize) {
        this.batchSize = batchSize;
    }

    public BatchPool() {
        this(DEFAULT_BATCH_SIZE);
    }

    /** An empty batch. */
    public Batch acquire() {
        Batch b = free.poll();
        if (b == null) {
            b = new Batch(this, batchSize);
            created.incrementAndGet();
        }
        outstanding.incrementAndGet();
        return b;
    }

    void recycle(Batch b) {
        outstanding.decrementAndGet();
        free.offer(b);
    }

    /** Batches acquired and not yet released: zero means nothing is in flight. */
    public int outstanding() {
        return outstanding.get();
    }

    /** Batches ever created; bounded when the pipeline's queues are. */
    public int created() {
        return created.get();
    }

    /** Messages per batch. */
    public int batchSize() {
        return batchSize;
    }
}
