package io.sluice.core.buffer;

import io.sluice.core.message.Batch;
import io.sluice.core.pipeline.BatchQueue;
import java.util.concurrent.TimeUnit;

/** The default buffer: the producer's bounded in-memory queue. Upstream is acknowledged on delivery. */
public final class MemoryBuffer implements ProducerBuffer {
    private final BatchQueue queue;

    public MemoryBuffer(BatchQueue queue) {
        this.queue = queue;
    }

    @Override
    public boolean put(Batch batch, long timeoutNanos) throws InterruptedException {
        return queue.put(batch, timeoutNanos);
    }

    /** The queue the batches wait in. */
    public BatchQueue queue() {
        return queue;
    }

    @Override
    public Batch poll(long timeout, TimeUnit unit) throws InterruptedException {
        return queue.poll(timeout, unit);
    }

    @Override
    public void delivered(Batch batch) {
        // Nothing to remember: the batch's release acknowledges upstream.
    }

    @Override
    public void close() {
        queue.close();
    }

    @Override
    public long depth() {
        return queue.depth();
    }

    @Override
    public long capacity() {
        return queue.capacity();
    }
}
