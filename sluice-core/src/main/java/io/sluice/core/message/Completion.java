package io.sluice.core.message;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Acknowledgement that flows back to a consumer: counts the batches derived from one consumer batch
 * (copies for broadcast, parts after a split) and calls {@link #onComplete()} once every one of them was
 * delivered. A Forward {@code chunk} ack, an HEC success or a Kafka offset commit hangs here.
 */
public abstract class Completion {
    private final AtomicInteger pending = new AtomicInteger(1);

    /** One more batch carries this completion. */
    public final void retain() {
        pending.incrementAndGet();
    }

    /** One batch carrying this completion was delivered (or deliberately dropped and counted). */
    public final void release() {
        if (pending.decrementAndGet() == 0) {
            onComplete();
        }
    }

    /** Called once, on the thread that released the last batch. */
    protected abstract void onComplete();
}
