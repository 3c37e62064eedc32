package io.sluice.core.message;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reuses batches, and with them their messages and payload buffers. The pool never limits how many
 * batches exist: bounded queues and the memory budget do that. It keeps at most {@link #MAX_FREE} free batches,
 * so a burst that needed many does not pin them (and their messages) for the life of the process. It tracks how
 * many are out, which tells shutdown when the pipeline has drained.
 */
public final class BatchPool {
    /** Messages per batch unless a consumer asks otherwise. */
    public static final int DEFAULT_BATCH_SIZE = 512;
    /** Free batches kept for reuse; more than a pipeline's queues hold in steady state, few enough to forget a burst. */
    public static final int MAX_FREE = 256;

    private final ConcurrentLinkedQueue<Batch> free = new ConcurrentLinkedQueue<>();
    private final AtomicInteger outstanding = new AtomicInteger();
    private final AtomicInteger created = new AtomicInteger();
    private final AtomicInteger freeCount = new AtomicInteger();
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
        if (b != null) {
            freeCount.decrementAndGet();
        } else {
            b = new Batch(this, batchSize);
            created.incrementAndGet();
        }
        outstanding.incrementAndGet();
        return b;
    }

    void recycle(Batch b) {
        outstanding.decrementAndGet();
        if (freeCount.incrementAndGet() <= MAX_FREE) {
            free.offer(b);
        } else {
            freeCount.decrementAndGet();
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

    /** Messages per batch. */
    public int batchSize() {
        return batchSize;
    }
}
