package io.sluice.core.message;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Acknowledgement that flows back to a consumer: counts the batches derived from one consumer batch
 * (copies for broadcast, parts after a split) and calls {@link #onComplete()} once every one of them was
 * delivered, or {@link #onFailed()} when any of them was refused or lost on the way (a closed queue, a failed
 * delivery): a failure is never acknowledged as delivered. A Forward {@code chunk} ack, an HEC success or a Kafka
 * offset commit hangs here, and so does the memory the batches hold ({@link #holdMemory}), which goes back to the
 * budget either way.
 */
public abstract class Completion {
    private final AtomicInteger pending = new AtomicInteger(1);
    private volatile boolean failed;
    private MemoryBudget budget;
    private long heldBytes;

    /** One more batch carries this completion. */
    public final void retain() {
        pending.incrementAndGet();
    }

    /**
     * Makes this completion carry {@code bytes} reserved from {@code budget} (added to what it carries), returned
     * when the last batch is released. Called by the thread that reserved, before the batch is published.
     */
    public final void holdMemory(MemoryBudget budget, long bytes) {
        if (this.budget != null && this.budget != budget) {
            throw new IllegalStateException("a completion holds memory of one budget only");
        }
        this.budget = budget;
        this.heldBytes += bytes;
    }

    /** Whether this completion carries reserved memory. */
    public final boolean holdsMemory() {
        return budget != null;
    }

    /** Marks the batches carrying this completion as not delivered: the source gets {@link #onFailed()}. */
    public final void fail() {
        failed = true;
    }

    /** One batch carrying this completion was delivered, deliberately dropped and counted, or failed. */
    public final void release() {
        if (pending.decrementAndGet() == 0) {
            if (budget != null) {
                budget.release(heldBytes);
            }
            if (failed) {
                onFailed();
            } else {
                onComplete();
            }
        }
    }

    /** Called once, on the thread that released the last batch, when every batch was delivered. */
    protected abstract void onComplete();

    /**
     * Called once, instead of {@link #onComplete()}, when a batch was refused or lost: the source must not
     * acknowledge (no ack, an error answer, no offset commit), so its sender sends again.
     */
    protected void onFailed() {
    }

    /** A completion that only returns memory to its budget: for inputs with nothing to acknowledge. */
    public static Completion memoryOnly(MemoryBudget budget, long bytes) {
        Completion c = new Completion() {
            @Override
            protected void onComplete() {
            }
        };
        c.holdMemory(budget, bytes);
        return c;
    }
}
